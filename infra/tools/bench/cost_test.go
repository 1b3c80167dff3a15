package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/docs"
)

func testPrices() Prices {
	var p Prices
	p.DynamoDB.ReadUnits, p.DynamoDB.WriteUnits = 0.125, 0.625
	p.Lambda.Requests, p.Lambda.GBSecond = 0.20, 0.0000133334
	p.SQS.Requests, p.Scheduler.Invocations, p.APIGateway.Requests = 0.40, 1.00, 1.00
	return p
}

func TestCostPerMillionUnits(t *testing.T) {
	cases := []struct {
		name  string
		usage Usage
		want  Cost
	}{
		{"nothing counted costs nothing", Usage{Units: 1000}, Cost{}},
		{"no units: no cost rather than a division by zero", Usage{WriteUnits: 5}, Cost{}},
		{"one write unit per unit is the write price", Usage{Units: 10, WriteUnits: 10}, Cost{DynamoDB: 0.625}},
		{"reads and writes add up on the DynamoDB line", Usage{Units: 2, ReadUnits: 4, WriteUnits: 1}, Cost{DynamoDB: 2*0.125 + 0.5*0.625}},
		{"requests are priced per million, so per unit times the price", Usage{Units: 4, LambdaRequests: 1, SQSRequests: 8, SchedulerInvocations: 2, APIRequests: 4},
			Cost{LambdaRequests: 0.05, SQS: 0.80, Scheduler: 0.50, APIGateway: 1.00}},
		{"a GB-second per unit costs a million GB-seconds per million units", Usage{Units: 1, GBSeconds: 1}, Cost{LambdaDuration: 13.3334}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := testPrices().Cost(c.usage)
			if !near(got.DynamoDB, c.want.DynamoDB) || !near(got.LambdaRequests, c.want.LambdaRequests) || !near(got.LambdaDuration, c.want.LambdaDuration) ||
				!near(got.SQS, c.want.SQS) || !near(got.Scheduler, c.want.Scheduler) || !near(got.APIGateway, c.want.APIGateway) || !near(got.Total(), c.want.Total()) {
				t.Errorf("cost = %+v (total %v), want %+v (total %v)", got, got.Total(), c.want, c.want.Total())
			}
		})
	}
}

func TestFreeTierCost(t *testing.T) {
	p := testPrices()
	p.FreeTier.LambdaRequests, p.FreeTier.LambdaGBSeconds, p.FreeTier.SQSRequests = 1, 400000, 1
	p.FreeTier.SchedulerInvocations, p.FreeTier.APIGatewayRequests = 14, 1
	cases := []struct {
		name  string
		usage Usage
		want  Cost
	}{
		{"DynamoDB has no free tier", Usage{Units: 1, WriteUnits: 2}, Cost{DynamoDB: 1.25}},
		{"within every allowance the rest is free", Usage{Units: 10, LambdaRequests: 5, SQSRequests: 10, SchedulerInvocations: 10, APIRequests: 10, GBSeconds: 1}, Cost{}},
		{"past an allowance only the excess is billed", Usage{Units: 1, SQSRequests: 3, LambdaRequests: 2}, Cost{SQS: 0.80, LambdaRequests: 0.20}},
		{"GB-seconds past 400,000 in a million units", Usage{Units: 1, GBSeconds: 0.5}, Cost{LambdaDuration: 100000 * 0.0000133334}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := p.FreeTierCost(c.usage)
			if !near(got.Total(), c.want.Total()) || !near(got.DynamoDB, c.want.DynamoDB) || !near(got.SQS, c.want.SQS) || !near(got.LambdaDuration, c.want.LambdaDuration) {
				t.Errorf("free tier cost = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestGBSeconds(t *testing.T) {
	cases := []struct {
		name   string
		ms     int64
		memory int
		want   float64
	}{
		{"a second at 1024 MB is one GB-second", 1000, 1024, 1},
		{"a millisecond at 512 MB", 1, 512, 0.0005},
		{"no time, no compute", 0, 256, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := GBSeconds(c.ms, c.memory); !near(got, c.want) {
				t.Errorf("GBSeconds(%d, %d) = %v, want %v", c.ms, c.memory, got, c.want)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestThePriceFileHasEveryPrice(t *testing.T) {
	if _, err := LoadPrices(); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{
		"region", "taken", "currency",
		"dynamodb.write_request_units_per_million", "dynamodb.read_request_units_per_million", "dynamodb.table_class", "dynamodb.capacity_mode",
		"lambda.requests_per_million", "lambda.gb_second", "lambda.architecture",
		"sqs.requests_per_million", "sqs.queue_type",
		"scheduler.invocations_per_million",
		"api_gateway.requests_per_million", "api_gateway.api_type",
		"free_tier.source",
	} {
		t.Run("without "+key+" the file is refused", func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(pricesJSON, &doc); err != nil {
				t.Fatal(err)
			}
			m := doc
			parts := strings.Split(key, ".")
			for _, p := range parts[:len(parts)-1] {
				m = m[p].(map[string]any)
			}
			if _, ok := m[parts[len(parts)-1]]; !ok {
				t.Fatalf("prices.json has no %s", key)
			}
			delete(m, parts[len(parts)-1])
			b, _ := json.Marshal(doc)
			if _, err := ParsePrices(b); err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("ParsePrices without %s: %v", key, err)
			}
		})
	}
	t.Run("an unknown key is refused, so that a misspelt price is not read as missing", func(t *testing.T) {
		if _, err := ParsePrices([]byte(strings.Replace(string(pricesJSON), `"gb_second"`, `"gb_seconds"`, 1))); err == nil {
			t.Error("a misspelt key was accepted")
		}
	})
}

// The prices are those of what template.yaml deploys: its functions'
// architecture, its tables' capacity mode and class, standard queues.
func TestThePriceFileMatchesTheTemplate(t *testing.T) {
	p, err := LoadPrices()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	for name, fn := range tpl.Functions() {
		if fn.Architecture() != p.Lambda.Architecture {
			t.Errorf("%s runs on %s; the price table prices %s", name, fn.Architecture(), p.Lambda.Architecture)
		}
	}
	for _, id := range tpl.OfType("AWS::DynamoDB::Table") {
		props := tpl.Resources[id].Properties
		class, _ := props["TableClass"].(string)
		if class == "" {
			class = "STANDARD"
		}
		if props["BillingMode"] != p.DynamoDB.CapacityMode || class != p.DynamoDB.TableClass {
			t.Errorf("%s is %v, %s; the price table prices %s, %s", id, props["BillingMode"], class, p.DynamoDB.CapacityMode, p.DynamoDB.TableClass)
		}
	}
	for _, id := range tpl.OfType("AWS::SQS::Queue") {
		if fifo, _ := tpl.Resources[id].Properties["FifoQueue"].(bool); fifo || p.SQS.QueueType != "standard" {
			t.Errorf("%s: FIFO %v; the price table prices %s queues", id, fifo, p.SQS.QueueType)
		}
	}
	if len(tpl.OfType("AWS::Serverless::HttpApi")) == 0 || p.APIGateway.APIType != "HTTP" {
		t.Errorf("the template's API is not the HTTP API the price table prices (%s)", p.APIGateway.APIType)
	}
}

// The price figures of the contributors' guide name the price table they
// were computed with:
// its file, region and date.
func TestTheREADMENamesThePriceTable(t *testing.T) {
	p, err := LoadPrices()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("`infra/tools/bench/prices.json`** (%s, taken %s;", p.Region, p.Taken)
	if !strings.Contains(docs.Read(t, docs.Contributors), want) {
		t.Errorf("%s does not name the price table as %q", docs.Contributors, want)
	}
}

// The operators' guide's cost model states, per path, the counts the price
// bench measured and what they cost per million at list prices and on the
// free tier: each price is recomputed here from its row's counts and
// prices.json (to the cent, the counts being rounded), so a count, a price or the table cannot
// change alone. The hosted peers' prices are stated with their source and
// date.
func TestTheCostModelPricesItsCounts(t *testing.T) {
	p, err := LoadPrices()
	if err != nil {
		t.Fatal(err)
	}
	doc := docs.Read(t, docs.Operators)
	_, model, ok := strings.Cut(doc, "\n## Cost model\n")
	if !ok {
		t.Fatalf("%s has no Cost model section", docs.Operators)
	}
	model, _, _ = strings.Cut(model, "\n## ")
	const header = "| path | DynamoDB write units | DynamoDB read units | Lambda invocations | Lambda GB-s | SQS requests | Scheduler invocations | API Gateway requests | USD per million, list prices | USD per million, a month's first million on the free tier |"
	_, table, ok := strings.Cut(model, header+"\n")
	if !ok {
		t.Fatalf("the cost model has no table headed %q", header)
	}
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		if strings.HasPrefix(line, "| ---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 10 {
			t.Fatalf("row %q has %d cells, want 10", line, len(cells))
		}
		var n [9]float64
		for i, c := range cells[1:] {
			if _, err := fmt.Sscanf(strings.Trim(c, "*"), "%g", &n[i]); err != nil {
				t.Fatalf("row %q, cell %q: %v", cells[0], c, err)
			}
		}
		const million = 1000000
		u := Usage{Units: million, WriteUnits: n[0] * million, ReadUnits: n[1] * million, LambdaRequests: int(math.Round(n[2] * million)),
			GBSeconds: n[3] * million, SQSRequests: int(math.Round(n[4] * million)), SchedulerInvocations: int(math.Round(n[5] * million)), APIRequests: int(math.Round(n[6] * million))}
		t.Run(cells[0], func(t *testing.T) {
			if got := p.Cost(u).Total(); math.Abs(got-n[7]) > 0.011 {
				t.Errorf("at list prices the counts cost %.2f per million; the guide says %.2f", got, n[7])
			}
			if got := p.FreeTierCost(u).Total(); math.Abs(got-n[8]) > 0.011 {
				t.Errorf("on the free tier the counts cost %.2f per million; the guide says %.2f", got, n[8])
			}
		})
		rows++
	}
	if rows < 5 {
		t.Errorf("the cost model prices %d paths; the price bench measures 5", rows)
	}
	for _, peer := range []string{"| Svix | 100 |", "| Hookdeck | 10, down to 3.30 at volume |"} {
		if !strings.Contains(model, peer) {
			t.Errorf("the cost model does not state %q", peer)
		}
	}
	if !strings.Contains(model, "pricing pages, 2026-12-01") {
		t.Error("the cost model does not name the peers' source and date (their pricing pages, 2026-12-01)")
	}
	if !strings.Contains(model, "go run ./infra/run/with-dynamodb -- go run ./infra/tools/cmd/bench -only price") {
		t.Error("the cost model does not name the command that measures it")
	}
}
