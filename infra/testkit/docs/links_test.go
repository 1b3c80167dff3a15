package docs

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// markdownFiles returns the repository's Markdown files (slash-separated,
// relative to the root), dependencies and build outputs left out.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".md") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:|^//`)

// TestRelativeLinksResolve: every relative link of the README, the guides
// and the other Markdown files of the tree names a file or folder that
// exists and, with a #fragment, a heading (or anchor) of that file.
func TestRelativeLinksResolve(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	files := markdownFiles(t, root)
	for _, name := range ReadingOrder {
		if !slices.Contains(files, name) {
			t.Errorf("%s is missing", name)
		}
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		anchors[file] = Anchors(string(b))
		return anchors[file]
	}
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range Links(string(b)) {
			if scheme.MatchString(l.Target) {
				continue
			}
			checked++
			target, frag, _ := strings.Cut(l.Target, "#")
			to := file
			if target != "" {
				if strings.HasPrefix(target, "/") {
					to = path.Clean(strings.TrimPrefix(target, "/"))
				} else {
					to = path.Join(path.Dir(file), target)
				}
				if strings.HasPrefix(to, "../") || to == ".." {
					t.Errorf("%s:%d: %s leaves the repository", file, l.Line, l.Target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(to))); err != nil {
					t.Errorf("%s:%d: %s: no such file (%s)", file, l.Line, l.Target, to)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(to, ".md") {
				t.Errorf("%s:%d: %s: a fragment of a file that is not Markdown", file, l.Line, l.Target)
				continue
			}
			if !anchorsOf(to)[frag] {
				t.Errorf("%s:%d: %s: %s has no heading #%s", file, l.Line, l.Target, to, frag)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the link parser is broken")
	}
}

// TestTheReadmeLinksEveryGuide: a guide is found from the entry, and every
// Markdown file under docs/ is a guide of ReadingOrder (whose examples the
// README test runs).
func TestTheReadmeLinksEveryGuide(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	readme := Read(t, README)
	var targets []string
	for _, l := range Links(readme) {
		targets = append(targets, strings.SplitN(l.Target, "#", 2)[0])
	}
	for _, f := range markdownFiles(t, root) {
		if !strings.HasPrefix(f, "docs/") {
			continue
		}
		if !slices.Contains(ReadingOrder, f) {
			t.Errorf("%s is not in ReadingOrder: its examples would not run", f)
		}
		if !slices.Contains(targets, f) {
			t.Errorf("README.md does not link %s", f)
		}
	}
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Flow control: per-endpoint limits and the receiver's slow-downs": "flow-control-per-endpoint-limits-and-the-receivers-slow-downs",
		"Flow control (`make bench`, `-only flow`)":                       "flow-control-make-bench--only-flow",
		"Alarms (topic `AlarmTopicArn`)":                                  "alarms-topic-alarmtopicarn",
		"Pillar 1: idempotency keys":                                      "pillar-1-idempotency-keys",
	} {
		if got := Slug(h); got != want {
			t.Errorf("Slug(%q) = %q, want %q", h, got, want)
		}
	}
	a := Anchors("# A\n## Benchmark\n```\n# not a heading\n```\n### Benchmark\n")
	if !a["a"] || !a["benchmark"] || !a["benchmark-1"] || a["not-a-heading"] {
		t.Errorf("anchors %v", a)
	}
}
