// Command import-catalog is the Lambda function ImportCatalogFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app"

func main() { app.Start(app.ImportCatalog) }
