// Command redirect-delivery is the Lambda function RedirectDeliveryFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.RedirectDelivery) }
