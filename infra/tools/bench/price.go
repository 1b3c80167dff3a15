package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dynamotypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/ddblocal"
	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// PriceConfig sizes the price benchmark.
type PriceConfig struct {
	// Units is how many webhooks each webhook scenario delivers and how
	// many POSTs the POST scenario makes.
	Units   int
	Pollers int
	// FanOut lists the endpoint counts N of the fan-out scenarios: Units
	// events, each to N endpoints, priced per event (N = 1 is (a)).
	FanOut []int
}

// scenario is one priced workload and what it measured.
type scenario struct {
	name  string
	usage Usage
	// detail says where the Lambda and SQS counts come from.
	detail string
}

// Price runs three workloads through the local runtime with every billed
// thing counted — (a) webhooks delivered on the first try, (b) webhooks
// whose first attempt gets a 500 and whose retry delivers, (c) idempotent
// POSTs — and prints what they would cost at AWS's on-demand list prices
// (prices.json), per million units.
func Price(ctx context.Context, endpoint string, cfg PriceConfig, out io.Writer) error {
	prices, err := LoadPrices()
	if err != nil {
		return err
	}
	tpl, err := template.LoadRepo()
	if err != nil {
		return err
	}
	var done []scenario
	one := func(s scenario, err error) ([]scenario, error) { return []scenario{s}, err }
	runs := []func() ([]scenario, error){
		// (a), and (e) the list pages of its deliveries.
		func() ([]scenario, error) { return priceWebhooks(ctx, endpoint, tpl, cfg, false, 1) },
		func() ([]scenario, error) { return priceWebhooks(ctx, endpoint, tpl, cfg, true, 1) },
		func() ([]scenario, error) { return one(pricePosts(ctx, endpoint, tpl, cfg)) },
	}
	for _, n := range cfg.FanOut {
		if n > 1 {
			runs = append(runs, func() ([]scenario, error) { return priceWebhooks(ctx, endpoint, tpl, cfg, false, n) })
		}
	}
	for _, run := range runs {
		s, err := run()
		if err != nil {
			// What finished is printed: a later scenario's failure does not
			// take the earlier ones' counts with it.
			if len(done) > 0 {
				printPrices(out, prices, done)
			}
			return err
		}
		done = append(done, s...)
	}
	printPrices(out, prices, done)
	return nil
}

// metered is a local runtime whose every billed request is counted.
type metered struct {
	rt     *local.Runtime
	meter  *local.Meter
	dynamo *dynamotest.Capacity
	sqs    *requests
	sched  *requests
	fns    map[string]template.Function
	seeded admin.Response
}

func startMetered(ctx context.Context, endpoint string, tpl *template.Template, env map[string]string, pollers int) (*metered, error) {
	m := &metered{meter: &local.Meter{}, dynamo: dynamotest.NewCapacity(ddblocal.Client(endpoint)), sqs: &requests{}, sched: &requests{}, fns: tpl.Functions()}
	env[app.EnvAllowLoopback] = "true"
	rt, err := local.Start(ctx, local.Config{
		Template: tpl, DynamoDBEndpoint: endpoint, TablePrefix: dynamotest.UniquePrefix(), Env: env, QueuePollers: pollers, Meter: m.meter,
		Options: []app.Option{
			app.WithLogger(functionLogger()), app.WithDynamoDB(m.dynamo.Option()),
			app.WithSQS(func(o *sqs.Options) { o.APIOptions = append(o.APIOptions, m.sqs.count) }),
			app.WithScheduler(func(o *scheduler.Options) { o.APIOptions = append(o.APIOptions, m.sched.count) }),
		},
	})
	if err != nil {
		return nil, err
	}
	m.rt = rt
	if m.seeded, err = seedProject(ctx, rt, "price"); err != nil {
		rt.Close()
		return nil, err
	}
	return m, nil
}

// reset forgets what setting up cost.
func (m *metered) reset() {
	m.meter.Reset()
	m.dynamo.Reset()
	m.sqs.reset()
	m.sched.reset()
}

// settle waits until the queue and the schedules are empty and no function
// has run for a second: the work the scenario started is done.
func (m *metered) settle(ctx context.Context) error {
	invocations := func() int {
		n := 0
		for _, f := range m.meter.Read().Functions {
			n += f.Count
		}
		return n
	}
	last, quiet := -1, 0
	for deadline := time.Now().Add(5 * time.Minute); quiet < 2; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("price: the runtime did not settle in 5 minutes")
		}
		depth, _ := m.rt.QueueDepth(ctx, "DeliveryQueue")
		bulk, _ := m.rt.QueueDepth(ctx, "BulkDeliveryQueue")
		depth += bulk
		pending, _ := m.rt.PendingSchedules(ctx)
		n := invocations()
		if depth == 0 && pending == 0 && n == last {
			quiet++
		} else {
			quiet = 0
		}
		last = n
	}
	return nil
}

// usage is what AWS would bill for what ran since reset, over units.
func (m *metered) usage(ctx context.Context, name string, units int) scenario {
	read, write := m.dynamo.Units()
	r := m.meter.Read()
	u := Usage{Units: units, ReadUnits: read, WriteUnits: write, APIRequests: r.APIRequests}
	var fns []string
	for fn, inv := range r.Functions {
		u.LambdaRequests += inv.Count
		u.GBSeconds += GBSeconds(inv.BilledMS, m.fns[fn].MemorySize())
		fns = append(fns, fmt.Sprintf("%s %.3f (%d MB, %.1f ms each)", strings.TrimSuffix(fn, "Function"), float64(inv.Count)/float64(units), m.fns[fn].MemorySize(), float64(inv.BilledMS)/float64(inv.Count)))
	}
	sort.Strings(fns)
	pending, _ := m.rt.PendingSchedules(ctx)
	created := m.sched.succeeded("CreateSchedule")
	// Each schedule that fired sent its message to the queue: an SQS
	// request billed to the account.
	u.SchedulerInvocations = created - pending
	u.SQSRequests = m.sqs.billedRequests() + r.ReceiveChunks + r.DeleteBatches + u.SchedulerInvocations
	per := func(n int) string { return fmt.Sprintf("%.3f", float64(n)/float64(units)) }
	var ops []string
	for op, v := range m.dynamo.ByOperation() {
		ops = append(ops, fmt.Sprintf("%s %.2f", op, v/float64(units)))
	}
	sort.Strings(ops)
	detail := fmt.Sprintf("DynamoDB request units per unit (a transaction priced per item, as AWS bills it): %s. Lambda invocations per unit: %s. SQS requests per unit: functions %s (%s), Lambda's pollers %s receives (%s of them empty) + %s DeleteMessageBatch, Scheduler targets %s. CreateSchedule calls per unit: %s (not billed). DynamoDB writes rejected by their condition: %d.",
		strings.Join(ops, ", "), strings.Join(fns, ", "), per(m.sqs.billedRequests()), m.sqs.summary(), per(r.Receives), per(r.EmptyReceives), per(r.DeleteBatches), per(u.SchedulerInvocations), per(created), m.dynamo.Rejected())
	return scenario{name: name, usage: u, detail: detail + " " + m.places(units) + " " + m.sizes(ctx)}
}

// places prints the write units per unit spent on each table and index,
// named as template.yaml names them.
func (m *metered) places(units int) string {
	logical := map[string]string{}
	for id, name := range m.rt.Tables() {
		logical[name] = id
	}
	var parts []string
	for place, v := range m.dynamo.ByPlace() {
		table, index, _ := strings.Cut(place, "/")
		name := logical[table]
		if index != "" {
			name += "/" + index
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", name, v/float64(units)))
	}
	sort.Strings(parts)
	return "Write units per unit by table and index: " + strings.Join(parts, ", ") + "."
}

// sizes prints the size of each kind of item (its entity attribute) the
// scenario left in the tables: count, mean and largest bytes as DynamoDB
// bills them (one write unit per started KB).
func (m *metered) sizes(ctx context.Context) string {
	type stat struct{ n, sum, max int }
	stats := map[string]*stat{}
	for id, table := range m.rt.Tables() {
		p := dynamodb.NewScanPaginator(m.rt.DynamoDB(), &dynamodb.ScanInput{TableName: aws.String(table)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return "Item sizes: " + err.Error() + "."
			}
			for _, item := range page.Items {
				entity := "?"
				if e, ok := item["entity"].(*dynamotypes.AttributeValueMemberS); ok {
					entity = e.Value
				}
				k := id + " " + entity
				if stats[k] == nil {
					stats[k] = &stat{}
				}
				size := dynamotest.ItemSize(item)
				stats[k].n++
				stats[k].sum += size
				stats[k].max = max(stats[k].max, size)
			}
		}
	}
	var parts []string
	for k, st := range stats {
		parts = append(parts, fmt.Sprintf("%s: %d items, mean %d B, largest %d B", k, st.n, st.sum/st.n, st.max))
	}
	sort.Strings(parts)
	return "Item sizes (all items in the tables after the scenario): " + strings.Join(parts, "; ") + "."
}

// priceWebhooks prices cfg.Units events, each delivered to endpoints
// endpoints, per event; scenario (a) (one endpoint, first try) is followed
// by (e), the list pages of the deliveries it made (priceListPages).
func priceWebhooks(ctx context.Context, endpoint string, tpl *template.Template, cfg PriceConfig, failFirst bool, endpoints int) ([]scenario, error) {
	s, m, err := runWebhooks(ctx, endpoint, tpl, cfg, failFirst, endpoints)
	if m != nil {
		defer m.rt.Close()
	}
	if err != nil || failFirst || endpoints > 1 {
		return []scenario{s}, err
	}
	pages, err := priceListPages(ctx, m)
	return []scenario{s, pages}, err
}

// listPages are the delivery list's pages scenario (e) reads: each of the
// list's ways to read, by its filter.
var listPages = []string{"", "status=delivered", "endpoint_id="}

// listPageSize is the page size of scenario (e), the API's largest.
const listPageSize = 100

// priceListPages prices a page of the delivery list, GET
// /public/v1/webhook-deliveries with cursor_limit=100, over m's
// deliveries: every page of the list unfiltered, by status and by
// endpoint (base table, gsi1, gsi2), each page one unit.
func priceListPages(ctx context.Context, m *metered) (scenario, error) {
	eps, err := getJSON[struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}](m.rt.URL, m.seeded.APIKey, "/public/v1/webhook-endpoints")
	if err != nil || len(eps.Data) == 0 {
		return scenario{}, fmt.Errorf("price: the endpoint of the list pages: %v", err)
	}
	m.reset()
	pages := 0
	for _, filter := range listPages {
		if filter == "endpoint_id=" {
			filter += eps.Data[0].ID
		}
		cursor := ""
		for {
			path := fmt.Sprintf("/public/v1/webhook-deliveries?cursor_limit=%d&%s", listPageSize, filter)
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			page, err := getJSON[struct {
				HasMore    bool   `json:"has_more"`
				NextCursor string `json:"next_cursor"`
			}](m.rt.URL, m.seeded.APIKey, path)
			if err != nil {
				return scenario{}, err
			}
			pages++
			if !page.HasMore {
				break
			}
			cursor = page.NextCursor
		}
	}
	return m.usage(ctx, fmt.Sprintf("(e) a page of %d deliveries, GET /public/v1/webhook-deliveries (unfiltered, by status, by endpoint)", listPageSize), pages), nil
}

// getJSON GETs path with the key and decodes the 200 answer.
func getJSON[T any](base, key, path string) (T, error) {
	var out T
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("price: GET %s: %d", path, resp.StatusCode)
	}
	return out, json.NewDecoder(resp.Body).Decode(&out)
}

// runWebhooks runs a webhook scenario and returns it with its still
// running metered runtime (the caller closes it).
func runWebhooks(ctx context.Context, endpoint string, tpl *template.Template, cfg PriceConfig, failFirst bool, endpoints int) (scenario, *metered, error) {
	delivered := &webhookIDs{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failFirst && r.Header.Get(webhook.HeaderAttempt) == "1" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		delivered.add(r)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	// A one-second retry schedule, so that the retry runs within the bench.
	m, err := startMetered(ctx, endpoint, tpl, map[string]string{app.EnvRetrySchedule: "1s"}, cfg.Pollers)
	if err != nil {
		return scenario{}, nil, err
	}
	for i := range endpoints {
		if err := createEndpoint(m.rt.URL, m.seeded.APIKey, fmt.Sprintf("%s/hooks/%d", receiver.URL, i)); err != nil {
			return scenario{}, m, err
		}
	}
	if err := m.settle(ctx); err != nil {
		return scenario{}, m, err
	}
	m.reset()
	s := store.New(m.rt.DynamoDB(), dynamotest.TablesOf(m.rt.Tables()))
	if err := writeEvents(ctx, s, m.seeded.Project.ID, cfg.Units); err != nil {
		return scenario{}, m, err
	}
	for start := time.Now(); delivered.count() < int64(cfg.Units*endpoints); time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 10*time.Minute {
			return scenario{}, m, fmt.Errorf("price: only %d of %d webhooks delivered in 10 minutes", delivered.count(), cfg.Units*endpoints)
		}
	}
	if err := m.settle(ctx); err != nil {
		return scenario{}, m, err
	}
	name := "(a) webhook, delivered first try"
	if failFirst {
		name = "(b) webhook, first attempt 500, retry delivers"
	}
	if endpoints > 1 {
		name = fmt.Sprintf("(d) event to %d endpoints, each delivered first try, per event", endpoints)
	}
	return m.usage(ctx, name, cfg.Units), m, nil
}

func pricePosts(ctx context.Context, endpoint string, tpl *template.Template, cfg PriceConfig) (scenario, error) {
	m, err := startMetered(ctx, endpoint, tpl, map[string]string{}, cfg.Pollers)
	if err != nil {
		return scenario{}, err
	}
	defer m.rt.Close()
	if err := m.settle(ctx); err != nil {
		return scenario{}, err
	}
	m.reset()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(cfg.Units); i = next.Add(1) {
				body := fmt.Sprintf(`{"phone":"+7%010d","name":"Price %d"}`, i, i)
				if status, err := post(m.rt.URL, m.seeded.APIKey, "/public/v1/contacts", uuid.NewString(), body); err != nil || status != http.StatusCreated {
					failed.Store(fmt.Errorf("price: POST /public/v1/contacts: %d %v", status, err))
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return scenario{}, err
	}
	if err := m.settle(ctx); err != nil {
		return scenario{}, err
	}
	return m.usage(ctx, "(c) idempotent POST /public/v1/contacts", cfg.Units), nil
}

func printPrices(out io.Writer, p Prices, done []scenario) {
	fprintf(out, "\n## Price: AWS on-demand list price per million webhooks and POSTs (%s, prices taken %s, infra/tools/bench/prices.json; free tiers ignored but in the last row)\n\n", p.Region, p.Taken)
	fprintf(out, "%d units per scenario. (a) and (b) count from the stream onward (dispatch, deliver, queues, scheduler), not the API call that wrote the event. Lambda duration is this machine's: DynamoDB Local, and a receiver on loopback that answers at once (a real receiver's latency adds to the deliver function's GB-s).\n\n", done[0].usage.Units)
	header := "|"
	rule := "| --- |"
	for _, s := range done {
		header += " " + s.name + " |"
		rule += " --- |"
	}
	row := func(label string, cell func(s scenario) string) {
		line := "| " + label + " |"
		for _, s := range done {
			line += " " + cell(s) + " |"
		}
		fprintf(out, "%s\n", line)
	}
	per := func(n float64, units int) float64 { return n / float64(units) }
	fprintf(out, "| count per unit %s\n%s\n", header, rule)
	row("DynamoDB read / write request units", func(s scenario) string {
		return fmt.Sprintf("%.2f / %.2f", per(s.usage.ReadUnits, s.usage.Units), per(s.usage.WriteUnits, s.usage.Units))
	})
	row("Lambda invocations", func(s scenario) string {
		return fmt.Sprintf("%.3f", per(float64(s.usage.LambdaRequests), s.usage.Units))
	})
	row("Lambda GB-seconds", func(s scenario) string { return fmt.Sprintf("%.5f", per(s.usage.GBSeconds, s.usage.Units)) })
	row("SQS requests", func(s scenario) string { return fmt.Sprintf("%.3f", per(float64(s.usage.SQSRequests), s.usage.Units)) })
	row("Scheduler invocations", func(s scenario) string {
		return fmt.Sprintf("%.3f", per(float64(s.usage.SchedulerInvocations), s.usage.Units))
	})
	row("API Gateway requests", func(s scenario) string { return fmt.Sprintf("%.3f", per(float64(s.usage.APIRequests), s.usage.Units)) })
	fprintf(out, "\n| USD per million units %s\n%s\n", header, rule)
	usd := func(f func(c Cost) float64) func(s scenario) string {
		return func(s scenario) string { return fmt.Sprintf("%.2f", f(p.Cost(s.usage))) }
	}
	row(fmt.Sprintf("DynamoDB ($%s / $%s per million RRU / WRU)", usdPrice(p.DynamoDB.ReadUnits), usdPrice(p.DynamoDB.WriteUnits)), usd(func(c Cost) float64 { return c.DynamoDB }))
	row(fmt.Sprintf("Lambda requests ($%s per million)", usdPrice(p.Lambda.Requests)), usd(func(c Cost) float64 { return c.LambdaRequests }))
	row(fmt.Sprintf("Lambda GB-s ($%s per GB-s, %s)", usdPrice(p.Lambda.GBSecond), p.Lambda.Architecture), usd(func(c Cost) float64 { return c.LambdaDuration }))
	row(fmt.Sprintf("SQS ($%s per million)", usdPrice(p.SQS.Requests)), usd(func(c Cost) float64 { return c.SQS }))
	row(fmt.Sprintf("Scheduler ($%s per million invocations)", usdPrice(p.Scheduler.Invocations)), usd(func(c Cost) float64 { return c.Scheduler }))
	row(fmt.Sprintf("API Gateway ($%s per million)", usdPrice(p.APIGateway.Requests)), usd(func(c Cost) float64 { return c.APIGateway }))
	row("**total**", usd(Cost.Total))
	row("total of a month's first million on the free tier (the allowances in prices.json)", func(s scenario) string { return fmt.Sprintf("%.2f", p.FreeTierCost(s.usage).Total()) })
	fprintf(out, "\n")
	for _, s := range done {
		fprintf(out, "- %s: %s\n", s.name, s.detail)
	}
}

// usdPrice prints a price without an exponent: 0.0000133334.
func usdPrice(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// requests counts an AWS client's requests by operation, and the SQS
// requests they are billed as (one per 64 KB of payload, at least one).
type requests struct {
	mu     sync.Mutex
	calls  map[string]int
	failed map[string]int
	billed int
}

func (c *requests) count(s *middleware.Stack) error {
	return s.Initialize.Add(middleware.InitializeMiddlewareFunc("bench.requests", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleInitialize(ctx, in)
		// Named from the input: not every client has set the operation
		// name by this step.
		op := strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", in.Parameters), "*"), "Input")
		op = op[strings.LastIndex(op, ".")+1:]
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.calls == nil {
			c.calls, c.failed = map[string]int{}, map[string]int{}
		}
		c.calls[op]++
		if err != nil {
			c.failed[op]++
		}
		c.billed += local.SQSChunks(sqsPayload(in.Parameters))
		return out, md, err
	}), middleware.Before)
}

// sqsPayload is the message payload an SQS request carries.
func sqsPayload(input any) int {
	size := func(body *string, attrs map[string]sqstypes.MessageAttributeValue) int {
		n := 0
		if body != nil {
			n += len(*body)
		}
		for k, v := range attrs {
			n += len(k) + len(aws.ToString(v.DataType)) + len(aws.ToString(v.StringValue)) + len(v.BinaryValue)
		}
		return n
	}
	switch in := input.(type) {
	case *sqs.SendMessageInput:
		return size(in.MessageBody, in.MessageAttributes)
	case *sqs.SendMessageBatchInput:
		n := 0
		for _, e := range in.Entries {
			n += size(e.MessageBody, e.MessageAttributes)
		}
		return n
	}
	return 0
}

func (c *requests) reset() {
	c.mu.Lock()
	c.calls, c.failed, c.billed = nil, nil, 0
	c.mu.Unlock()
}

func (c *requests) billedRequests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.billed
}

func (c *requests) succeeded(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[op] - c.failed[op]
}

// summary lists the calls by operation, e.g. "SendMessageBatch 100".
func (c *requests) summary() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for op, n := range c.calls {
		parts = append(parts, fmt.Sprintf("%s %d", op, n))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
