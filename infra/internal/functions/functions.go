// Package functions knows where each function of template.yaml is built
// from: the Makefile's build-<LogicalId> targets name its functions/ dir.
package functions

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

var target = regexp.MustCompile(`(?m)^build-([A-Za-z0-9]+): ; \$\(call lambda,([a-z0-9-]+)\)$`)

// Dirs maps logical ids to their functions/ directory names, from the
// Makefile at the repository root.
func Dirs(root string) (map[string]string, error) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range target.FindAllStringSubmatch(string(mk), -1) {
		if _, dup := out[m[1]]; dup {
			return nil, fmt.Errorf("functions: build-%s appears twice", m[1])
		}
		out[m[1]] = m[2]
	}
	return out, nil
}
