// Command list-deliveries is the Lambda function ListDeliveriesFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.ListDeliveries) }
