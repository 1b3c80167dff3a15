// Command not-found is the Lambda function NotFoundFunction (see template.yaml).
package main

import "github.com/botix/public-api/internal/app/awsfree"

func main() { awsfree.Start(awsfree.NotFound) }
