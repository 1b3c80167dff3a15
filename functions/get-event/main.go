// Command get-event is the Lambda function GetEventFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.GetEvent) }
