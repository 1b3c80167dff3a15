// Command dispatch is the Lambda function DispatchFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.Dispatch) }
