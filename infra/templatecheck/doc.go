// Package templatecheck holds the tests that keep template.yaml, the
// Makefile, functions/ and internal/app in agreement. It has no code.
package templatecheck
