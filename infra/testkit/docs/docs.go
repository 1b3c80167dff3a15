// Package docs reads the repository's documentation — the README, which is
// the entry, and the guides under docs/ — for the tests that hold its text
// to the code, run its examples and check its links.
package docs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The documentation's files, relative to the repository's root.
const (
	README       = "README.md"
	Integrators  = "docs/integrators.md"
	Receivers    = "docs/receivers.md"
	Operators    = "docs/operators.md"
	Contributors = "docs/contributors.md"
)

// ReadingOrder is the order a reader follows the documentation in, and so
// the order its examples run in: the README's Quickstart first, then the
// guides as the README lists them (a later example counts what an earlier
// one created).
var ReadingOrder = []string{README, Integrators, Receivers, Operators, Contributors}

// Root returns the repository's root: the nearest directory at or above the
// working directory that holds go.mod and README.md.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) && isFile(filepath.Join(dir, README)) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("docs: no go.mod with a README.md above the working directory")
		}
		dir = parent
	}
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// Read returns one file of the documentation (a name of ReadingOrder).
func Read(t testing.TB, name string) string {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// All returns every file of ReadingOrder by name, for a check that holds
// wherever in the documentation a statement stands.
func All(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range ReadingOrder {
		out[name] = Read(t, name)
	}
	return out
}
