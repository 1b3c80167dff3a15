// Command catalog-apply is the Lambda function CatalogApplyFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.CatalogApply) }
