// Package deploycheck holds the tests that run AWS's own deploy tools on
// the repository as an operator runs them (pinned in infra/awstools): sam
// build, whose artifacts must be make build's. It has no code.
package deploycheck
