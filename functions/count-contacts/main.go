// Command count-contacts is the Lambda function CountContactsFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.CountContacts) }
