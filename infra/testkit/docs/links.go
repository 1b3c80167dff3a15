package docs

import (
	"regexp"
	"strings"
	"unicode"
)

// Link is a link of a Markdown file: its target as written and the line it
// is on.
type Link struct {
	Target string
	Line   int
}

var (
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLink    = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	heading    = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// Links returns the links of a Markdown text, those in fenced code blocks
// and code spans left out.
func Links(text string) []Link {
	var out []Link
	for i, line := range prose(text) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Target: m[1], Line: i + 1})
		}
		for _, m := range refLink.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Target: m[1], Line: i + 1})
		}
	}
	return out
}

// Anchors returns the fragments a Markdown text defines, as GitHub makes
// them from its headings (lower case, punctuation dropped, spaces to
// hyphens, "-1", "-2", ... for repeats) and from <a name|id="..."> tags.
func Anchors(text string) map[string]bool {
	out, seen := map[string]bool{}, map[string]int{}
	for _, line := range prose(text) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		a := Slug(m[2])
		if n, ok := seen[a]; ok {
			seen[a] = n + 1
			out[a+"-"+itoa(n+1)] = true
			continue
		}
		seen[a] = 0
		out[a] = true
	}
	return out
}

// Slug is GitHub's anchor of a heading's text.
func Slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.M, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// prose returns the lines of text with those of fenced code blocks blanked
// (so that line numbers stay true).
func prose(text string) []string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		for _, f := range []string{"```", "~~~"} {
			if strings.HasPrefix(t, f) {
				fence = f
				lines[i] = ""
			}
		}
	}
	return lines
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
