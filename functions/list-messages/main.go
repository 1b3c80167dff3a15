// Command list-messages is the Lambda function ListMessagesFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.ListMessages) }
