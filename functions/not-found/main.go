// Command not-found is the Lambda function NotFoundFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.NotFound) }
