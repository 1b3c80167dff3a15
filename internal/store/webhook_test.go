package store_test

import (
	"context"
	"testing"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/webhooktest"
)

// TestDeliveriesTableMeetsTheContract runs the contract the in-memory
// deliveries meet against DynamoDB Local: claims, results and their
// conditions are DynamoDB's to decide.
func TestDeliveriesTableMeetsTheContract(t *testing.T) {
	s := dynamotest.Store(t)
	webhooktest.TestDeliveries(t, func(*testing.T) webhook.Deliveries { return s.Deliveries() })
}

func TestEndpointsMeetTheContract(t *testing.T) {
	s := dynamotest.Store(t)
	webhooktest.TestEndpoints(t, func(*testing.T) webhooktest.EndpointsHarness { return endpointsHarness(s) })
}

// TestHealthEventsMeetTheContract: that a health event is written once per
// endpoint, streak and type is the transaction's conditions' to decide.
func TestHealthEventsMeetTheContract(t *testing.T) {
	s := dynamotest.Store(t)
	webhooktest.TestHealthEvents(t, func(*testing.T) webhooktest.HealthHarness {
		return webhooktest.HealthHarness{EndpointsHarness: endpointsHarness(s), Health: s.HealthEvents(), Events: func(t *testing.T, project string) []domain.Event {
			page, err := store.ReadPage(context.Background(), s, store.EventsQuery(project, store.EventFilter{}), nil, 100)
			if err != nil {
				t.Fatal(err)
			}
			return page.Items
		}}
	})
}

func endpointsHarness(s *store.Store) webhooktest.EndpointsHarness {
	return webhooktest.EndpointsHarness{Endpoints: s.Endpoints(), Add: func(t *testing.T, project string, ep webhook.Endpoint) {
		var p store.Plan
		if err := s.AddEndpoint(&p, project, ep); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}}
}
