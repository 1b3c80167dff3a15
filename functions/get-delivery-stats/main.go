// Command get-delivery-stats is the Lambda function GetDeliveryStatsFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.GetDeliveryStats) }
