package webhooks_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

type statsReply struct {
	Granularity string  `json:"granularity"`
	EndpointID  *string `json:"endpoint_id"`
	Since       string  `json:"since"`
	Until       string  `json:"until"`
	Buckets     []struct {
		Start string `json:"start"`
		replyCounts
	} `json:"buckets"`
	Totals replyCounts `json:"totals"`
}

// replyCounts is a bucket's counts as the API writes them: the outcomes,
// and the response times as their count and percentiles.
type replyCounts struct {
	Delivered  int64 `json:"delivered"`
	Retrying   int64 `json:"retrying"`
	Dead       int64 `json:"dead"`
	Deliveries int64 `json:"deliveries"`
	Latency    struct {
		Answered int64  `json:"answered"`
		P50      *int64 `json:"p50_ms"`
		P95      *int64 `json:"p95_ms"`
	} `json:"latency"`
}

// outcomes are c's counts without the response times.
func (c replyCounts) outcomes() webhook.Counts {
	return webhook.Counts{Delivered: c.Delivered, Retrying: c.Retrying, Dead: c.Dead, Deliveries: c.Deliveries}
}

func stats(c localtest.Client, query string) statsReply {
	c.T.Helper()
	var s statsReply
	c.Read("/public/v1/webhook-deliveries/stats?"+query, &s)
	return s
}

// TestStatsAndRecovery: attempts show in the hourly counters as they
// happen (two deliveries, counted once each); a recovery since a time re-sends every dead delivery of its
// endpoint once the receiver is fixed, and never a delivered one.
func TestStatsAndRecovery(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	_, c, s, project := webhookRuntime(t, nil)
	start := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	rc := apitest.NewReceiver(t, status(401))
	ep := c.Endpoint(rc.URL, "contact.created")
	for _, phone := range []string{"+79990007001", "+79990007002"} {
		c.Contact(phone)
	}
	apitest.Eventually(t, 30*time.Second, "two dead deliveries", func() bool {
		return len(deadOf(t, s, project, ep.ID)) == 2
	})

	t.Run("stats count each attempt by the status it left", func(t *testing.T) {
		for _, q := range []string{"", "granularity=day", "endpoint_id=" + ep.ID} {
			st := stats(c, q)
			if st.Totals.outcomes() != (webhook.Counts{Dead: 2, Deliveries: 2}) || st.Totals.Latency.Answered != 2 || st.Totals.Latency.P95 == nil {
				t.Fatalf("%q: totals %+v", q, st.Totals)
			}
			want := 25
			if q == "granularity=day" {
				want = 15
			}
			if len(st.Buckets) != want || st.Buckets[len(st.Buckets)-1].Dead != 2 {
				t.Fatalf("%q: %d buckets, last %+v", q, len(st.Buckets), st.Buckets[len(st.Buckets)-1])
			}
		}
		for q, want := range map[string]struct {
			status int
			code   string
		}{
			"granularity=week":                   {400, "INVALID_PARAMETER"},
			"since=yesterday":                    {400, "INVALID_PARAMETER"},
			"limit=5":                            {400, "INVALID_PARAMETER"},
			"until=2000-01-01T00:00:00Z":         {400, "INVALID_PARAMETER"},
			"endpoint_id=we_nope":                {400, "INVALID_PARAMETER"},
			"endpoint_id=" + uuidEndpoint(ep.ID): {404, "NOT_FOUND"},
		} {
			if r := c.Get("/public/v1/webhook-deliveries/stats?" + q); r.Status != want.status || r.ErrorCode() != want.code {
				t.Errorf("%q: %d %s", q, r.Status, r.Body)
			}
		}
	})

	t.Run("a recovery re-sends the dead deliveries once the receiver is fixed", func(t *testing.T) {
		rc.SetRespond(status(200))
		key, body := uuid.NewString(), `{"since":"`+start+`"}`
		r := c.Post("/public/v1/webhook-endpoints/"+ep.ID+"/recover", key, body)
		var rec struct {
			RecoveryID string `json:"recovery_id"`
			Deliveries int    `json:"deliveries"`
		}
		r.JSON(t, &rec)
		if r.Status != http.StatusAccepted || rec.Deliveries != 2 || len(rec.RecoveryID) < 5 || rec.RecoveryID[:4] != "rcv_" {
			t.Fatalf("recover: %d %s", r.Status, r.Body)
		}
		if again := c.Post("/public/v1/webhook-endpoints/"+ep.ID+"/recover", key, body); again.Status != 202 || string(again.Body) != string(r.Body) {
			t.Fatalf("replay: %d %s", again.Status, again.Body)
		}
		apitest.Eventually(t, 30*time.Second, "both delivered", func() bool {
			// The receiver sees a request before its attempt is recorded.
			for _, d := range deliveriesOf(t, s, project, ep.ID) {
				if d.Status != webhook.StatusDelivered {
					return false
				}
			}
			return len(rc.Requests()) == 4
		})
		for _, d := range deliveriesOf(t, s, project, ep.ID) {
			if d.Status != webhook.StatusDelivered || d.Round != 2 {
				t.Fatalf("after the recovery %+v", d)
			}
		}
		var got struct {
			Health   struct{ State string }
			Recovery struct {
				ID                                 string
				Status                             string
				Queued, Delivered, Failed, Skipped int
			}
		}
		c.Read("/public/v1/webhook-endpoints/"+ep.ID, &got)
		if got.Recovery.ID != rec.RecoveryID || got.Recovery.Queued != 2 || got.Recovery.Delivered != 2 || got.Recovery.Failed != 0 || got.Health.State != "healthy" {
			t.Fatalf("the endpoint after its recovery: %+v", got)
		}
		r = c.Post("/public/v1/webhook-endpoints/"+ep.ID+"/recover", uuid.NewString(), body)
		r.JSON(t, &rec)
		if r.Status != 202 || rec.Deliveries != 0 {
			t.Fatalf("a second recovery: %d %s", r.Status, r.Body)
		}
		time.Sleep(2 * time.Second) // the stream would have carried it by now
		if n := len(rc.Requests()); n != 4 {
			t.Fatalf("the receiver got %d requests; a delivered delivery must never be sent again", n)
		}
		if st := stats(c, "endpoint_id="+ep.ID); st.Totals.outcomes() != (webhook.Counts{Delivered: 2, Dead: 2, Deliveries: 2}) || st.Totals.Latency.Answered != 4 {
			t.Fatalf("stats after the recovery %+v", st.Totals)
		}
	})

	t.Run("bad recoveries are refused and send nothing", func(t *testing.T) {
		off := c.Endpoint(rc.URL, "contact.created")
		if r := c.In(t).Patch("/public/v1/webhook-endpoints/"+off.ID, `{"enabled":false}`); r.Status != 200 {
			t.Fatalf("disable: %d %s", r.Status, r.Body)
		}
		future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		for name, c2 := range map[string]struct {
			endpoint, body string
			status         int
			code           string
		}{
			"no since":            {ep.ID, `{}`, 422, "VALIDATION_FAILED"},
			"since not a time":    {ep.ID, `{"since":"yesterday"}`, 422, "VALIDATION_FAILED"},
			"since in the future": {ep.ID, `{"since":"` + future + `"}`, 422, "VALIDATION_FAILED"},
			"an unknown field":    {ep.ID, `{"since":"` + start + `","until":"` + start + `"}`, 422, "VALIDATION_FAILED"},
			"a disabled endpoint": {off.ID, `{"since":"` + start + `"}`, 409, "ENDPOINT_DISABLED"},
			"an unknown endpoint": {uuidEndpoint(ep.ID), `{"since":"` + start + `"}`, 404, "NOT_FOUND"},
		} {
			if r := c.Post("/public/v1/webhook-endpoints/"+c2.endpoint+"/recover", uuid.NewString(), c2.body); r.Status != c2.status || r.ErrorCode() != c2.code {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
	})
}

// uuidEndpoint is a well-formed endpoint id that does not exist.
func uuidEndpoint(like string) string { return like[:len(like)-4] + "ZZZZ" }

func deadOf(t *testing.T, s *store.Store, project, endpointID string) []webhook.Delivery {
	t.Helper()
	var out []webhook.Delivery
	for _, d := range deliveriesOf(t, s, project, endpointID) {
		if d.Status == webhook.StatusDead {
			out = append(out, d)
		}
	}
	return out
}
