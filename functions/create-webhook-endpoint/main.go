// Command create-webhook-endpoint is the Lambda function CreateWebhookEndpointFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.CreateWebhookEndpoint) }
