// Command delete-webhook-endpoint is the Lambda function DeleteWebhookEndpointFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.DeleteWebhookEndpoint) }
