// Command get-api-reference is the Lambda function GetApiReferenceFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.GetApiReference) }
