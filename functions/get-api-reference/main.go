// Command get-api-reference is the Lambda function GetApiReferenceFunction (see template.yaml).
package main

import (
	"github.com/botix/public-api/internal/app/awsfree"
	"github.com/botix/public-api/internal/app/awsfree/reference"
)

func main() { awsfree.Start(reference.GetApiReference) }
