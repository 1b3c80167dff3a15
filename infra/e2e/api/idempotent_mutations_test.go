package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/store"
)

func TestMutatingEndpointsEndToEnd(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	project, key := localtest.Project(t, rt, "")
	c := localtest.Client{T: t, Base: rt.URL, Key: key}
	contact := c.Contact("+79990001000")

	t.Run("send message -> 202 queued; replay identical", func(t *testing.T) {
		k := uuid.NewString()
		body := `{"contact_id":"` + contact + `","text":"Hello","channel":"telegram"}`
		r := c.Post("/public/v1/messages", k, body)
		if r.Status != 202 || !strings.Contains(string(r.Body), `"status":"queued"`) || !strings.Contains(string(r.Body), `"id":"msg_`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		again := c.Post("/public/v1/messages", k, body)
		if again.Status != 202 || string(again.Body) != string(r.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay %d %s", again.Status, again.Body)
		}
	})
	t.Run("message to unknown contact -> 404 NOT_FOUND", func(t *testing.T) {
		r := c.Post("/public/v1/messages", uuid.NewString(), `{"contact_id":"ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C","text":"Hi"}`)
		if r.Status != 404 || r.ErrorCode() != "NOT_FOUND" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("message with bad channel -> 422 naming channel", func(t *testing.T) {
		r := c.Post("/public/v1/messages", uuid.NewString(), `{"contact_id":"`+contact+`","text":"Hi","channel":"pigeon"}`)
		if r.Status != 422 || !strings.Contains(string(r.Body), `"field":"channel"`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("scenario run -> 202 started", func(t *testing.T) {
		r := c.Post("/public/v1/scenarios/welcome-flow/runs", uuid.NewString(), `{"contact_id":"`+contact+`","variables":{"coupon":"X1","n":2}}`)
		if r.Status != 202 || !strings.Contains(string(r.Body), `"status":"started"`) || !strings.Contains(string(r.Body), `"variables":{"coupon":"X1","n":2}`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("one key cannot launch two scenarios -> 409 IDEMPOTENCY_KEY_REUSE_CONFLICT", func(t *testing.T) {
		k, body := uuid.NewString(), `{"contact_id":"`+contact+`"}`
		if r := c.Post("/public/v1/scenarios/a/runs", k, body); r.Status != 202 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if r := c.Post("/public/v1/scenarios/b/runs", k, body); r.ErrorCode() != "IDEMPOTENCY_KEY_REUSE_CONFLICT" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("scenario with nested variables -> 422", func(t *testing.T) {
		r := c.Post("/public/v1/scenarios/a/runs", uuid.NewString(), `{"contact_id":"`+contact+`","variables":{"x":{"y":1}}}`)
		if r.Status != 422 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("catalog import -> 202, items reach the catalog, a re-import updates the SKU", func(t *testing.T) {
		r := c.Post("/public/v1/catalog/imports", uuid.NewString(), `{"items":[{"sku":"MUG","name":"Mug","price":590},{"sku":"CAP","name":"Cap","price":990.50,"currency":"USD"}]}`)
		if r.Status != 202 || !strings.Contains(string(r.Body), `"items_count":2`) || !strings.Contains(string(r.Body), `"status":"accepted"`) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))
		waitFor(t, func() bool {
			it, err := s.GetCatalogItem(context.Background(), project, "CAP")
			return err == nil && it.Price == "990.50" && it.Currency == "USD"
		})
		r = c.Post("/public/v1/catalog/imports", uuid.NewString(), `{"items":[{"sku":"MUG","name":"Mug XL","price":690}]}`)
		if r.Status != 202 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		waitFor(t, func() bool {
			it, err := s.GetCatalogItem(context.Background(), project, "MUG")
			return err == nil && it.Price == "690" && it.Name == "Mug XL"
		})
	})
	t.Run("catalog import validation names the item", func(t *testing.T) {
		r := c.Post("/public/v1/catalog/imports", uuid.NewString(), `{"items":[{"sku":"A","name":"A","price":1},{"sku":"A","name":"B","price":-1}]}`)
		if r.Status != 422 || !strings.Contains(string(r.Body), "items[1].price") || !strings.Contains(string(r.Body), "items[1].sku") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("catalog import of 1001 items -> 422", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"items":[`)
		for i := 0; i < 1001; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"sku":"S%d","name":"n","price":1}`, i)
		}
		b.WriteString("]}")
		if r := c.Post("/public/v1/catalog/imports", uuid.NewString(), b.String()); r.Status != 422 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("condition not met within 15s")
}
