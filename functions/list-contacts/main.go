// Command list-contacts is the Lambda function ListContactsFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.ListContacts) }
