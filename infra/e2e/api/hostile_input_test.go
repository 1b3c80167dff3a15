package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
)

// The hostile input the fuzzer starts from: what an attacker or a careless
// client sends. Every route of template.yaml gets each of them.
var (
	hostilePathValues = []string{
		"", "x", "%00", "../../etc/passwd", "' OR 1=1 --", "<script>alert(1)</script>",
		strings.Repeat("a", 2043), strings.Repeat("я", 1500), "insp_" + strings.Repeat("a", 2043), "insp_" + strings.Repeat("a", 32),
		"ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C", "ct_01jdq7x3zv8n5w2k4r6t9y1b3c", "dlv_UUUUUUUUUUUUUUUUUUUUUUUUUU", "we_8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
		"evt_01JDQ7X3ZV8N5W2K4R6T9Y1B3C", "00000000000000000000000000", "\u202eevil", "a b", "%ff%fe",
	}
	hostileQueries = []string{
		"cursor_limit=0", "cursor_limit=201", "cursor_limit=-1", "cursor_limit=abc", "cursor_limit=99999999999999999999",
		"cursor_limit=5&cursor_limit=6", "cursor=garbage", "cursor=" + strings.Repeat("A", 5000), "cursor=%ff",
		"pagination=offset&offset=999999999999", "pagination=offset&offset=-1&limit=0", "pagination=offset&cursor=x",
		"unknown=1", "status=%ff", "status=dead&status=delivered", "tag=" + strings.Repeat("a", 2000), "tag=%00",
		"created_after=not-a-time", "since=9999-99-99T99:99:99Z", "%zz", "a=%00", "type=contact.created&type=message.sent",
		"contact_id=ct_x", "endpoint_id=" + strings.Repeat("we_", 700), "until=2026-01-01T00:00:00Z&since=2027-01-01T00:00:00Z",
	}
	hostileBodies = []string{
		"", "{}", "null", "[]", "1", `"x"`, `{"phone":`, "{\"name\":\"\xff\xfe\"}", strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		`{"phone":"+79990000001","name":"Iv\u0000an"}`, `{"phone":"+79990000001","name":"Ivan","tags":["a","a"]}`, `{"price":1e999}`,
		`{"url":"http://[64:ff9b::a9fe:a9fe]/","events":["*"]}`, `{"url":"https://0x7f000001/","events":["*"]}`, `{"url":"https://localhost./","events":["*"]}`,
		`{"inspector_id":"insp_` + strings.Repeat("a", 2043) + `"}`, `{"contact_id":"ct_` + strings.Repeat("x", 3000) + `","text":"hi"}`,
		`{"contact_id":"ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C","variables":{"` + strings.Repeat("k", 300) + `":1}}`,
		`{"items":[{"sku":"` + strings.Repeat("S", 70000) + `","name":"x","price":1}]}`, `{"description":"` + strings.Repeat("d", 70000) + `"}`,
		`{"a":` + strings.Repeat(`{"a":`, 500) + `1` + strings.Repeat(`}`, 501),
	}
	hostileHeaders = []string{"valid", "no auth", "bad auth", "long auth", "bad key", "long key", "text body", "charset"}
)

// hostileRun is the runtime the fuzzer sends its input to: one per test
// process, shared by every input.
var hostileRun struct {
	once    sync.Once
	rt      *local.Runtime
	key     string
	routes  []template.Route
	samples map[string]string
	err     error
}

func hostileRuntime(t testing.TB) {
	hostileRun.once.Do(func() {
		cfg, err := local.MakeRunConfig(func(string) string { return "" })
		if err != nil {
			hostileRun.err = err
			return
		}
		// The stage's throttle stays out of the way: this test is about what
		// the functions answer.
		cfg.Parameters["ApiThrottlingRateLimit"], cfg.Parameters["ApiThrottlingBurstLimit"] = "100000", "100000"
		// A runtime outlives the first test that starts it: it serves every
		// input of the process.
		hostileRun.rt = localtest.Runtime(&processScope{TB: t}, cfg)
		_, hostileRun.key = localtest.Project(t, hostileRun.rt, "")
		tpl, err := template.LoadRepo()
		if err != nil {
			hostileRun.err = err
			return
		}
		hostileRun.routes = tpl.Routes()
		hostileRun.samples = map[string]string{}
		for _, r := range hostileRun.routes {
			var ev struct {
				Body string `json:"body"`
			}
			_ = json.Unmarshal(localtest.Sample(t, r.Function), &ev)
			hostileRun.samples[r.Function] = ev.Body
		}
	})
	if hostileRun.err != nil {
		t.Fatal(hostileRun.err)
	}
}

// processScope lets a helper that registers cleanups hold a resource for
// the whole process: its cleanups never run (the process ends), its
// failures fail the test at hand.
type processScope struct{ testing.TB }

func (processScope) Cleanup(func()) {}

var (
	pathParam      = regexp.MustCompile(`\{[^}]+\}`)
	codesOfTheAPI  = httpapi.Codes()
	hostileClient  = &http.Client{Timeout: 30 * time.Second}
	requestIDShape = regexp.MustCompile(`^req_[0-9A-HJKMNP-TV-Z]{26}$`)
)

// FuzzHostileInput sends one input to one route and checks the common
// contract: never a 5xx (a 5xx means our bug or an outage, never bad
// input), always the error envelope with a known code and a request id,
// never a hang. go test runs the seed corpus — every hostile value above on
// every route — and make bench lets the fuzzer mutate it for a while.
func FuzzHostileInput(f *testing.F) {
	tpl, err := template.LoadRepo()
	if err != nil {
		f.Fatal(err)
	}
	for i, r := range tpl.Routes() {
		idx := uint8(i)
		bodied := r.Method != http.MethodGet && r.Method != http.MethodDelete
		hasParams := strings.Contains(r.Path, "{")
		for _, v := range hostilePathValues {
			if hasParams {
				f.Add(idx, v, "", uint8(0), "")
			}
		}
		if !bodied || r.Method == "ANY" {
			for _, q := range hostileQueries {
				f.Add(idx, "", q, uint8(0), "")
			}
		}
		for h := range hostileHeaders {
			f.Add(idx, "", "", uint8(h), "")
		}
		if bodied {
			for _, b := range hostileBodies {
				f.Add(idx, "", "", uint8(0), b)
			}
		}
	}
	// The runtime (DynamoDB Local, its tables, the functions) starts here,
	// once per process, before the first input: started by the first input
	// instead, it took that input ~10 s on a loaded machine, and the
	// fuzzer, which starts a runtime in every worker process it (re)starts,
	// showed 0 execs/s for as long, or killed the worker as hung.
	hostileRuntime(f)
	f.Fuzz(func(t *testing.T, route uint8, pathValue, query string, headers uint8, body string) {
		hostileRuntime(t)
		r := hostileRun.routes[int(route)%len(hostileRun.routes)]
		method := r.Method
		if method == "ANY" || method == "" {
			method = []string{"GET", "POST", "PUT", "DELETE", "PATCH"}[int(route)%5]
		}
		path := "/"
		if r.Path != "" {
			path = pathParam.ReplaceAllStringFunc(r.Path, func(string) string { return url.PathEscape(pathValue) })
		}
		if body == "" && pathValue == "" && query == "" {
			body = hostileRun.samples[r.Function]
		}
		u := hostileRun.rt.URL + path
		if query != "" {
			u += "?" + onTheWire(query)
		}
		req, err := http.NewRequest(method, u, bytes.NewReader([]byte(body)))
		if err != nil {
			return // not a request a client can send
		}
		setHostileHeaders(req, int(headers)%len(hostileHeaders))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		resp, err := hostileClient.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatalf("%s %s: no answer: %v", method, truncate(u), err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		if problem := contractProblem(resp, got); problem != "" {
			t.Fatalf("%s %s (headers %q, body %s): %d %s: %s", method, truncate(u), hostileHeaders[int(headers)%len(hostileHeaders)], truncate(body), resp.StatusCode, truncate(string(got)), problem)
		}
	})
}

func setHostileHeaders(req *http.Request, set int) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+hostileRun.key)
	req.Header.Set("Idempotency-Key", uuid.NewString())
	switch hostileHeaders[set] {
	case "no auth":
		req.Header.Del("Authorization")
	case "bad auth":
		req.Header.Set("Authorization", "Bearer x")
	case "long auth":
		req.Header.Set("Authorization", "Bearer bx_"+strings.Repeat("k", 6000))
	case "bad key":
		req.Header.Set("Idempotency-Key", "1795939200")
	case "long key":
		req.Header.Set("Idempotency-Key", strings.Repeat("0", 3000))
	case "text body":
		req.Header.Set("Content-Type", "text/plain")
	case "charset":
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
}

// contractProblem says how an answer breaks the common HTTP contract ("" if
// it does not).
func contractProblem(resp *http.Response, body []byte) string {
	if resp.StatusCode >= 500 {
		return "a 5xx for client input"
	}
	if !requestIDShape.MatchString(resp.Header.Get("X-Request-Id")) {
		return "no X-Request-Id"
	}
	if resp.StatusCode < 400 {
		return ""
	}
	var env apitest.ErrorEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return "not the error envelope"
	}
	status, known := codesOfTheAPI[apierr.Code(env.Error.Code)]
	switch {
	case !known:
		return fmt.Sprintf("unknown error code %q", env.Error.Code)
	case status != resp.StatusCode:
		return fmt.Sprintf("code %s is %d in the table", env.Error.Code, status)
	case env.Error.Message == "" || !requestIDShape.MatchString(env.Error.RequestID):
		return "an envelope without message or request_id"
	}
	return ""
}

// onTheWire percent-encodes the bytes of a query that no HTTP client
// sends raw (spaces, controls, non-ASCII); stray '%' escapes stay, for the
// API to refuse.
func onTheWire(q string) string {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		if c := q[i]; c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + fmt.Sprintf("...(%d bytes)", len(s))
	}
	return s
}
