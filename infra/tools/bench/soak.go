package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// SoakConfig sizes the soak.
type SoakConfig struct {
	Duration time.Duration
	Clients  int
	// FailShare is the share of webhook requests the receiver fails (503).
	FailShare float64
}

// soakClient is one integrator: it sends messages (and retries each with
// the same key, as a client that lost the answer would), creates contacts,
// and walks lists with cursors.
type soakClient struct {
	base, key, contact string
	http               *http.Client
	rng                *rand.Rand
	rec                *soakRecord
}

// soakRecord is what the clients saw.
type soakRecord struct {
	mu        sync.Mutex
	latencies []time.Duration
	statuses  map[int]int
	// created holds the id each idempotency key's operation answered with.
	created map[string]string
}

func (r *soakRecord) add(status int, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latencies = append(r.latencies, d)
	r.statuses[status]++
}

// Soak runs cfg.Clients concurrent clients against the local runtime for
// cfg.Duration — creates with retried duplicates, cursor walks, and the
// webhook traffic their events cause to a receiver that fails a share of
// requests — then drains the pipeline and reports what held.
func Soak(ctx context.Context, endpoint string, cfg SoakConfig, out io.Writer) error {
	tpl, err := template.LoadRepo()
	if err != nil {
		return err
	}
	var received sync.Map
	var rng sync.Mutex
	failer := rand.New(rand.NewPCG(7, 11))
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rng.Lock()
		fail := failer.Float64() < cfg.FailShare
		rng.Unlock()
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		received.Store(r.Header.Get(webhook.HeaderID), true)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	rt, err := local.Start(ctx, local.Config{
		Template: tpl, DynamoDBEndpoint: endpoint, TablePrefix: dynamotest.UniquePrefix(),
		Env:          map[string]string{app.EnvAllowLoopback: "true"},
		Parameters:   map[string]string{"WebhookRetrySchedule": "1s,1s,2s,2s"},
		QueuePollers: 8,
		Options:      []app.Option{app.WithLogger(functionLogger())},
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	raw, err := rt.Invoke(ctx, "AdminFunction", admin.Request{Action: "create_project", Name: "soak"})
	if err != nil {
		return err
	}
	var seeded admin.Response
	if err := jsonUnmarshal(raw, &seeded); err != nil {
		return err
	}
	rec := &soakRecord{statuses: map[int]int{}, created: map[string]string{}}
	setup := &soakClient{base: rt.URL, key: seeded.APIKey, http: &http.Client{Timeout: 30 * time.Second}, rng: rand.New(rand.NewPCG(1, 1)), rec: &soakRecord{statuses: map[int]int{}, created: map[string]string{}}}
	if _, status := setup.post("/public/v1/webhook-endpoints", uuid.NewString(), `{"url":"`+receiver.URL+`/hooks","events":["*"]}`); status != 201 {
		return fmt.Errorf("soak: create endpoint: %d", status)
	}
	contact, status := setup.post("/public/v1/contacts", uuid.NewString(), `{"phone":"+79990000000","name":"Soak"}`)
	if status != 201 {
		return fmt.Errorf("soak: create contact: %d", status)
	}
	fprintf(out, "\n## Soak: %d clients for %s through the local runtime; the receiver fails %.0f%% of webhooks\n\n", cfg.Clients, cfg.Duration, cfg.FailShare*100)
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	var wg sync.WaitGroup
	for i := range cfg.Clients {
		c := &soakClient{base: rt.URL, key: seeded.APIKey, contact: contact, http: &http.Client{Timeout: 30 * time.Second}, rng: rand.New(rand.NewPCG(uint64(i), 42)), rec: rec}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(deadline); n++ {
				c.step(i, n)
			}
		}()
	}
	wg.Wait()
	served := time.Since(start)
	s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))
	return soakReport(ctx, out, rt, s, seeded.Project.ID, rec, &received, served)
}

// step is one thing a client does.
func (c *soakClient) step(client, n int) {
	switch x := c.rng.IntN(10); {
	case x < 4: // a message, and the client's retry of it with the same key
		key := uuid.NewString()
		body := fmt.Sprintf(`{"contact_id":"%s","text":"soak %d-%d"}`, c.contact, client, n)
		id, _ := c.post("/public/v1/messages", key, body)
		again, _ := c.post("/public/v1/messages", key, body)
		c.rec.mu.Lock()
		c.rec.created[key] = id
		if again != "" && again != id {
			c.rec.created[key+"/retry"] = again
		}
		c.rec.mu.Unlock()
	case x < 5: // two copies of one create at once: one runs, the other waits
		key := uuid.NewString()
		body := fmt.Sprintf(`{"phone":"+7%010d","name":"Soak %d"}`, client*10_000_000+n, n)
		var ids [2]string
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			go func() { defer wg.Done(); ids[i], _ = c.post("/public/v1/contacts", key, body) }()
		}
		wg.Wait()
		c.rec.mu.Lock()
		c.rec.created[key] = ids[0]
		if ids[1] != "" && ids[0] != "" && ids[1] != ids[0] {
			c.rec.created[key+"/retry"] = ids[1]
		}
		c.rec.mu.Unlock()
	default: // a cursor walk of up to three pages
		path := []string{"/public/v1/contacts", "/public/v1/messages", "/public/v1/webhook-deliveries", "/public/v1/events"}[x%4]
		cursor := ""
		for range 3 {
			next := c.get(path + "?cursor_limit=50" + cursor)
			if next == "" {
				break
			}
			cursor = "&cursor=" + next
		}
	}
}

func (c *soakClient) do(method, path, key, body string) ([]byte, int) {
	req, _ := http.NewRequest(method, c.base+path, bytes.NewReader([]byte(body)))
	req.Header.Set("Authorization", "Bearer "+c.key)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		c.rec.add(0, time.Since(start))
		return nil, 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	c.rec.add(resp.StatusCode, time.Since(start))
	return b, resp.StatusCode
}

// post returns the id of what it created (or of the replayed answer).
func (c *soakClient) post(path, key, body string) (string, int) {
	b, status := c.do(http.MethodPost, path, key, body)
	var v struct {
		ID string `json:"id"`
	}
	_ = jsonUnmarshal(b, &v)
	return v.ID, status
}

// get returns the page's next cursor ("" at the end).
func (c *soakClient) get(path string) string {
	b, _ := c.do(http.MethodGet, path, "", "")
	var p struct {
		NextCursor *string `json:"next_cursor"`
	}
	_ = jsonUnmarshal(b, &p)
	if p.NextCursor == nil {
		return ""
	}
	return url.QueryEscape(*p.NextCursor)
}

func soakReport(ctx context.Context, out io.Writer, rt *local.Runtime, s *store.Store, project string, rec *soakRecord, received *sync.Map, served time.Duration) error {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	total, fivexx := 0, 0
	for status, n := range rec.statuses {
		total += n
		if status >= 500 || status == 0 {
			fivexx += n
		}
	}
	// Idempotency: one operation per key, whatever the retries.
	duplicates := 0
	for k := range rec.created {
		if len(k) > 36 {
			duplicates++
		}
	}
	messages, err := countPartition(ctx, s, s.Tables.Data, "P#"+project+"#MSG")
	if err != nil {
		return err
	}
	events, err := countPartition(ctx, s, s.Tables.Data, "P#"+project+"#EVT")
	if err != nil {
		return err
	}
	// Events: each ends delivered or dead (in the DLQ) once the pipeline
	// drains; one that does neither within the drain window is lost.
	drainStart := time.Now()
	var delivered, dead int
	for {
		delivered, dead, err = terminalDeliveries(ctx, s, project)
		if err != nil {
			return err
		}
		if delivered+dead >= events || time.Since(drainStart) > 3*time.Minute {
			break
		}
		time.Sleep(time.Second)
	}
	deadLetters, _ := rt.QueueDepth(ctx, "DeadLetterQueue")
	arrived := 0
	received.Range(func(any, any) bool { arrived++; return true })
	lat := slices.Clone(rec.latencies)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	keys := 0
	for k := range rec.created {
		if len(k) == 36 {
			keys++
		}
	}
	fprintf(out, "| measure | value |\n| --- | --- |\n")
	fprintf(out, "| requests served | %d (%.0f/s) |\n", total, float64(total)/served.Seconds())
	fprintf(out, "| 5xx or no answer (goal 0) | %d |\n", fivexx)
	fprintf(out, "| statuses | %v |\n", rec.statuses)
	fprintf(out, "| idempotent operations (each sent twice with one key) | %d |\n", keys)
	fprintf(out, "| duplicates created: a key that answered with two different resources (goal 0) | %d |\n", duplicates)
	fprintf(out, "| messages stored / message operations | %d / %d |\n", messages, countPrefix(rec.created, "msg_"))
	fprintf(out, "| events / deliveries delivered + dead (%d dead letters) | %d / %d + %d |\n", deadLetters, events, delivered, dead)
	fprintf(out, "| events lost: neither delivered nor dead after draining %s (goal 0) | %d |\n", time.Since(drainStart).Round(time.Second), events-delivered-dead)
	fprintf(out, "| distinct events the receiver acknowledged | %d |\n", arrived)
	fprintf(out, "| latency p50 / p99 | %s ms / %s ms |\n", ms(lat[len(lat)/2]), ms(lat[(len(lat)*99)/100]))
	return nil
}

func countPrefix(m map[string]string, prefix string) int {
	n := 0
	for k, v := range m {
		if len(k) == 36 && len(v) > len(prefix) && v[:len(prefix)] == prefix {
			n++
		}
	}
	return n
}

// countPartition counts the items of a partition (Select COUNT, paged).
func countPartition(ctx context.Context, s *store.Store, table, pk string) (int, error) {
	in := &dynamodb.QueryInput{
		TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :pk"), Select: types.SelectCount,
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
	}
	n := 0
	for {
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return 0, err
		}
		n += int(res.Count)
		if res.LastEvaluatedKey == nil {
			return n, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// terminalDeliveries counts a project's deliveries that are delivered and
// dead (the status index).
func terminalDeliveries(ctx context.Context, s *store.Store, project string) (int, int, error) {
	var n [2]int
	for i, status := range []webhook.Status{webhook.StatusDelivered, webhook.StatusDead} {
		var start map[string]string
		for {
			page, err := store.ReadPage(ctx, s, store.DeliveriesQuery(project, store.DeliveryFilter{Status: status}), start, 200)
			if err != nil {
				return 0, 0, err
			}
			n[i] += len(page.Items)
			if !page.HasMore {
				break
			}
			start = page.Next
		}
	}
	return n[0], n[1], nil
}
