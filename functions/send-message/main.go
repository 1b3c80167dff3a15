// Command send-message is the Lambda function SendMessageFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.SendMessage) }
