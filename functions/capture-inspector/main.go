// Command capture-inspector is the Lambda function CaptureInspectorFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.CaptureInspector) }
