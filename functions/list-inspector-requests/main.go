// Command list-inspector-requests is the Lambda function ListInspectorRequestsFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.ListInspectorRequests) }
