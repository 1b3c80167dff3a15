// Command admin is the Lambda function AdminFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.Admin) }
