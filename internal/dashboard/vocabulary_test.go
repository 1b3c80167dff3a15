package dashboard

import (
	"html"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/webhook"
)

func statusWords(ss ...webhook.Status) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, string(s))
	}
	return out
}

// pageMetas are the page's <meta name="botix-..."> contents, by name
// without the prefix.
func pageMetas(t *testing.T, s *Site) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`<meta name="botix-([a-z-]+)" content="([^"]*)">`).FindAllStringSubmatch(string(s.index.body), -1) {
		out[m[1]] = html.UnescapeString(m[2])
	}
	return out
}

// TestPageCarriesTheAPIsVocabulary: the page carries the event types and
// the webhook pillar's statuses as Go has them, and vocabulary.js reads
// exactly the words the page carries.
func TestPageCarriesTheAPIsVocabulary(t *testing.T) {
	s, err := New(APIVocabulary())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"event-types":            domain.EventTypes,
		"health-event-types":     domain.HealthEventTypes,
		"delivery-statuses":      statusWords(webhook.Statuses...),
		"attempt-outcomes":       statusWords(webhook.Outcomes...),
		"status-delivered":       statusWords(webhook.StatusDelivered),
		"status-dead":            statusWords(webhook.StatusDead),
		"recovery-running":       {string(webhook.RecoveryRunning)},
		"health-states":          webhook.HealthStates,
		"retention-days":         {"14"}, // webhook.DeliveryRetention, 14 days
		"recovery-stall-seconds": {strconv.Itoa(int(webhook.RecoveryStall / time.Second))},
	}
	if webhook.DeliveryRetention != 14*24*time.Hour {
		t.Fatalf("DeliveryRetention is %s: update this test's words", webhook.DeliveryRetention)
	}
	metas := pageMetas(t, s)
	for name, words := range want {
		if got := metas[name]; got != strings.Join(words, " ") {
			t.Errorf("botix-%s is %q, want %q", name, got, strings.Join(words, " "))
		}
	}
	if got, want := slices.Sorted(maps.Keys(metas)), slices.Sorted(maps.Keys(want)); !slices.Equal(got, want) {
		t.Errorf("the page carries %v, want %v", got, want)
	}
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`\b(?:words|meta)\('([a-z-]+)'\)`).FindAllStringSubmatch(scripts(t)["vocabulary.js"], -1) {
		read[m[1]] = true
	}
	if got, want := slices.Sorted(maps.Keys(read)), slices.Sorted(maps.Keys(metas)); !slices.Equal(got, want) {
		t.Errorf("vocabulary.js reads %v; the page carries %v", got, want)
	}
}

// TestScriptsHoldNoCopyOfTheVocabulary: no script names an event type, a
// delivery status, an attempt outcome or a recovery status as a string
// of its own (they come from vocabulary.js), nor reads a stats count by
// an outcome's name (`t.dead`): a value Go renames or adds cannot be
// left behind in a script.
func TestScriptsHoldNoCopyOfTheVocabulary(t *testing.T) {
	words := slices.Concat(domain.EventTypes, statusWords(webhook.Statuses...), statusWords(webhook.Outcomes...),
		[]string{string(webhook.RecoveryRunning), string(webhook.RecoveryCompleted)})
	quoted := []string{}
	for _, w := range words {
		quoted = append(quoted, regexp.QuoteMeta(w))
	}
	outcomes := []string{}
	for _, o := range webhook.Outcomes {
		outcomes = append(outcomes, regexp.QuoteMeta(string(o)))
	}
	literal := regexp.MustCompile("['\"`](" + strings.Join(quoted, "|") + ")['\"`]")
	field := regexp.MustCompile(`\.(` + strings.Join(outcomes, "|") + `)\b`)
	for name, src := range scripts(t) {
		for _, re := range []*regexp.Regexp{literal, field} {
			if m := re.FindAllString(src, -1); len(m) > 0 {
				t.Errorf("%s holds its own copy of the API's words: %v", name, m)
			}
		}
	}
}

// TestStylesNameKnownStates: the styles' per-state classes (.s-<status>
// badges, .bar-<outcome> and .l-<outcome> in the charts) name values the
// API has, or an endpoint's enabled/disabled badge; every outcome has its
// bar colour and legend swatch.
func TestStylesNameKnownStates(t *testing.T) {
	css, err := static.ReadFile("static/app.css")
	if err != nil {
		t.Fatal(err)
	}
	known := slices.Concat(statusWords(webhook.Statuses...), []string{"enabled", "disabled"})
	for _, m := range regexp.MustCompile(`\.(s|bar|l|h)-([a-z_]+)`).FindAllStringSubmatch(string(css), -1) {
		ok := slices.Contains(known, m[2])
		if m[1] == "h" {
			ok = slices.Contains(webhook.HealthStates, m[2])
		} else if m[1] != "s" {
			ok = slices.Contains(webhook.Outcomes, webhook.Status(m[2]))
		}
		if !ok {
			t.Errorf("app.css styles %s, which the API does not have", m[0])
		}
	}
	for _, h := range webhook.HealthStates {
		if !regexp.MustCompile(regexp.QuoteMeta(".h-"+h) + `\b`).Match(css) {
			t.Errorf("app.css has no .h-%s: an endpoint in that health state has an uncoloured badge", h)
		}
	}
	for _, o := range webhook.Outcomes {
		for _, class := range []string{".bar-" + string(o), ".l-" + string(o)} {
			if !regexp.MustCompile(regexp.QuoteMeta(class) + `\b`).Match(css) {
				t.Errorf("app.css has no %s", class)
			}
		}
	}
}

// TestNewRefusesAnIncompleteVocabulary: a vocabulary with an empty entry,
// or a word the page's space-separated lists could not carry, is an error
// at start, not a page whose filters offer nothing.
func TestNewRefusesAnIncompleteVocabulary(t *testing.T) {
	for name, change := range map[string]func(*Vocabulary){
		"no delivery statuses":  func(v *Vocabulary) { v.DeliveryStatuses = nil },
		"no dead status":        func(v *Vocabulary) { v.StatusDead = "" },
		"an outcome with blank": func(v *Vocabulary) { v.AttemptOutcomes = []string{"delivered", "re trying"} },
		"an empty event type":   func(v *Vocabulary) { v.EventTypes = []string{"contact.created", ""} },
	} {
		t.Run(name, func(t *testing.T) {
			v := APIVocabulary()
			change(&v)
			if _, err := New(v); err == nil {
				t.Fatal("no error")
			}
		})
	}
}
