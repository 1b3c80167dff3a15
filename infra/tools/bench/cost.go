package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
)

// pricesJSON is the price table the price bench uses: one file, so that an
// operator can read (and update) every price and its source in one place,
// in a format that needs no Go to edit.
//
//go:embed prices.json
var pricesJSON []byte

// Prices is AWS's on-demand list price of each thing the system is billed
// for, in one region on one date (prices.json).
type Prices struct {
	Region   string `json:"region"`
	Taken    string `json:"taken"`
	Currency string `json:"currency"`
	Notes    string `json:"notes"`
	DynamoDB struct {
		Source       string  `json:"source"`
		CapacityMode string  `json:"capacity_mode"`
		TableClass   string  `json:"table_class"`
		WriteUnits   float64 `json:"write_request_units_per_million"`
		ReadUnits    float64 `json:"read_request_units_per_million"`
	} `json:"dynamodb"`
	Lambda struct {
		Source       string  `json:"source"`
		Architecture string  `json:"architecture"`
		Requests     float64 `json:"requests_per_million"`
		GBSecond     float64 `json:"gb_second"`
	} `json:"lambda"`
	SQS struct {
		Source    string  `json:"source"`
		QueueType string  `json:"queue_type"`
		Requests  float64 `json:"requests_per_million"`
	} `json:"sqs"`
	Scheduler struct {
		Source      string  `json:"source"`
		Invocations float64 `json:"invocations_per_million"`
	} `json:"scheduler"`
	APIGateway struct {
		Source   string  `json:"source"`
		APIType  string  `json:"api_type"`
		Requests float64 `json:"requests_per_million"`
	} `json:"api_gateway"`
	FreeTier struct {
		Source               string  `json:"source"`
		LambdaRequests       float64 `json:"lambda_requests_millions"`
		LambdaGBSeconds      float64 `json:"lambda_gb_seconds"`
		SQSRequests          float64 `json:"sqs_requests_millions"`
		SchedulerInvocations float64 `json:"scheduler_invocations_millions"`
		APIGatewayRequests   float64 `json:"api_gateway_requests_millions"`
	} `json:"free_tier"`
}

// LoadPrices reads the embedded price table.
func LoadPrices() (Prices, error) { return ParsePrices(pricesJSON) }

// ParsePrices reads a price table and checks that it has every price the
// cost arithmetic uses, and what they apply to (region, date, the
// template's Lambda architecture and DynamoDB table class).
func ParsePrices(b []byte) (Prices, error) {
	var p Prices
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Prices{}, fmt.Errorf("prices: %w", err)
	}
	var missing []error
	for name, v := range map[string]string{
		"region": p.Region, "taken": p.Taken, "currency": p.Currency,
		"dynamodb.source": p.DynamoDB.Source, "dynamodb.capacity_mode": p.DynamoDB.CapacityMode, "dynamodb.table_class": p.DynamoDB.TableClass,
		"lambda.source": p.Lambda.Source, "lambda.architecture": p.Lambda.Architecture,
		"sqs.source": p.SQS.Source, "sqs.queue_type": p.SQS.QueueType,
		"scheduler.source": p.Scheduler.Source, "api_gateway.source": p.APIGateway.Source, "api_gateway.api_type": p.APIGateway.APIType,
		"free_tier.source": p.FreeTier.Source,
	} {
		if v == "" {
			missing = append(missing, fmt.Errorf("prices: %s is missing", name))
		}
	}
	for name, v := range map[string]float64{
		"dynamodb.write_request_units_per_million": p.DynamoDB.WriteUnits, "dynamodb.read_request_units_per_million": p.DynamoDB.ReadUnits,
		"lambda.requests_per_million": p.Lambda.Requests, "lambda.gb_second": p.Lambda.GBSecond,
		"sqs.requests_per_million": p.SQS.Requests, "scheduler.invocations_per_million": p.Scheduler.Invocations,
		"api_gateway.requests_per_million": p.APIGateway.Requests,
	} {
		if v <= 0 {
			missing = append(missing, fmt.Errorf("prices: %s is missing (a price is above 0)", name))
		}
	}
	return p, errors.Join(missing...)
}

// Usage is what AWS bills for one scenario of the price bench: counts
// summed over Units units of work (delivered webhooks, or POSTs).
type Usage struct {
	Units                 int
	ReadUnits, WriteUnits float64 // DynamoDB request units
	LambdaRequests        int
	GBSeconds             float64 // Lambda duration x memory
	SQSRequests           int     // billed requests (64 KB chunks)
	SchedulerInvocations  int
	APIRequests           int
}

// Cost is a Usage priced: USD per million units, line by line.
type Cost struct {
	DynamoDB, LambdaRequests, LambdaDuration, SQS, Scheduler, APIGateway float64
}

// Total is the sum of the lines.
func (c Cost) Total() float64 {
	return c.DynamoDB + c.LambdaRequests + c.LambdaDuration + c.SQS + c.Scheduler + c.APIGateway
}

// Cost prices u: a count per unit times a price per million is the cost
// per million units.
func (p Prices) Cost(u Usage) Cost {
	if u.Units <= 0 {
		return Cost{}
	}
	per := func(n float64) float64 { return n / float64(u.Units) }
	return Cost{
		DynamoDB:       per(u.ReadUnits)*p.DynamoDB.ReadUnits + per(u.WriteUnits)*p.DynamoDB.WriteUnits,
		LambdaRequests: per(float64(u.LambdaRequests)) * p.Lambda.Requests,
		LambdaDuration: per(u.GBSeconds) * p.Lambda.GBSecond * 1e6,
		SQS:            per(float64(u.SQSRequests)) * p.SQS.Requests,
		Scheduler:      per(float64(u.SchedulerInvocations)) * p.Scheduler.Invocations,
		APIGateway:     per(float64(u.APIRequests)) * p.APIGateway.Requests,
	}
}

// FreeTierCost prices the first million units of a month on an account
// whose free tier is otherwise unused: each line's allowance comes off the
// million units' counts first (DynamoDB on-demand has none).
func (p Prices) FreeTierCost(u Usage) Cost {
	if u.Units <= 0 {
		return Cost{}
	}
	per := func(n float64) float64 { return n / float64(u.Units) }
	over := func(millions, free float64) float64 { return max(0, millions-free) }
	f := p.FreeTier
	c := p.Cost(u)
	c.LambdaRequests = over(per(float64(u.LambdaRequests)), f.LambdaRequests) * p.Lambda.Requests
	c.LambdaDuration = over(per(u.GBSeconds)*1e6, f.LambdaGBSeconds) * p.Lambda.GBSecond
	c.SQS = over(per(float64(u.SQSRequests)), f.SQSRequests) * p.SQS.Requests
	c.Scheduler = over(per(float64(u.SchedulerInvocations)), f.SchedulerInvocations) * p.Scheduler.Invocations
	c.APIGateway = over(per(float64(u.APIRequests)), f.APIGatewayRequests) * p.APIGateway.Requests
	return c
}

// GBSeconds is Lambda's billed compute of billedMS milliseconds at
// memoryMB of memory.
func GBSeconds(billedMS int64, memoryMB int) float64 {
	return float64(billedMS) / 1000 * float64(memoryMB) / 1024
}
