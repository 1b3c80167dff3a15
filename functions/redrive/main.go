// Command redrive is the Lambda function RedriveFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.Redrive) }
