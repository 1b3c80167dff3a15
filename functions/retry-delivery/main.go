// Command retry-delivery is the Lambda function RetryDeliveryFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.RetryDelivery) }
