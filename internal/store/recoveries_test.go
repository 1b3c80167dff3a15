package store_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/webhooktest"
)

// racingCalls is how many recover calls race.
const racingCalls = 8

// readTogether holds each of the first reads of the endpoint's recovery
// until all of them are made (first counts them down); later reads, those
// of the calls that lost the race, pass.
type readTogether struct {
	webhook.Recoveries
	first sync.WaitGroup
	mu    sync.Mutex
	reads int
}

func (r *readTogether) Current(ctx context.Context, project, endpointID string) (*webhook.Recovery, error) {
	cur, err := r.Recoveries.Current(ctx, project, endpointID)
	r.mu.Lock()
	r.reads++
	held := r.reads
	r.mu.Unlock()
	if held <= racingCalls {
		r.first.Done()
		r.first.Wait()
	}
	return cur, err
}

// TestConcurrentRecoverCallsStartOneRecovery: recover calls of one
// endpoint from several Lambda instances at once (each its own Recoverer)
// start one recovery, decided by the recovery item's conditional write in
// DynamoDB Local: every call answers the same recovery, and the failed
// deliveries are queued by one step, once. Every call reads the endpoint's
// recovery before any saves (readTogether), so that each one races: on a
// busy machine a call that started late would otherwise read the first
// one's completed recovery and start another, as a later press does.
func TestConcurrentRecoverCallsStartOneRecovery(t *testing.T) {
	s := dynamotest.Store(t)
	ctx := context.Background()
	now := time.Now().UTC()
	project, endpoint := ids.New(ids.Project, now), ids.New(ids.WebhookEndpoint, now)
	const dead = 20
	for i := range dead {
		d := webhooktest.DeliveryTo(project, endpoint, now.Add(-time.Hour+time.Duration(i)*time.Millisecond))
		d.Status = webhook.StatusDead
		if _, err := s.Deliveries().Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]webhook.RecoveryCall, racingCalls)
	errs := make([]error, racingCalls)
	var start, wg sync.WaitGroup
	start.Add(1)
	together := &readTogether{Recoveries: s.Recoveries()}
	together.first.Add(racingCalls)
	for i := range racingCalls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := webhook.Recoverer{Deliveries: s.Deliveries(), Recoveries: together, NewID: func(t time.Time) string { return ids.New(ids.Recovery, t) }}
			start.Wait()
			got[i], errs[i] = rc.Recover(ctx, project, webhook.Endpoint{ID: endpoint, Enabled: true}, now.Add(-2*time.Hour), now)
		}()
	}
	start.Done()
	wg.Wait()
	queued := 0
	for i, c := range got {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if c.ID != got[0].ID || c.Recovery.Queued != dead || c.HasMore() {
			t.Fatalf("call %d answered %+v; call 0 %+v", i, c, got[0])
		}
		queued += c.Queued
	}
	if queued != dead {
		t.Fatalf("the calls queued %d deliveries in all, want %d", queued, dead)
	}
	steps := recoverySteps(t, s, project)
	if len(steps) != 1 {
		t.Fatalf("%d recovery steps written, want 1", len(steps))
	}
	out, ok, err := store.DecodeOutgoing(steps[0])
	if err != nil || !ok || out.Request.ID != got[0].ID || len(out.Request.Messages) != dead {
		t.Fatalf("the step %+v %v %v", out.Request, ok, err)
	}
	seen := map[string]bool{}
	for _, m := range out.Request.Messages {
		if seen[m.DeliveryID] || m.RedriveOfRound != 1 || m.RecoveryID != got[0].ID {
			t.Fatalf("redrive %+v", m)
		}
		seen[m.DeliveryID] = true
	}
	cur, err := s.Recoveries().Current(ctx, project, endpoint)
	if err != nil || cur == nil || cur.ID != got[0].ID || cur.Status != webhook.RecoveryCompleted || cur.Version != 1 {
		t.Fatalf("the stored recovery %+v %v", cur, err)
	}
}

// recoverySteps reads a project's delivery requests straight from the
// data table.
func recoverySteps(t *testing.T, s *store.Store, project string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := s.DB.Query(context.Background(), &dynamodb.QueryInput{
		TableName: aws.String(s.Tables.Data), KeyConditionExpression: aws.String("pk = :pk"), ConsistentRead: aws.Bool(true),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "P#" + project + "#DREQ"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Items
}

// TestRecoveryContinuationsInDynamoDB: the continuation is stored with its
// step and read back from the stream's image; continuations of one step
// handled by several instances at once take that step once (the recovery
// item's version condition); a running step that queued nothing still
// writes its continuation, and a completing one none.
func TestRecoveryContinuationsInDynamoDB(t *testing.T) {
	s := dynamotest.Store(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	project := ids.New(ids.Project, now)
	ep := webhook.Endpoint{ID: ids.New(ids.WebhookEndpoint, now), Enabled: true}
	endpoints := &webhooktest.Endpoints{}
	endpoints.Put(project, ep)
	const dead = 2*webhook.MaxRecoveryBatch + 10
	for i := range dead {
		d := webhooktest.DeliveryTo(project, ep.ID, now.Add(-time.Hour+time.Duration(i)*time.Millisecond))
		d.Status = webhook.StatusDead
		if _, err := s.Deliveries().Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	recoverer := func() *webhook.Recoverer {
		return &webhook.Recoverer{Deliveries: s.Deliveries(), Recoveries: s.Recoveries(), NewID: func(t time.Time) string { return ids.New(ids.Recovery, t) }}
	}
	call, err := recoverer().Recover(ctx, project, ep, now.Add(-2*time.Hour), now)
	if err != nil || call.Queued != webhook.MaxRecoveryBatch || !call.HasMore() {
		t.Fatalf("the call %+v %v", call, err)
	}
	step := func(n int) webhook.DeliveryRequest {
		t.Helper()
		steps := recoverySteps(t, s, project)
		if len(steps) != n {
			t.Fatalf("%d steps written, want %d", len(steps), n)
		}
		out, ok, err := store.DecodeOutgoing(steps[n-1])
		if err != nil || !ok {
			t.Fatalf("step %d: %v %v", n, ok, err)
		}
		return *out.Request
	}
	first := step(1)
	if k := first.Continuation; k == nil || k.RecoveryID != call.ID || k.Version != 1 || !k.At.Equal(call.NextStepAt) || k.EndpointID != ep.ID {
		t.Fatalf("the first step's continuation %+v, the call %+v", first.Continuation, call)
	}

	const instances = 6
	var start, wg sync.WaitGroup
	start.Add(1)
	for range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &webhook.Continuer{Recoverer: recoverer(), Endpoints: endpoints, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return first.Continuation.At }}
			start.Wait()
			if d := c.Handle(ctx, webhook.Message{ProjectID: project, Continuation: first.Continuation}); !d.Done {
				t.Errorf("a continuation: %+v", d)
			}
		}()
	}
	start.Done()
	wg.Wait()
	second := step(2)
	if len(second.Messages) != webhook.MaxRecoveryBatch || second.Continuation == nil || second.Continuation.Version != 2 {
		t.Fatalf("%d instances took the step: %d redrives, continuation %+v", instances, len(second.Messages), second.Continuation)
	}
	c := &webhook.Continuer{Recoverer: recoverer(), Endpoints: endpoints, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return second.Continuation.At }}
	if d := c.Handle(ctx, webhook.Message{ProjectID: project, Continuation: second.Continuation}); !d.Done {
		t.Fatalf("the last continuation: %+v", d)
	}
	if last := step(3); len(last.Messages) != 10 || last.Continuation != nil {
		t.Fatalf("the completing step: %d redrives, continuation %+v", len(last.Messages), last.Continuation)
	}
	cur, err := s.Recoveries().Current(ctx, project, ep.ID)
	if err != nil || cur.Status != webhook.RecoveryCompleted || cur.Queued != dead || cur.Version != 3 || !cur.NextStepAt.IsZero() {
		t.Fatalf("the stored recovery %+v %v", cur, err)
	}

	t.Run("a running step that queued nothing writes its continuation", func(t *testing.T) {
		other := ids.New(ids.WebhookEndpoint, now)
		r := webhook.Recovery{ID: ids.New(ids.Recovery, now), ProjectID: project, EndpointID: other, Since: now.Add(-time.Hour), Until: now,
			Status: webhook.RecoveryRunning, Version: 1, NextStepAt: now.Add(time.Second), CreatedAt: now, UpdatedAt: now.Add(time.Millisecond)}
		if err := s.Recoveries().Save(ctx, r, nil); err != nil {
			t.Fatal(err)
		}
		var got webhook.DeliveryRequest
		for _, it := range recoverySteps(t, s, project) {
			if out, ok, err := store.DecodeOutgoing(it); err == nil && ok && out.Request.ID == r.ID {
				got = *out.Request
			}
		}
		if len(got.Messages) != 0 || got.Continuation == nil || got.Continuation.RecoveryID != r.ID || !got.Continuation.At.Equal(r.NextStepAt) {
			t.Fatalf("the empty step %+v", got)
		}
		stored, err := s.Recoveries().Current(ctx, project, other)
		if err != nil || !stored.NextStepAt.Equal(r.NextStepAt) {
			t.Fatalf("next_step_at %+v %v", stored, err)
		}
	})
}
