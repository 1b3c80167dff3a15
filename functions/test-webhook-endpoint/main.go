// Command test-webhook-endpoint is the Lambda function TestWebhookEndpointFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.TestWebhookEndpoint) }
