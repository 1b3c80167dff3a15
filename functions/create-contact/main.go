// Command create-contact is the Lambda function CreateContactFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.CreateContact) }
