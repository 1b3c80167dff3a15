// Command list-dashboard-sessions is the Lambda function ListDashboardSessionsFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.ListDashboardSessions) }
