// Command run-scenario is the Lambda function RunScenarioFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.RunScenario) }
