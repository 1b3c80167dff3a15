package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/dynamotest"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/webhooktest"
)

// TestConcurrentRecoverCallsStartOneRecovery: recover calls of one
// endpoint from several Lambda instances at once (each its own Recoverer)
// start one recovery, decided by the recovery item's conditional write in
// DynamoDB Local: every call answers the same recovery, and the failed
// deliveries are queued by one step, once.
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
	const calls = 8
	got := make([]webhook.RecoveryCall, calls)
	errs := make([]error, calls)
	var start, wg sync.WaitGroup
	start.Add(1)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := webhook.Recoverer{Deliveries: s.Deliveries(), Recoveries: s.Recoveries(), NewID: func(t time.Time) string { return ids.New(ids.Recovery, t) }}
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
