// Package templatecheck holds the tests that keep template.yaml, the
// Makefile, functions/ and internal/app in agreement, and each function's
// binary to its own route's code. It has no code.
package templatecheck
