// Command conformance is the Go SDK's runner of the shared SDK conformance
// list (sdk/conformance): conformance <scenario-id>, the scenario's params
// as the first line of standard input, the report as the last line of
// standard output. It drives the SDK as an integrator would and reports
// what it saw; the harness (infra/e2e/conformance) judges.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/botix/public-api/sdk/go/botix"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance <scenario-id> (params as the first line of stdin)")
		os.Exit(2)
	}
	in := bufio.NewReader(os.Stdin)
	line, err := in.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		fail(err)
	}
	run, ok := scenarios[os.Args[1]]
	if !ok {
		fail(fmt.Errorf("unknown scenario %q", os.Args[1]))
	}
	report, err := run(context.Background(), line, in)
	if err != nil {
		fail(err)
	}
	out, err := json.Marshal(report)
	if err != nil {
		fail(err)
	}
	fmt.Println(string(out))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "conformance:", err)
	os.Exit(1)
}

type scenario func(ctx context.Context, params []byte, stdin *bufio.Reader) (any, error)

var scenarios = map[string]scenario{
	"routes":             routes,
	"codes":              codes,
	"schemas":            schemas,
	"list-params":        listParams,
	"lossy-creates":      lossyCreates,
	"in-progress":        createOne,
	"retry-after":        createOne,
	"retry-after-capped": createOne,
	"reuse-conflict":     reuseConflict,
	"validation":         validation,
	"bad-key":            badKey,
	"retry-quota":        retryQuota,
	"iterate-resume":     iterateResume,
	"webhook-receive":    webhookReceive,
}

// params is the union of the scenarios' parameters.
type params struct {
	Count            int    `json:"count"`
	Tag              string `json:"tag"`
	PhonePrefix      string `json:"phone_prefix"`
	AttemptTimeoutMS int    `json:"attempt_timeout_ms"`
	MaxAttempts      int    `json:"max_attempts"`
	BaseDelayMS      int    `json:"base_delay_ms"`
	MaxDelayMS       int    `json:"max_delay_ms"`
	MaxReissues      int    `json:"max_reissues"`
	Concurrency      int    `json:"concurrency"`
	Phone            string `json:"phone"`
	PhoneA           string `json:"phone_a"`
	PhoneB           string `json:"phone_b"`
	IdempotencyKey   string `json:"idempotency_key"`
	InvalidKey       string `json:"invalid_key"`
	APIKey           string `json:"api_key"`
	MaxRetryAfterMS  int    `json:"max_retry_after_ms"`
	QuotaCapacity    int    `json:"quota_capacity"`
	OutageCalls      int    `json:"outage_calls"`
	OutageLimit      int    `json:"outage_limit"`
	RefillCalls      int    `json:"refill_calls"`
	RefillLimit      int    `json:"refill_limit"`
	AfterCalls       int    `json:"after_calls"`
	AfterLimit       int    `json:"after_limit"`
	Limit            int    `json:"limit"`
	StopAfter        int    `json:"stop_after"`
	Receivers        []struct {
		Name        string   `json:"name"`
		Secrets     []string `json:"secrets"`
		AllowLegacy bool     `json:"allow_legacy"`
	} `json:"receivers"`
	FailOnce   []string       `json:"fail_once"`
	Slow       map[string]int `json:"slow"`
	ToleranceS int            `json:"tolerance_s"`
}

func parse(b []byte) (params, error) {
	var p params
	err := json.Unmarshal(b, &p)
	return p, err
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// client is the integrator's client: the key and base URL from the
// environment (the SDK reads BOTIX_API_URL itself), the policy the scenario
// asks for.
func client(p params, opts ...botix.Option) *botix.Client {
	policy := botix.RetryPolicy{MaxAttempts: p.MaxAttempts, BaseDelay: ms(p.BaseDelayMS), MaxDelay: ms(p.MaxDelayMS), MaxRetryAfter: ms(p.MaxRetryAfterMS), QuotaCapacity: p.QuotaCapacity}
	opts = append([]botix.Option{botix.WithRetryPolicy(policy)}, opts...)
	if p.AttemptTimeoutMS > 0 {
		opts = append(opts, botix.WithAttemptTimeout(ms(p.AttemptTimeoutMS)))
	}
	key := os.Getenv("BOTIX_API_KEY")
	if p.APIKey != "" {
		key = p.APIKey
	}
	return botix.NewClient(key, opts...)
}

type result struct {
	ID             string `json:"id"`
	Replayed       bool   `json:"replayed"`
	Attempts       int    `json:"attempts"`
	IdempotencyKey string `json:"idempotency_key"`
	RequestID      string `json:"request_id"`
}

func resultOf(id string, r botix.Response) *result {
	return &result{ID: id, Replayed: r.Replayed, Attempts: r.Attempts, IdempotencyKey: r.IdempotencyKey, RequestID: r.RequestID}
}

type errorReport struct {
	Type           string            `json:"type"`
	Kind           string            `json:"kind"`
	Status         int               `json:"status"`
	Code           string            `json:"code"`
	Message        string            `json:"message"`
	Field          string            `json:"field"`
	Details        map[string]string `json:"details"`
	RequestID      string            `json:"request_id"`
	RetryAfterS    float64           `json:"retry_after_s"`
	IdempotencyKey string            `json:"idempotency_key"`
	Attempts       int               `json:"attempts"`
	Reissuable     bool              `json:"reissuable"`
}

func errorOf(err error) *errorReport {
	if err == nil {
		return nil
	}
	r := &errorReport{Type: fmt.Sprintf("%T", err), Message: err.Error(), Kind: "transport"}
	var op *botix.OperationError
	if errors.As(err, &op) {
		r.IdempotencyKey, r.Attempts, r.Reissuable = op.IdempotencyKey, op.Attempts, op.Reissuable()
	}
	var api *botix.Error
	if errors.As(err, &api) {
		r.Kind, r.Status, r.Code, r.Field, r.Details, r.RequestID = "api", api.StatusCode, string(api.Code), api.Field, api.Details, api.RequestID
		r.RetryAfterS = api.RetryAfter.Seconds()
	}
	switch {
	case errors.Is(err, botix.ErrInvalidIdempotencyKey):
		r.Kind = "invalid_key"
	case errors.Is(err, botix.ErrRetryQuotaExhausted):
		r.Kind = "quota"
	case errors.Is(err, botix.ErrGaveUp):
		r.Kind = "gave_up"
	case errors.Is(err, context.DeadlineExceeded):
		r.Kind = "deadline"
	case errors.Is(err, botix.ErrAttemptTimeout):
		r.Kind = "timeout"
	}
	return r
}

func createOne(ctx context.Context, b []byte, _ *bufio.Reader) (any, error) {
	p, err := parse(b)
	if err != nil {
		return nil, err
	}
	ct, err := client(p).Contacts.Create(ctx, botix.ContactCreate{Phone: p.Phone, Name: "conformance"})
	if err != nil {
		return map[string]any{"result": nil, "error": errorOf(err)}, nil
	}
	return map[string]any{"result": resultOf(ct.ID, ct.Response)}, nil
}

func lossyCreates(ctx context.Context, b []byte, _ *bufio.Reader) (any, error) {
	p, err := parse(b)
	if err != nil {
		return nil, err
	}
	c := client(p)
	var (
		mu        sync.Mutex
		errs      = []*errorReport{}
		ids       = []string{}
		completed int
		reissues  int
		replayed  int
	)
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, p.Concurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				in := botix.ContactCreate{Phone: fmt.Sprintf("%s%08d", p.PhonePrefix, i), Name: fmt.Sprintf("c%d", i), Tags: []string{p.Tag}}
				ct, err := c.Contacts.Create(ctx, in)
				for n := 0; err != nil && n < p.MaxReissues; n++ {
					var op *botix.OperationError
					mu.Lock()
					errs = append(errs, errorOf(err))
					mu.Unlock()
					if !errors.As(err, &op) || !op.Reissuable() {
						break
					}
					mu.Lock()
					reissues++
					mu.Unlock()
					ct, err = c.Contacts.Create(ctx, in, op.Reissue())
				}
				mu.Lock()
				if err == nil {
					completed++
					ids = append(ids, ct.ID)
					if ct.Response.Replayed {
						replayed++
					}
				} else {
					errs = append(errs, errorOf(err))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range p.Count {
		work <- i
	}
	close(work)
	wg.Wait()
	return map[string]any{"calls": p.Count, "completed": completed, "reissues": reissues, "replayed": replayed, "contact_ids": ids, "errors": errs}, nil
}

func reuseConflict(ctx context.Context, b []byte, _ *bufio.Reader) (any, error) {
	p, err := parse(b)
	if err != nil {
		return nil, err
	}
	c := client(p)
	key := botix.WithIdempotencyKey(p.IdempotencyKey)
	out := map[string]any{}
	if ct, err := c.Contacts.Create(ctx, botix.ContactCreate{Phone: p.PhoneA, Name: "a"}, key); err == nil {
		out["first"] = resultOf(ct.ID, ct.Response)
	} else {
		out["first_error"] = errorOf(err)
	}
	if ct, err := c.Contacts.Create(ctx, botix.ContactCreate{Phone: p.PhoneA, Name: "a"}, key); err == nil {
		out["replay"] = resultOf(ct.ID, ct.Response)
	} else {
		out["replay_error"] = errorOf(err)
	}
	_, err = c.Contacts.Create(ctx, botix.ContactCreate{Phone: p.PhoneB, Name: "a"}, key)
	out["conflict"] = errorOf(err)
	_, err = c.Contacts.Create(ctx, botix.ContactCreate{Phone: p.PhoneB, Name: "b"}, botix.WithIdempotencyKey(p.InvalidKey))
	out["invalid_key"] = errorOf(err)
	return out, nil
}

func validation(ctx context.Context, b []byte, _ *bufio.Reader) (any, error) {
	p, err := parse(b)
	if err != nil {
		return nil, err
	}
	_, err = client(p).Contacts.Create(ctx, botix.ContactCreate{Phone: p.Phone, Name: "v"})
	return map[string]any{"error": errorOf(err)}, nil
}

func badKey(ctx context.Context, b []byte, _ *bufio.Reader) (any, error) {
	p, err := parse(b)
	if err != nil {
		return nil, err
	}
	_, err = client(p).Contacts.List(ctx, botix.ContactListParams{})
	return map[string]any{"error": errorOf(err)}, nil
}

type outcome struct {
	OK       bool         `json:"ok"`
	Attempts int          `json:"attempts"`
	Error    *errorReport `json:"error"`
}

func retryQuota(ctx context.Context, b []byte, _ *bufio.Reader) (any, error) {
	p, err := parse(b)
	if err != nil {
		return nil, err
	}
	c := client(p)
	phase := func(calls, limit int) []outcome {
		out := make([]outcome, 0, calls)
		for range calls {
			page, err := c.Contacts.List(ctx, botix.ContactListParams{ListParams: botix.ListParams{Limit: limit}})
			o := outcome{OK: err == nil, Attempts: page.Response.Attempts, Error: errorOf(err)}
			if err != nil {
				o.Attempts = o.Error.Attempts
			}
			out = append(out, o)
		}
		return out
	}
	return map[string]any{
		"outage": phase(p.OutageCalls, p.OutageLimit),
		"refill": phase(p.RefillCalls, p.RefillLimit),
		"after":  phase(p.AfterCalls, p.AfterLimit),
	}, nil
}

func iterateResume(ctx context.Context, b []byte, _ *bufio.Reader) (any, error) {
	p, err := parse(b)
	if err != nil {
		return nil, err
	}
	list := botix.ContactListParams{ListParams: botix.ListParams{Limit: p.Limit}}
	ids := []string{}
	w := client(p).Contacts.Walk(list, botix.Position{})
	for ct, err := range w.All(ctx) {
		if err != nil {
			return nil, err
		}
		ids = append(ids, ct.ID)
		if len(ids) == p.StopAfter {
			break
		}
	}
	saved := w.Position().String()
	from, err := botix.ParsePosition(saved)
	if err != nil {
		return nil, err
	}
	for ct, err := range client(p).Contacts.Walk(list, from).All(ctx) {
		if err != nil {
			return nil, err
		}
		ids = append(ids, ct.ID)
	}
	return map[string]any{"ids": ids, "position": saved}, nil
}
