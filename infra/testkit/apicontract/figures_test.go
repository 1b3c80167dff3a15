package apicontract_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/botix/public-api/infra/testkit/docs"
	"github.com/botix/public-api/internal/api"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/idempotency"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/addrguard"
	"github.com/botix/public-api/sdk"
	receiver "github.com/botix/public-api/sdk/go/webhook"
)

// A figure is a number the prose states, bound to the code's value: the
// phrase in which it stands (the figure is the phrase's first group) and
// what the code says. want is a time.Duration (the group is one duration:
// "24 h", "14 days"), a []time.Duration (every duration in the group, in
// order), a size in bytes (size: "64 KB"), an int or an []int (every
// integer of the group).
type figure struct {
	name   string
	phrase *regexp.Regexp
	want   any
	// at, when set, limits the rule to the texts whose place (a path
	// into the document) it matches.
	at *regexp.Regexp
}

type size int

// sumRound is what "about N hours" of a schedule is: its total, to the hour.
func sumRound(ds []time.Duration) time.Duration {
	var total time.Duration
	for _, d := range ds {
		total += d
	}
	return total.Round(time.Hour)
}

// documentFigures are every figure sdk/openapi.yaml's prose may state.
var documentFigures = []figure{
	{"idempotency keys are kept", regexp.MustCompile(`(?i)kept (\d+ hours?|\d+ h)\b`), idempotency.TTL, nil},
	{"the IN_PROGRESS Retry-After", regexp.MustCompile(`IDEMPOTENCY_KEY_IN_PROGRESS` + "`?" + `,? (?:with |and )?(?:a )?` + "`?" + `Retry-After: (\d+)`), idempotency.RetryAfterSeconds, nil},
	{"the connect timeout", regexp.MustCompile(`no connection within (\d+ s)\b`), webhook.DefaultConnectTimeout, nil},
	{"the read timeout", regexp.MustCompile(`no answer (?:with)?in (\d+ s)\b`), webhook.DefaultReadTimeout, nil},
	{"the retry schedule", regexp.MustCompile(`retried after ((?:\d+ (?:min|h)(?:, | and )?)+)`), webhook.DefaultSchedule, nil},
	{"the attempts of a round", regexp.MustCompile(`(\d+) attempts`), len(webhook.DefaultSchedule) + 1, nil},
	{"a round lasts about", regexp.MustCompile(`over about (\d+ hours)`), sumRound(webhook.DefaultSchedule), nil},
	{"the secret overlap", regexp.MustCompile(`(?:signs too for|previous one's for|during the) (\d+ h)\b`), webhook.SecretOverlap, nil},
	{"the delivery log's retention", regexp.MustCompile(`(?:last|at most|clamped to) (\d+ days)(?: back)?`), webhook.DeliveryRetention, nil},
	{"the stats' hourly window", regexp.MustCompile(`hour \(default, the last (\d+ h)\)`), webhook.DefaultHourlyWindow, nil},
	{"an inspector lives", regexp.MustCompile(`alive (\d+ h)\b`), store.InspectorTTL, nil},
	{"an inspector keeps of a body", regexp.MustCompile(`(?:first (\d+ KB) are kept|[Tt]he first (\d+ KB)\.$|longer than (\d+ KB)\.)`), size(store.InspectorMaxBody), nil},
	{"the thin-body threshold", regexp.MustCompile(`(?:past|over) (\d+ KB)`), size(webhook.MaxPayload), nil},
	{"the response body an attempt logs", regexp.MustCompile(`first (\d+ KB) of the answer`), size(webhook.MaxResponseBody), nil},
	{"the body limit", regexp.MustCompile(`route's limit \((\d+ KiB)`), size(httpapi.DefaultMaxBody), nil},
	{"the offset maximum", regexp.MustCompile(`OffsetMax \(default (\d+)\)`), pagination.DefaultOffset.Max, nil},
	{"the signature timestamp tolerance", regexp.MustCompile(`more than (\d+ minutes) off`), receiver.DefaultTolerance, nil},
	{"a price's decimals", regexp.MustCompile(`(?i)at most (\d+) decimals`), domain.MaxPriceDecimals, nil},
	{"scenario variables", regexp.MustCompile(`At most (\d+ KiB)`), size(domain.MaxVariablesBytes), regexp.MustCompile(`/ScenarioRunCreate/`)},
	{"a catalog import's body", regexp.MustCompile(`At most (\d+ KiB)`), size(api.MaxImportBody), regexp.MustCompile(`/CatalogImportCreate/description$`)},
	{"an endpoint URL's length", regexp.MustCompile(`At most (\d+) characters`), addrguard.MaxURLLength, regexp.MustCompile(`/EndpointURL/`)},
	{"a recovery's cooldown per delivery", regexp.MustCompile(`(?:for|less than) (\d+ minutes)`), webhook.RecoveryCooldown, regexp.MustCompile(`/Recovery(?:Progress)?/`)},
	{"a recover call's batch", regexp.MustCompile(`queues at most (\d+) deliveries`), webhook.MaxRecoveryBatch, regexp.MustCompile(`/Recovery/`)},
	{"a failing endpoint's streak", regexp.MustCompile(`(\d+) failed attempts in a row`), webhook.FailingAttempts, regexp.MustCompile(`^/webhooks/`)},
	{"a failing endpoint's streak lasts", regexp.MustCompile(`over at least (\d+ minutes)`), webhook.FailingFor, regexp.MustCompile(`^/webhooks/`)},
	{"the disable warning", regexp.MustCompile(`disabled within (\d+ h)\b`), webhook.DisableWarning, regexp.MustCompile(`^/webhooks/`)},
	{"the auto-disable period", regexp.MustCompile(`every delivery failed for (\d+ days)`), webhook.DefaultAutoDisableAfter, regexp.MustCompile(`^/webhooks/`)},
	{"the bulk lane's threshold", regexp.MustCompile(`more than (\d+) deliveries in one dispatch`), webhook.BulkAfter, regexp.MustCompile(`/webhook-deliveries/get/description$`)},
	// Counting origins, not settings: rounds and attempts count from 1.
	{"rounds count from", regexp.MustCompile(`^(1), plus one per`), 1, nil},
	{"attempts count from", regexp.MustCompile(`from (1)\.$`), 1, nil},
}

// notFigures are numbers that name rather than measure: standards,
// versions, formats. HTTP statuses are told apart in figuresIn.
var notFigures = regexp.MustCompile(`RFC \d+|UTS #\d+|Atom \d\.\d|tag:botix\.pro,\d+|E\.164|SHA-256|HTTP/\d\.\d|OpenAPI \d\.\d`)

// figureToken is a number with its unit, if any.
var figureToken = regexp.MustCompile(`\b\d+(?:\.\d+)?(?: ?(?:ms|s|seconds?|min|minutes?|h|hours?|days?|KB|KiB|MB|MiB|bytes|decimals|attempts|items|characters|requests))?\b`)

// figuresIn returns where the figures of text stand: every number but
// those of notFigures and HTTP statuses (a bare known status, which the
// validator and the codes test check).
func figuresIn(text string) [][]int {
	masked := []byte(text)
	for _, m := range notFigures.FindAllStringIndex(text, -1) {
		for i := m[0]; i < m[1]; i++ {
			masked[i] = 'x'
		}
	}
	var out [][]int
	for _, m := range figureToken.FindAllStringIndex(string(masked), -1) {
		tok := text[m[0]:m[1]]
		if n, err := strconv.Atoi(tok); err == nil && n >= 100 && n < 600 && http.StatusText(n) != "" {
			continue
		}
		out = append(out, m)
	}
	return out
}

var durationPart = regexp.MustCompile(`(\d+) ?(ms|s|seconds?|min|minutes?|h|hours?|days?)\b`)

func parseDurations(s string) []time.Duration {
	var out []time.Duration
	for _, m := range durationPart.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "second": time.Second, "seconds": time.Second,
			"min": time.Minute, "minute": time.Minute, "minutes": time.Minute, "h": time.Hour, "hour": time.Hour, "hours": time.Hour,
			"day": 24 * time.Hour, "days": 24 * time.Hour}[m[2]]
		out = append(out, time.Duration(n)*unit)
	}
	return out
}

var sizePart = regexp.MustCompile(`^(\d+) ?(KB|KiB|MB|MiB|bytes)$`)

// value reads the figure s as the kind of want.
func value(s string, want any) (any, error) {
	switch want.(type) {
	case time.Duration:
		ds := parseDurations(s)
		if len(ds) != 1 {
			return nil, fmt.Errorf("%q is not one duration", s)
		}
		return ds[0], nil
	case []time.Duration:
		return parseDurations(s), nil
	case size:
		m := sizePart.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("%q is not a size", s)
		}
		n, _ := strconv.Atoi(m[1])
		return size(n * map[string]int{"KB": 1 << 10, "KiB": 1 << 10, "MB": 1 << 20, "MiB": 1 << 20, "bytes": 1}[m[2]]), nil
	case int:
		return strconv.Atoi(s)
	case []int:
		var out []int
		for _, f := range regexp.MustCompile(`\d+`).FindAllString(s, -1) {
			n, _ := strconv.Atoi(f)
			out = append(out, n)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no reading for %T", want)
}

// attemptsBeforeTheLast are the attempts a retryable failure is retried
// after: 1 to the schedule's length.
func attemptsBeforeTheLast() []int {
	var out []int
	for i := range webhook.DefaultSchedule {
		out = append(out, i+1)
	}
	return out
}

func same(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// prose is every description and summary of the document, by where it is.
func prose(t *testing.T) map[string]string {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(sdk.OpenAPI, &root); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(n *yaml.Node, at string)
	walk = func(n *yaml.Node, at string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, at)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1]
				if (k == "description" || k == "summary") && v.Kind == yaml.ScalarNode {
					out[at+"/"+k] = v.Value
					continue
				}
				walk(v, at+"/"+k)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, at+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(&root, "")
	return out
}

// group is where the first group that took part in match m stands.
func group(m []int) (int, int) {
	for i := 2; i+1 < len(m); i += 2 {
		if m[i] >= 0 {
			return m[i], m[i+1]
		}
	}
	return m[0], m[1]
}

// checkFigures checks the figures of texts (by where they are) against
// rules: each phrase a rule matches states the code's value; with strict,
// a figure no rule covers is an error (new prose must bring its rule).
// It returns how many times each rule matched.
func checkFigures(t *testing.T, texts map[string]string, rules []figure, strict bool) map[string]int {
	t.Helper()
	matched := map[string]int{}
	for at, text := range texts {
		if strict {
			// A description's line breaks are YAML's, not the prose's.
			text = strings.Join(strings.Fields(text), " ")
		}
		covered := make([]bool, len(text))
		for _, r := range rules {
			if r.at != nil && !r.at.MatchString(at) {
				continue
			}
			for _, m := range r.phrase.FindAllStringSubmatchIndex(text, -1) {
				matched[r.name]++
				from, to := group(m)
				for i := from; i < to; i++ {
					covered[i] = true
				}
				got, err := value(text[from:to], r.want)
				if err != nil {
					t.Errorf("%s: %s: %v", at, r.name, err)
				} else if !same(got, r.want) {
					t.Errorf("%s: %s is %q in %q; the code says %v", at, r.name, text[from:to], text[m[0]:m[1]], r.want)
				}
			}
		}
		if !strict {
			continue
		}
		for _, f := range figuresIn(text) {
			if !covered[f[0]] {
				from, to := max(0, f[0]-40), min(len(text), f[1]+40)
				t.Errorf("%s: the figure %q (in %q) is bound to no constant of the code: add a rule to documentFigures", at, text[f[0]:f[1]], strings.ReplaceAll(text[from:to], "\n", " "))
			}
		}
	}
	return matched
}

// TestDocumentFiguresAreTheCodes: every figure in the prose of
// sdk/openapi.yaml (each description and summary) is the code's value,
// and a figure that no rule binds to the code fails the test.
func TestDocumentFiguresAreTheCodes(t *testing.T) {
	matched := checkFigures(t, prose(t), documentFigures, true)
	for _, r := range documentFigures {
		if matched[r.name] == 0 {
			t.Errorf("no prose states %s any more: remove its rule", r.name)
		}
	}
}

// TestDocumentPagingLimitsAreTheCodes: the schemas of the paging
// parameters carry the pager's default and bounds.
func TestDocumentPagingLimitsAreTheCodes(t *testing.T) {
	var d struct {
		Components struct {
			Parameters map[string]struct {
				Schema struct {
					Minimum, Maximum, Default any
				} `yaml:"schema"`
			} `yaml:"parameters"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(sdk.OpenAPI, &d); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][3]any{
		"CursorLimit": {1, pagination.MaxLimit, pagination.DefaultLimit},
		"Limit":       {1, pagination.MaxLimit, pagination.DefaultLimit},
		"Offset":      {0, pagination.DefaultOffset.Max, nil},
	} {
		s := d.Components.Parameters[name].Schema
		got := [3]any{s.Minimum, s.Maximum, s.Default}
		for i, what := range []string{"minimum", "maximum", "default"} {
			if !same(got[i], want[i]) {
				t.Errorf("parameter %s: %s %v; the code says %v", name, what, got[i], want[i])
			}
		}
	}
}

// readmeFigures are the guides' statements of the webhook policy and the
// limits an integrator plans with; each must be found at least once, and
// every statement of one, in any file of the documentation, must be true.
var readmeFigures = []figure{
	{"a delivery's lifetime", regexp.MustCompile(`A delivery lives at most (\d+ days)`), webhook.DeliveryLifetime, nil},
	{"the manual-retry cooldown", regexp.MustCompile(`One manual retry per delivery every (\d+ s)`), webhook.ManualRetryCooldown, nil},
	{"the slow-down answers a round takes", regexp.MustCompile(`after (\d+) such answers in one round`), webhook.MaxThrottles, nil},
	{"the rate limit's bounds", regexp.MustCompile("`rate_limit` \\| 1 to (\\d+)"), webhook.MaxRateLimit, nil},
	{"the concurrency's bounds", regexp.MustCompile("`max_concurrency` \\| 1 to (\\d+)"), webhook.MaxMaxConcurrency, nil},
	{"the adaptive start", regexp.MustCompile(`it starts from (\d+) per\s+second`), int(webhook.AdaptiveStartRate), nil},
	{"how late a number may be taken", regexp.MustCompile(`later\s+than\s+its\s+start\s+by\s+more\s+than\s+(\d+ ms)`), webhook.Late, nil},
	{"a busy batch's wait", regexp.MustCompile(`finds every slot busy\s+comes back (\d+ s) later`), webhook.BusyWait, nil},
	{"the bulk lane's threshold", regexp.MustCompile(`more than (\d+) deliveries in one\s+dispatch`), webhook.BulkAfter, nil},
	{"a flood's database calls at a time", regexp.MustCompile(`at most (\d+) DynamoDB calls? in flight`), webhook.DefaultBulkCalls, nil},
	{"the wait within the deliver function", regexp.MustCompile(`[Aa] start within (\d+ s) is waited\s+for`), webhook.Nearby, nil},
	{"the retry table's timeouts", regexp.MustCompile(`connect timeout \((\d+ s)\), read timeout \(\d+ s\)`), webhook.DefaultConnectTimeout, nil},
	{"the retry table's timeouts", regexp.MustCompile(`connect timeout \(\d+ s\), read timeout \((\d+ s)\)`), webhook.DefaultReadTimeout, nil},
	{"the pipeline's timeouts", regexp.MustCompile(`POST \(connect (\d+ s), read \d+ s`), webhook.DefaultConnectTimeout, nil},
	{"the pipeline's timeouts", regexp.MustCompile(`POST \(connect \d+ s, read (\d+ s)`), webhook.DefaultReadTimeout, nil},
	{"the retry table's schedule", regexp.MustCompile(`attempt n\+1 after ((?:\d+ (?:min|h)(?:, )?)+)`), webhook.DefaultSchedule, nil},
	{"the schedule the kit's lease is set against", regexp.MustCompile(`default schedule \(((?:\d+ (?:min|h)(?:, )?)+)\)`), webhook.DefaultSchedule, nil},
	{"the retry table's last attempt", regexp.MustCompile("(?m)^\\| (\\d+) \\| any retryable failure \\| `dead`"), len(webhook.DefaultSchedule) + 1, nil},
	{"the retry table's first attempts", regexp.MustCompile("(?m)^\\| ((?:\\d+, )+\\d+) \\| connect timeout"), attemptsBeforeTheLast(), nil},
	{"the attempts the schedule spaces", regexp.MustCompile(`waits before attempts 2\.\.(\d+)`), len(webhook.DefaultSchedule) + 1, nil},
	{"a redriven round", regexp.MustCompile(`a fresh round of (\d+) attempts`), len(webhook.DefaultSchedule) + 1, nil},
	{"the Retry-After cap", regexp.MustCompile(`capped at (\d+ h);`), webhook.MaxRetryAfter, nil},
	{"the auto-disable period", regexp.MustCompile("failed for (\\d+ days) \\(`WEBHOOK_AUTO_DISABLE_AFTER`\\)"), webhook.DefaultAutoDisableAfter, nil},
	{"the attempt log's retention", regexp.MustCompile(`Every attempt is logged for (\d+ days)`), webhook.DeliveryRetention, nil},
	{"the response body an attempt logs", regexp.MustCompile(`first\s+(\d+ KB) of the (?:response|answer)`), size(webhook.MaxResponseBody), nil},
	{"the thin-body threshold", regexp.MustCompile(`A body over (\d+ KB) is sent thin`), size(webhook.MaxPayload), nil},
	{"the body limit", regexp.MustCompile(`Body limit (\d+ KiB)`), size(httpapi.DefaultMaxBody), nil},
	{"the secret overlap", regexp.MustCompile(`keeps signing alongside it for (\d+ h)`), webhook.SecretOverlap, nil},
	{"the IN_PROGRESS Retry-After", regexp.MustCompile(`IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After: (\d+)`), idempotency.RetryAfterSeconds, nil},
	{"a failing endpoint's streak", regexp.MustCompile(`(\d+) failed attempts in a row`), webhook.FailingAttempts, nil},
	{"a failing endpoint's streak lasts", regexp.MustCompile(`over at least (\d+ minutes)`), webhook.FailingFor, nil},
	{"the disable warning", regexp.MustCompile(`within (\d+ h) of the auto-disable`), webhook.DisableWarning, nil},
	{"the auto-disable period, by default", regexp.MustCompile(`by default every delivery failed for (\d+ days)`), webhook.DefaultAutoDisableAfter, nil},
	{"a dashboard session's lifetime", regexp.MustCompile("`ttl_seconds` from (\\d+ to \\d+ \\(default \\d+)\\)"), sessionTTLSeconds(), nil},
}

// sessionTTLSeconds are a dashboard session's lifetime bounds and default,
// in seconds, as the README and the document state them.
func sessionTTLSeconds() []int {
	return []int{int(auth.MinSessionTTL / time.Second), int(auth.MaxSessionTTL / time.Second), int(auth.DefaultSessionTTL / time.Second)}
}

// goDurations reads a Go duration list ("1m,15m,1h,24h") of the guides'
// configuration tables.
func goDurations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// TestReadmeFiguresAreTheCodes: the documentation states the retry schedule,
// timeouts and limits the code has — in its prose and tables, and in the
// defaults of its configuration tables (Go durations).
func TestReadmeFiguresAreTheCodes(t *testing.T) {
	all := docs.All(t)
	matched := checkFigures(t, all, readmeFigures, false)
	for _, r := range readmeFigures {
		if matched[r.name] == 0 {
			t.Errorf("the documentation no longer states %s (%s): fix the guide or the rule", r.name, r.phrase)
		}
	}
	// A configuration row names its variable (or the template's
	// parameter) first; its first Go durations are the defaults.
	configs := []struct {
		names *regexp.Regexp
		want  [][]time.Duration
	}{
		{regexp.MustCompile("(?m)^\\| `(?:WEBHOOK_RETRY_SCHEDULE|WebhookRetrySchedule)` \\|(.*)$"), [][]time.Duration{webhook.DefaultSchedule}},
		{regexp.MustCompile("(?m)^\\| `(?:WEBHOOK_CONNECT_TIMEOUT|WebhookConnectTimeout)`, `(?:WEBHOOK_READ_TIMEOUT|WebhookReadTimeout)` \\|(.*)$"),
			[][]time.Duration{{webhook.DefaultConnectTimeout}, {webhook.DefaultReadTimeout}}},
		{regexp.MustCompile("(?m)^\\| `(?:WEBHOOK_AUTO_DISABLE_AFTER|WebhookAutoDisableAfter)` \\|(.*)$"), [][]time.Duration{{webhook.DefaultAutoDisableAfter}}},
	}
	goDuration := regexp.MustCompile(`\b\d+(?:ms|s|m|h)(?:,\d+(?:ms|s|m|h))*\b`)
	for _, c := range configs {
		var rows [][]string
		for _, name := range docs.ReadingOrder {
			for _, row := range c.names.FindAllStringSubmatch(all[name], -1) {
				rows = append(rows, append(row, name))
			}
		}
		if len(rows) == 0 {
			t.Errorf("the documentation has no configuration row %s", c.names)
		}
		for _, row := range rows {
			at := row[len(row)-1]
			tokens := goDuration.FindAllString(row[1], len(c.want))
			if len(tokens) < len(c.want) {
				t.Errorf("%s: %q states no default", at, row[0])
				continue
			}
			for i, tok := range tokens {
				ds, err := goDurations(tok)
				if err != nil {
					t.Errorf("%s: %q: %v", at, row[0], err)
				} else if !same(ds, c.want[i]) {
					t.Errorf("%s: %q says %s; the code says %v", at, row[0], tok, c.want[i])
				}
			}
		}
	}
}

// TestDocumentEndpointLimitsAreTheCodes: the schemas of an endpoint's flow
// limits carry the bounds the API validates.
func TestDocumentEndpointLimitsAreTheCodes(t *testing.T) {
	var d struct {
		Components struct {
			Schemas map[string]struct {
				Minimum, Maximum any
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(sdk.OpenAPI, &d); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][2]any{"RateLimit": {1, webhook.MaxRateLimit}, "MaxConcurrency": {1, webhook.MaxMaxConcurrency}} {
		s := d.Components.Schemas[name]
		if !same(s.Minimum, want[0]) || !same(s.Maximum, want[1]) {
			t.Errorf("schema %s: [%v, %v]; the code says [%v, %v]", name, s.Minimum, s.Maximum, want[0], want[1])
		}
	}
}
