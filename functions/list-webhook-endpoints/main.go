// Command list-webhook-endpoints is the Lambda function ListWebhookEndpointsFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.ListWebhookEndpoints) }
