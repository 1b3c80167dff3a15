// Command get-delivery is the Lambda function GetDeliveryFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.GetDelivery) }
