// Command dashboard is the Lambda function DashboardFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.Dashboard) }
