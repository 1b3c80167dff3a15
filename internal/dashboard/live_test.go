package dashboard

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLiveFiguresAreTheScripts: the guide's "every 5 s ... up to 60 s" of
// the live views are live.js's EVERY_MS and MAX_MS.
func TestLiveFiguresAreTheScripts(t *testing.T) {
	src := scripts(t)["live.js"]
	ms := func(name string) int {
		m := regexp.MustCompile(`export const ` + name + ` = (\d+);`).FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("live.js has no %s", name)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	every, most := ms("EVERY_MS"), ms("MAX_MS")
	doc, err := os.ReadFile("../../docs/integrators.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "- **Live views.**")
	if start < 0 {
		t.Fatal("docs/integrators.md has no **Live views.** item")
	}
	item := strings.Join(strings.Fields(text[start:start+strings.Index(text[start+2:], "\n- ")+2]), " ")
	for _, want := range []string{"every " + strconv.Itoa(every/1000) + " s", "up to " + strconv.Itoa(most/1000) + " s", "back to " + strconv.Itoa(every/1000) + " s"} {
		if !strings.Contains(item, want) {
			t.Errorf("the guide's live views item lacks %q (live.js: EVERY_MS %d, MAX_MS %d): %s", want, every, most, item)
		}
	}
}
