// Command recover-webhook-endpoint is the Lambda function RecoverWebhookEndpointFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.RecoverWebhookEndpoint) }
