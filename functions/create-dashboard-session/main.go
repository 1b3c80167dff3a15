// Command create-dashboard-session is the Lambda function CreateDashboardSessionFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.CreateDashboardSession) }
