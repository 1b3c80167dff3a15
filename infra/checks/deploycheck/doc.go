// Package deploycheck holds the tests that run AWS's own deploy tools on
// the repository as an operator runs them (pinned in infra/tools/awstools): sam
// build, whose artifacts must be make build's, and the SAM transform, whose
// plain CloudFormation is stood up in moto's server and compared with what
// the local runtime builds. It has no code but translate.py, which runs the
// SAM translator.
package deploycheck
