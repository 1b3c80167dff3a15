package webhooks_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/webhook"
)

// endpointRecovery is the recovery object of GET /webhook-endpoints/{id}.
type endpointRecovery struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Queued     int    `json:"queued"`
	Skipped    int    `json:"skipped"`
	Since      string `json:"since"`
	Until      string `json:"until"`
	NextStepAt string `json:"next_step_at"`
	UpdatedAt  string `json:"updated_at"`
}

// TestOneRecoverCallRecoversEverything: one recover call over more failed
// deliveries than a step takes. The call takes the first step; the
// recovery continues by itself, step by step, and GET of the endpoint
// shows its progress until it completes with every delivery re-sent once.
func TestOneRecoverCallRecoversEverything(t *testing.T) {
	rt, c, s, project := webhookRuntime(t, func(cfg *local.Config) {
		// A step of 100 is followed a second later instead of ten.
		cfg.Parameters["WebhookRecoveryPace"] = "100"
		// No crash is injected: the deliver function gets headroom. A run
		// beside other packages once left the 120 recovered deliveries not
		// through in 3 min under the suite's 4 s deadline and 3 s
		// visibility, which a busy machine's batches can outlive (as the
		// browser suite's did); should it recur, the log says where they stood.
		cfg.Timeouts["DeliverFunction"] = 25 * time.Second
		cfg.VisibilityTimeout["DeliveryQueue"] = 30 * time.Second
		cfg.VisibilityTimeout["BulkDeliveryQueue"] = 30 * time.Second
	})
	start := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	rc := apitest.NewReceiver(t, status(401))
	ep := c.Endpoint(rc.URL, "contact.created")
	const failed = webhook.MaxRecoveryBatch + 20
	for i := range failed {
		c.Contact(fmt.Sprintf("+7999003%04d", i))
	}
	apitest.Eventually(t, 3*time.Minute, fmt.Sprintf("%d dead deliveries", failed), func() bool { return len(deadOf(t, s, project, ep.ID)) == failed })
	before := len(rc.Requests())
	rc.SetRespond(status(200))

	r := c.Post("/public/v1/webhook-endpoints/"+ep.ID+"/recover", uuid.NewString(), `{"since":"`+start+`"}`)
	var call struct {
		recoveryReply
		NextStepAt string `json:"next_step_at"`
	}
	r.JSON(t, &call)
	if r.Status != http.StatusAccepted || call.Queued != webhook.MaxRecoveryBatch || !call.HasMore || call.Status != "running" || call.NextStepAt == "" {
		t.Fatalf("the recover call: %d %s", r.Status, r.Body)
	}
	var rec *endpointRecovery
	var progress []int // the queued counts GET showed, in order
	apitest.Eventually(t, 2*time.Minute, "the recovery completed", func() bool {
		var got struct {
			Recovery *endpointRecovery `json:"recovery"`
		}
		c.Read("/public/v1/webhook-endpoints/"+ep.ID, &got)
		if rec = got.Recovery; rec == nil {
			t.Fatal("GET of the endpoint shows no recovery")
		}
		if len(progress) == 0 || progress[len(progress)-1] != rec.Queued {
			progress = append(progress, rec.Queued)
		}
		return rec.Status == "completed"
	})
	t.Logf("GET showed the recovery's queued count at %v", progress)
	if !slices.IsSorted(progress) || progress[0] < webhook.MaxRecoveryBatch {
		t.Fatalf("the progress GET showed went %v", progress)
	}
	if rec.ID != call.RecoveryID || rec.Queued != failed || rec.NextStepAt != "" || rec.Since == "" || rec.UpdatedAt == "" {
		t.Fatalf("the completed recovery %+v (the call answered %s)", rec, r.Body)
	}
	defer func() {
		if t.Failed() { // what the wait ended on, for whoever reads a CI log
			byState := map[string]int{}
			for _, d := range deliveriesOf(t, s, project, ep.ID) {
				byState[fmt.Sprintf("%s round %d", d.Status, d.Round)]++
			}
			t.Logf("deliveries %v; the receiver got %d POSTs since the call; %d deliver invocations ran to their deadline",
				byState, len(rc.Requests())-before, rt.Overruns("DeliverFunction"))
		}
	}()
	apitest.Eventually(t, 3*time.Minute, "every delivery delivered", func() bool {
		for _, d := range deliveriesOf(t, s, project, ep.ID) {
			if d.Status != webhook.StatusDelivered {
				return false
			}
		}
		return len(rc.Requests())-before >= failed
	})
	perDelivery := map[string]int{}
	for _, req := range rc.Requests()[before:] {
		perDelivery[req.Header.Get("Webhook-Id")]++
	}
	if n := len(rc.Requests()) - before; n != failed || len(perDelivery) != failed {
		t.Fatalf("the receiver got %d POSTs for %d deliveries after one recover call, want each of the %d once", n, len(perDelivery), failed)
	}
	for _, d := range deliveriesOf(t, s, project, ep.ID) {
		if d.Round != 2 {
			t.Fatalf("after the recovery %+v, want round 2", d)
		}
	}
}
