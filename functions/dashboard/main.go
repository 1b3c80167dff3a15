// Command dashboard is the Lambda function DashboardFunction (see template.yaml).
package main

import (
	"github.com/botix/public-api/internal/app/awsfree"
	"github.com/botix/public-api/internal/app/awsfree/site"
)

func main() { awsfree.Start(site.Dashboard) }
