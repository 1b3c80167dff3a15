"""Translate a SAM template into the plain CloudFormation that a deploy creates.

Usage: python translate.py TEMPLATE CODE_S3_URI REGION > translated.json

It runs the pinned aws-sam-translator, the transform CloudFormation applies
to a template declaring AWS::Serverless-2016-10-31, with the parameters'
defaults (the translator fills them in itself when given none). What a real
deploy takes from the account and the caller is given here:
- the region (the translator writes it into ARNs and partitions);
- the functions' code: every local CodeUri becomes CODE_S3_URI, as
  `sam package` rewrites it to the artifact it uploaded;
- the managed-policy map (names to ARNs): the translator only looks a name
  up when a template names a managed policy without its ARN, so a fixed map
  of the one SAM attaches itself is enough.
"""

import json
import sys

import boto3
from samtranslator.parser.parser import Parser
from samtranslator.translator.translator import Translator
from samtranslator.yaml_helper import yaml_parse

MANAGED_POLICIES = {
    "AWSLambdaBasicExecutionRole": "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
}


def main(path, code_uri, region):
    with open(path, encoding="utf-8") as f:
        sam = yaml_parse(f.read())
    function_globals = sam.get("Globals", {}).get("Function", {})
    if "CodeUri" in function_globals:
        function_globals["CodeUri"] = code_uri
    for resource in sam["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function" and "CodeUri" in resource.get("Properties", {}):
            resource["Properties"]["CodeUri"] = code_uri
    session = boto3.session.Session(region_name=region)  # no credentials: nothing is called
    cfn = Translator(MANAGED_POLICIES, Parser(), boto_session=session).translate(sam, parameter_values={})
    json.dump(cfn, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
