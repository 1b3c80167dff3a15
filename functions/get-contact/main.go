// Command get-contact is the Lambda function GetContactFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.GetContact) }
