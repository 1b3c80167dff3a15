// Command list-events is the Lambda function ListEventsFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.ListEvents) }
