// Command delete-dashboard-session is the Lambda function DeleteDashboardSessionFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.DeleteDashboardSession) }
