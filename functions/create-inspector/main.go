// Command create-inspector is the Lambda function CreateInspectorFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.CreateInspector) }
