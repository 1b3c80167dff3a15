// Command update-webhook-endpoint is the Lambda function UpdateWebhookEndpointFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.UpdateWebhookEndpoint) }
