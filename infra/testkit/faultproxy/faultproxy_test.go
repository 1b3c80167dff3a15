package faultproxy

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRules: each action does what it says, and the counters pick the
// requests they name. The backend counts what reached it.
func TestRules(t *testing.T) {
	var reached atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer backend.Close()
	client := &http.Client{Timeout: 300 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
	post := func(url, key string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
		req.Header.Set("Idempotency-Key", key)
		return client.Do(req)
	}
	cases := []struct {
		name    string
		rule    Rule
		keys    []string
		query   string
		want    []string // per request: a status, "conn" (no answer) or "timeout"
		reached int64
	}{
		{"reset: no answer, the API never sees it", Rule{Action: ActionReset}, []string{"a"}, "", []string{"conn"}, 0},
		{"drop after response: the API acts, no answer", Rule{Action: ActionDropAfterResponse}, []string{"a"}, "", []string{"conn"}, 1},
		{"delay: the API acts, the answer comes too late", Rule{Action: ActionDelay, DelayMS: 1000}, []string{"a"}, "", []string{"timeout"}, 1},
		{"status: answered by the proxy", Rule{Action: ActionStatus, Status: 503, RetryAfterS: 2}, []string{"a"}, "", []string{"503"}, 0},
		{"first per key: the first copy of each key only", Rule{Action: ActionStatus, Status: 409, Code: "IDEMPOTENCY_KEY_IN_PROGRESS", FirstPerKey: 1}, []string{"a", "a", "b", "b"}, "", []string{"409", "200", "409", "200"}, 2},
		{"every 2: the 1st, 3rd, ...", Rule{Action: ActionStatus, Status: 503, Every: 2}, []string{"a", "b", "c"}, "", []string{"503", "200", "503"}, 1},
		{"query: only requests with it", Rule{Action: ActionStatus, Status: 503, Query: "limit=7"}, []string{"a"}, "?limit=8", []string{"200"}, 1},
		{"method: only that method", Rule{Action: ActionStatus, Status: 503, Method: http.MethodGet}, []string{"a"}, "", []string{"200"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reached.Store(0)
			p, err := Start(backend.URL, []Rule{tc.rule}, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			for i, key := range tc.keys {
				resp, err := post(p.URL+"/x"+tc.query, key)
				got := ""
				switch {
				case err != nil && strings.Contains(err.Error(), "Timeout"):
					got = "timeout"
				case err != nil:
					got = "conn"
				default:
					got = resp.Status[:3]
					if resp.StatusCode == 503 && tc.rule.RetryAfterS > 0 && resp.Header.Get("Retry-After") != "2" {
						t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
					}
					if resp.StatusCode >= 500 {
						var env struct {
							Error struct {
								Code      string
								RequestID string `json:"request_id"`
							}
						}
						_ = json.NewDecoder(resp.Body).Decode(&env)
						if env.Error.Code != "SERVICE_UNAVAILABLE" || !strings.HasPrefix(env.Error.RequestID, "req_") {
							t.Errorf("envelope %+v", env)
						}
					}
					resp.Body.Close()
				}
				if got != tc.want[i] {
					t.Errorf("request %d: %s, want %s", i, got, tc.want[i])
				}
			}
			time.Sleep(50 * time.Millisecond) // a delayed forward finishes
			if n := reached.Load(); n != tc.reached {
				t.Errorf("the API saw %d requests, want %d", n, tc.reached)
			}
			if n := len(p.Log()); n != len(tc.keys) {
				t.Errorf("log has %d entries", n)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, r := range []Rule{{Action: "explode"}, {Action: ActionDelay}, {Action: ActionStatus, Status: 200}, {Action: ActionReset, Probability: 1.5}} {
		if r.Validate() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}
