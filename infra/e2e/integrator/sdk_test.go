// Package integrator_test uses the Go SDK (sdk/go/botix) against the local
// runtime as an integrator would: through a network that loses answers,
// with concurrent duplicates, over long lists, on every route.
package integrator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/docs"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/sdk/go/botix"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// lossyProxy forwards requests to the API and, for those drop picks, lets
// the API answer, waits for the whole answer, then closes the client's
// connection without it: the request took effect, the client never knows.
// For those reset picks (asked first), it resets the client's connection
// (TCP RST) without forwarding: the API never sees the request. posts
// counts the POST requests that reached the proxy: the client's wire
// requests of creates.
type lossyProxy struct {
	URL     string
	target  string
	drop    func(r *http.Request, body []byte) bool
	reset   func(r *http.Request, body []byte) bool
	posts   atomic.Int64
	dropped atomic.Int64
	resets  atomic.Int64
}

func newLossyProxy(t *testing.T, target string, drop, reset func(r *http.Request, body []byte) bool) *lossyProxy {
	p := &lossyProxy{target: target, drop: drop, reset: reset}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			p.posts.Add(1)
		}
		body, _ := io.ReadAll(r.Body)
		if p.reset != nil && p.reset(r, body) {
			p.resets.Add(1)
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				if tcp, ok := conn.(*net.TCPConn); ok {
					_ = tcp.SetLinger(0) // close with RST, not FIN
				}
				_ = conn.Close()
			}
			return
		}
		out, _ := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
		out.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if p.drop(r, body) {
			p.dropped.Add(1)
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func client(t *testing.T, rt *local.Runtime, base string, opts ...botix.Option) *botix.Client {
	t.Helper()
	_, key := localtest.Project(t, rt, "")
	return botix.NewClient(key, append([]botix.Option{botix.WithBaseURL(base)}, opts...)...)
}

func count(t *testing.T, c *botix.Client) int64 {
	t.Helper()
	n, err := c.Contacts.Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n.Total
}

// TestLostAnswers is the source article's story: the answer of a create
// is lost after the contact was made; the SDK retries with the same key
// and gets the stored answer, and the contact exists once.
func TestLostAnswers(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	ctx := context.Background()

	t.Run("the first answer is lost: success, one contact, the second answer a replay", func(t *testing.T) {
		var first atomic.Bool
		proxy := newLossyProxy(t, rt.URL, func(r *http.Request, _ []byte) bool {
			return r.Method == http.MethodPost && first.CompareAndSwap(false, true)
		}, nil)
		c := client(t, rt, proxy.URL)
		got, err := c.Contacts.Create(ctx, botix.ContactCreate{Phone: "+79990002001", Name: "Ivan"})
		if err != nil {
			t.Fatal(err)
		}
		if got.Response.Attempts != 2 || !got.Response.Replayed || proxy.dropped.Load() != 1 {
			t.Fatalf("%+v, %d dropped", got.Response, proxy.dropped.Load())
		}
		if n := count(t, c); n != 1 {
			t.Fatalf("%d contacts", n)
		}
	})

	t.Run("200 creates with 30% of answers lost make exactly 200 contacts", func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(7, 11))
		var mu sync.Mutex
		proxy := newLossyProxy(t, rt.URL, func(r *http.Request, _ []byte) bool {
			mu.Lock()
			defer mu.Unlock()
			return r.Method == http.MethodPost && rnd.Float64() < 0.3
		}, nil)
		c := client(t, rt, proxy.URL, botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 12, BaseDelay: 10 * time.Millisecond, MaxDelay: 200 * time.Millisecond, QuotaCapacity: 500}))
		replays := 0
		for i := range 200 {
			got, err := c.Contacts.Create(ctx, botix.ContactCreate{Phone: fmt.Sprintf("+7999201%04d", i), Name: "bulk"})
			if err != nil {
				t.Fatalf("create %d: %v", i, err)
			}
			if got.Response.Replayed {
				replays++
			}
		}
		if n := count(t, c); n != 200 {
			t.Fatalf("%d contacts after 200 creates; %d answers were lost", n, proxy.dropped.Load())
		}
		if proxy.dropped.Load() < 30 || replays == 0 {
			t.Fatalf("the proxy lost %d answers, %d replays: the test did not test", proxy.dropped.Load(), replays)
		}
		t.Logf("200 creates, %d answers lost, %d calls answered by a replay, 200 contacts", proxy.dropped.Load(), replays)
	})
}

// TestLossyNetworkDefaultPolicy: 500 creates with distinct phones, the
// default retry policy, through a network that resets 10 % of the
// connections (the API never sees the request) and drops 30 % of the
// answers after the API acted. Most calls succeed; each call that returns an
// error returns an *OperationError whose key re-issues the operation, and
// re-issuing it (through the same network) ends in success: a replay, or
// the one create that never reached the API. At the end exactly 500
// contacts exist, one per phone, and the proxy saw no more requests than
// the SDK counted attempts (the transport re-sent nothing by itself).
func TestLossyNetworkDefaultPolicy(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	const calls, workers = 500, 32
	var mu sync.Mutex
	rnd := rand.New(rand.NewPCG(500, 30))
	chance := func(p float64) bool {
		mu.Lock()
		defer mu.Unlock()
		return rnd.Float64() < p
	}
	isCreate := func(r *http.Request) bool { return r.Method == http.MethodPost && r.URL.Path == "/public/v1/contacts" }
	phone := func(i int) string { return fmt.Sprintf("+7999500%04d", i) }
	// So that errors surely happen (at random, about 0.37⁵ of the calls
	// fail, 0 to 8 of 500), the first 5 requests — the default policy's
	// attempts — of calls 0, 100, ... lose their answer after the API acted
	// (the re-issue is a replay), and those of calls 50, 150, ... are reset
	// before the API sees them (the contact exists only after the re-issue).
	var forcedMu sync.Mutex
	forcedSeen := map[string]int{}
	forced := func(body []byte, rest int) bool {
		var in struct{ Phone string }
		_ = json.Unmarshal(body, &in)
		var i int
		if _, err := fmt.Sscanf(in.Phone, "+7999500%04d", &i); err != nil || i%100 != rest {
			return false
		}
		forcedMu.Lock()
		defer forcedMu.Unlock()
		forcedSeen[in.Phone]++
		return forcedSeen[in.Phone] <= 5
	}
	proxy := newLossyProxy(t, rt.URL,
		func(r *http.Request, body []byte) bool { return isCreate(r) && (forced(body, 0) || chance(0.3)) },
		func(r *http.Request, body []byte) bool { return isCreate(r) && (forced(body, 50) || chance(0.1)) })
	c := client(t, rt, proxy.URL) // DefaultRetryPolicy
	ctx := context.Background()

	var attempts, replays atomic.Int64
	failed := make([]*botix.OperationError, calls)
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			got, err := c.Contacts.Create(ctx, botix.ContactCreate{Phone: phone(i), Name: "lossy"})
			if err == nil {
				attempts.Add(int64(got.Response.Attempts))
				if got.Response.Replayed {
					replays.Add(1)
				}
				return
			}
			var opErr *botix.OperationError
			if !errors.As(err, &opErr) {
				t.Errorf("create %d: %v is no *botix.OperationError", i, err)
				return
			}
			attempts.Add(int64(opErr.Attempts))
			failed[i] = opErr
		}()
	}
	wg.Wait()
	errorsReturned, reissued, reissueReplays, reissueCreates := 0, 0, 0, 0
	for i, opErr := range failed {
		if opErr == nil {
			continue
		}
		errorsReturned++
		if !botix.ValidIdempotencyKey(opErr.IdempotencyKey) || !opErr.Reissuable() {
			t.Errorf("create %d failed with %v: no key to re-issue it with, or not re-issuable", i, opErr)
			continue
		}
		// Re-issue through the same lossy network until it succeeds: each
		// try is the same operation, so it may fail again but never
		// duplicates.
		for try := 1; ; try++ {
			reissued++
			got, err := c.Contacts.Create(ctx, botix.ContactCreate{Phone: phone(i), Name: "lossy"}, opErr.Reissue())
			var again *botix.OperationError
			if errors.As(err, &again) {
				attempts.Add(int64(again.Attempts))
				if again.IdempotencyKey != opErr.IdempotencyKey || try == 5 {
					t.Errorf("re-issuing create %d (try %d): %v", i, try, err)
					break
				}
				continue
			}
			if err != nil {
				t.Fatalf("re-issuing create %d: %v", i, err)
			}
			attempts.Add(int64(got.Response.Attempts))
			if got.Response.IdempotencyKey != opErr.IdempotencyKey || got.Phone != phone(i) {
				t.Errorf("re-issuing create %d: %+v", i, got)
			}
			if got.Response.Replayed {
				reissueReplays++
			} else {
				reissueCreates++
			}
			break
		}
	}

	perPhone := map[string]int{}
	for ct, err := range c.Contacts.All(ctx, botix.ContactListParams{ListParams: botix.ListParams{Limit: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		perPhone[ct.Phone]++
	}
	duplicates := 0
	for i := range calls {
		if n := perPhone[phone(i)]; n != 1 {
			duplicates += max(n-1, 0)
			t.Errorf("phone %s: %d contacts", phone(i), n)
		}
	}
	if len(perPhone) != calls {
		t.Errorf("%d distinct phones among the contacts, want %d", len(perPhone), calls)
	}
	wire := proxy.posts.Load()
	t.Logf("%d calls (default policy), %d returned an error, %d re-issues (%d replays, %d first creates), %d calls answered by a replay; "+
		"%d wire requests for %d attempts counted; the proxy reset %d connections and dropped %d answers; %d contacts, %d duplicates",
		calls, errorsReturned, reissued, reissueReplays, reissueCreates, replays.Load(), wire, attempts.Load(), proxy.resets.Load(), proxy.dropped.Load(), len(perPhone), duplicates)
	if wire > attempts.Load() {
		t.Errorf("the proxy saw %d create requests, the SDK counted %d attempts: something re-sent outside the SDK's count", wire, attempts.Load())
	}
	// The 5 forced lost answers re-issue to a replay; the 5 forced resets
	// to a first create, or to a replay when the re-issue's own first answer
	// is lost, so only their contacts (checked above) are certain.
	if errorsReturned < 10 || reissueReplays < 5 {
		t.Errorf("%d errors, %d re-issues answered by a replay: want at least the 10 forced failures, 5 of them replayed", errorsReturned, reissueReplays)
	}
	if proxy.resets.Load() < 50 || proxy.dropped.Load() < 150 || replays.Load() == 0 {
		t.Fatalf("%d resets, %d drops, %d replays: the network was not lossy enough to test anything", proxy.resets.Load(), proxy.dropped.Load(), replays.Load())
	}
}

// TestInProgress: two concurrent calls with one caller key while the first
// is still running: the second waits out IDEMPOTENCY_KEY_IN_PROGRESS and
// both return the same contact, with no error.
func TestInProgress(t *testing.T) {
	cfg, err := local.MakeRunConfig(func(k string) string {
		if k == "BOTIX_LOCAL_MUTATION_DELAY" {
			return "2s"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	rt := localtest.Runtime(t, cfg)
	c := client(t, rt, rt.URL)
	key := "7d1e5d8e-3f9a-4c55-9b1e-2f6a8c0d4e11"
	var wg sync.WaitGroup
	results := make([]*botix.Contact, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 300 * time.Millisecond)
			results[i], errs[i] = c.Contacts.Create(context.Background(), botix.ContactCreate{Phone: "+79990003001", Name: "Olga"}, botix.WithIdempotencyKey(key))
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("errors surfaced: %v, %v", errs[0], errs[1])
	}
	if results[0].ID != results[1].ID || results[0].Response.Replayed == results[1].Response.Replayed || results[1].Response.Attempts < 2 {
		t.Fatalf("%+v / %+v", results[0], results[1])
	}
	if n := count(t, c); n != 1 {
		t.Fatalf("%d contacts", n)
	}
}

// seedContacts gives project n contacts named "walk", phones prefix0000,
// prefix0001, …, created a millisecond apart and ending a minute ago. A walk
// is what the tests check, not how the contacts came to be: they are
// bulk-loaded (the same items the API writes) rather than created one POST
// at a time.
func seedContacts(t *testing.T, rt *local.Runtime, project, prefix string, n int) {
	t.Helper()
	end := time.Now().Add(-time.Minute)
	contacts := make([]domain.Contact, n)
	for i := range contacts {
		at := end.Add(-time.Duration(n-i) * time.Millisecond)
		contacts[i] = domain.Contact{ID: ids.New(ids.Contact, at), Phone: fmt.Sprintf("%s%04d", prefix, i), Name: "walk", Tags: []string{}, CreatedAt: ids.Timestamp(at)}
	}
	s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))
	if err := s.SeedContacts(context.Background(), project, contacts, 8); err != nil {
		t.Fatal(err)
	}
}

// pageCounter counts the list pages the SDK fetches.
type pageCounter struct{ pages atomic.Int64 }

func (p *pageCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && r.URL.Path == "/public/v1/contacts" {
		p.pages.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestIterators: All walks 1,000 contacts 37 at a time, each exactly once,
// newest first; breaking out stops fetching; a saved cursor resumes.
func TestIterators(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	pc := &pageCounter{}
	project, key := localtest.Project(t, rt, "")
	c := botix.NewClient(key, botix.WithBaseURL(rt.URL), botix.WithHTTPClient(&http.Client{Transport: pc}))
	ctx := context.Background()
	seedContacts(t, rt, project, "+7999300", 1000)

	seen := map[string]bool{}
	var order []string
	for ct, err := range c.Contacts.All(ctx, botix.ContactListParams{ListParams: botix.ListParams{Limit: 37}}) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[ct.ID] {
			t.Fatalf("%s yielded twice", ct.ID)
		}
		seen[ct.ID] = true
		order = append(order, ct.CreatedAt+" "+ct.ID)
	}
	if len(seen) != 1000 {
		t.Fatalf("%d contacts walked", len(seen))
	}
	if !sort.SliceIsSorted(order, func(i, j int) bool { return order[i] > order[j] }) {
		t.Fatal("the walk is not newest first")
	}
	if n := pc.pages.Load(); n != 28 { // ceil(1000/37)
		t.Fatalf("%d pages fetched for 1000 items of 37", n)
	}

	pc.pages.Store(0)
	n := 0
	for _, err := range c.Contacts.All(ctx, botix.ContactListParams{ListParams: botix.ListParams{Limit: 37}}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 100 {
			break
		}
	}
	if got := pc.pages.Load(); got != 3 {
		t.Fatalf("breaking after 100 items fetched %d pages; want 3", got)
	}

	first, err := c.Contacts.List(ctx, botix.ContactListParams{ListParams: botix.ListParams{Limit: 37}})
	if err != nil || !first.HasMore || first.NextCursor == "" {
		t.Fatalf("%v %+v", err, first)
	}
	resumed := map[string]bool{}
	for _, ct := range first.Data {
		resumed[ct.ID] = true
	}
	for ct, err := range c.Contacts.All(ctx, botix.ContactListParams{ListParams: botix.ListParams{Limit: 37, Cursor: first.NextCursor}}) {
		if err != nil {
			t.Fatal(err)
		}
		if resumed[ct.ID] {
			t.Fatalf("%s again after resuming", ct.ID)
		}
		resumed[ct.ID] = true
	}
	if len(resumed) != 1000 {
		t.Fatalf("page one and the resumed walk cover %d contacts", len(resumed))
	}

	var e *botix.Error
	if _, err := c.Contacts.List(ctx, botix.ContactListParams{ListParams: botix.ListParams{Cursor: "tampered"}}); !errors.As(err, &e) || e.Code != botix.CodeInvalidCursor {
		t.Fatalf("a bad cursor: %v", err)
	}
}

// TestReadmeSDKExamples: each Go block of the integrators' guide marked
// "<!-- sdk-example: Name -->" is, verbatim, the function Name of
// sdk/go/botix/example_test.go, which `go test` runs and checks against its
// Output comment: the guide's code runs as shown.
func TestReadmeSDKExamples(t *testing.T) {
	readme := []byte(docs.Read(t, docs.Integrators))
	const file = "../../../sdk/go/botix/example_test.go"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]string{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok {
			funcs[fn.Name.Name] = string(src[fset.Position(fn.Pos()).Offset:fset.Position(fn.End()).Offset])
		}
	}
	marker := regexp.MustCompile("(?m)^( *)<!-- sdk-example: (\\w+) -->\n *```go\n")
	found := 0
	for _, m := range marker.FindAllSubmatchIndex(readme, -1) {
		found++
		indent, name := string(readme[m[2]:m[3]]), string(readme[m[4]:m[5]])
		rest := string(readme[m[1]:])
		end := strings.Index(rest, "\n"+indent+"```")
		if end < 0 {
			t.Fatalf("the guide's block of %s does not end", name)
		}
		var lines []string
		for _, l := range strings.Split(rest[:end], "\n") {
			lines = append(lines, strings.TrimPrefix(l, indent))
		}
		want, ok := funcs[name]
		if !ok {
			t.Errorf("the guide shows %s, which example_test.go does not have", name)
			continue
		}
		if got := strings.Join(lines, "\n"); got != want {
			t.Errorf("the guide's %s is not the example's code:\n%s\n--- the example:\n%s", name, got, want)
		}
	}
	if found == 0 {
		t.Fatal("no sdk-example block in " + docs.Integrators)
	}
}
