// Command rotate-webhook-secret is the Lambda function RotateWebhookSecretFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.RotateWebhookSecret) }
