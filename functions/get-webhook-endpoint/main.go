// Command get-webhook-endpoint is the Lambda function GetWebhookEndpointFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.GetWebhookEndpoint) }
