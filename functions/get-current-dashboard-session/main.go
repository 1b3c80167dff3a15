// Command get-current-dashboard-session is the Lambda function GetCurrentDashboardSessionFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.GetCurrentDashboardSession) }
