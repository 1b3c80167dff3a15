package dashboard

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestModules: the page loads app.js as an ES module and preloads the
// others under the URLs the imports name; every script is
// imported from it, directly or not (none is dead weight); every import
// is written `from './name.js'`, the form versionImports knows; and as
// served, every import names its module by the content hash it is served
// under, so each module has one URL that is cacheable for good.
func TestModules(t *testing.T) {
	s, err := New(APIVocabulary())
	if err != nil {
		t.Fatal(err)
	}
	if want := `<script type="module" src="` + Prefix + "app.js?v=" + s.assets["app.js"].version + `"></script>`; !strings.Contains(string(s.index.body), want) {
		t.Errorf("the page lacks %s", want)
	}
	src := scripts(t)
	for name := range src {
		want := `<link rel="modulepreload" href="` + Prefix + name + "?v=" + s.assets[name].version + `">`
		if got := strings.Contains(string(s.index.body), want); got != (name != "app.js") {
			t.Errorf("the page preloads %s: %v", name, got)
		}
	}
	statement := regexp.MustCompile(`(?m)^(?:import|export)\b[^;]*;`)
	served := regexp.MustCompile(`'\./([a-z0-9-]+\.js)\?v=([0-9a-f]+)'`)
	imports := map[string][]string{}
	for name, code := range src {
		for _, st := range statement.FindAllString(code, -1) {
			if !strings.Contains(st, " from ") && !regexp.MustCompile(`^import\s*['"]`).MatchString(st) {
				continue // an export of the module's own
			}
			m := importSpec.FindStringSubmatch(st)
			if m == nil || len(importSpec.FindAllString(st, -1)) != 1 {
				t.Errorf("%s imports in a form versionImports does not rewrite: %q", name, st)
				continue
			}
			imports[name] = append(imports[name], m[2])
		}
		body := string(s.assets[name].body)
		got := served.FindAllStringSubmatch(body, -1)
		if len(got) != len(imports[name]) || len(importSpec.FindAllString(body, -1)) != 0 {
			t.Errorf("%s is served with %d versioned imports of its %d", name, len(got), len(imports[name]))
		}
		for _, m := range got {
			if v := s.assets[m[1]].version; m[2] != v {
				t.Errorf("%s imports %s?v=%s; it is served as v=%s", name, m[1], m[2], v)
			}
		}
	}
	reached := map[string]bool{}
	var reach func(string)
	reach = func(name string) {
		if !reached[name] {
			reached[name] = true
			for _, dep := range imports[name] {
				reach(dep)
			}
		}
	}
	reach("app.js")
	for name := range src {
		if !reached[name] {
			t.Errorf("%s is not imported by app.js, directly or not", name)
		}
	}
}

// TestVersionImports: a changed module changes the URL of every module
// that imports it, directly or not; a cycle and an import of a file that
// is not there are errors.
func TestVersionImports(t *testing.T) {
	files := map[string][]byte{
		"a.js": []byte("import { b } from './b.js';\n"),
		"b.js": []byte("import './c.js';\nexport const b = 1;\n"),
		"c.js": []byte("export const c = 1;\n"),
		"d.js": []byte("export const d = 1;\n"),
	}
	before, err := versionImports(files)
	if err != nil {
		t.Fatal(err)
	}
	files["c.js"] = []byte("export const c = 2;\n")
	after, err := versionImports(files)
	if err != nil {
		t.Fatal(err)
	}
	for name, changed := range map[string]bool{"a.js": true, "b.js": true, "c.js": true, "d.js": false} {
		if got := !slices.Equal(before[name], after[name]); got != changed {
			t.Errorf("%s changed: %v, want %v (%s → %s)", name, got, changed, before[name], after[name])
		}
	}
	for name, bad := range map[string]map[string][]byte{
		"a cycle":        {"a.js": []byte("import './b.js';"), "b.js": []byte("import './a.js';")},
		"a missing file": {"a.js": []byte("import { x } from './x.js';")},
	} {
		if _, err := versionImports(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
