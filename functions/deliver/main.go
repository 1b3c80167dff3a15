// Command deliver is the Lambda function DeliverFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.Deliver) }
