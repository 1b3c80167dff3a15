package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/webhook"
)

// statsShards spreads one hour's counts of a project over this many
// items, so that the transactions of concurrent deliveries rarely touch
// the same counter (a TransactionConflict, which commit re-sends).
const statsShards = 8

// hourLayout names an hour in a counter's sort key; it sorts as time does.
const hourLayout = "2006-01-02T15"

func statsPK(project string) string { return scoped(project, "DLV#STATS") }

// A counter shard holds the project's counts as attributes named after
// each outcome (webhook.Outcome), and each endpoint's as
// "<we id>#<outcome>"; deliveriesCounter (and "<we id>#deliveries")
// counts first attempts, and latencyCounters ("lat250", ...) the
// answers of each response time bucket, in the same ADD: no write of
// their own.
const deliveriesCounter = "deliveries"

// latencyCounters name the counters of the response time buckets: "lat"
// and the bucket's bound in milliseconds, named once for every attempt
// counted and every counter item read.
var latencyCounters = func() (names [len(webhook.LatencyBoundsMs)]string) {
	for i, bound := range webhook.LatencyBoundsMs {
		names[i] = "lat" + strconv.FormatInt(bound, 10)
	}
	return names
}()

// countAttempt is the write that counts attempt a of delivery d, which
// left d in status left: an atomic ADD to a shard of the attempt's hour,
// of the project's total and of the endpoint's. It rides in the
// transaction that records the attempt, so an attempt is counted exactly
// when it is logged.
func (r Deliveries) countAttempt(d webhook.Delivery, a webhook.Attempt, left webhook.Status) types.TransactWriteItem {
	hour := webhook.AttemptHour(a, r.s.now())
	outcome := string(webhook.Outcome(left))
	add := "ADD #total :one, #endpoint :one"
	names := map[string]string{"#total": outcome, "#endpoint": d.EndpointID + "#" + outcome}
	if webhook.FirstAttempt(a) {
		add += ", #dtotal :one, #dendpoint :one"
		names["#dtotal"], names["#dendpoint"] = deliveriesCounter, d.EndpointID+"#"+deliveriesCounter
	}
	if webhook.Answered(a) {
		bucket := latencyCounters[webhook.LatencyBucket(a.DurationMs)]
		add += ", #ltotal :one, #lendpoint :one"
		names["#ltotal"], names["#lendpoint"] = bucket, d.EndpointID+"#"+bucket
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                aws.String(r.s.Tables.Deliveries),
		Key:                      keyAV(key(statsPK(d.ProjectID), fmt.Sprintf("%s#%d", hour.Format(hourLayout), rand.IntN(statsShards)))),
		UpdateExpression:         aws.String(add + " SET entity = :entity, expires_at = if_not_exists(expires_at, :expires)"),
		ExpressionAttributeNames: names,
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": num(1), ":entity": str("delivery_stats"), ":expires": num(hour.Add(webhook.StatsRetention).Unix()),
		},
	}}
}

// Stats implements webhook.Deliveries: one Query over the project's
// counter shards of the hours asked (at most 24 × 15 × statsShards small
// items), summed per hour. Its cost depends on the hours asked, never on
// the number of deliveries.
func (r Deliveries) Stats(ctx context.Context, project, endpointID string, from, to time.Time) ([]webhook.HourCounts, error) {
	from, to = from.UTC().Truncate(time.Hour), to.UTC().Truncate(time.Hour)
	if to.Before(from) {
		return nil, nil
	}
	prefix := ""
	if endpointID != "" {
		prefix = endpointID + "#"
	}
	in := &dynamodb.QueryInput{
		TableName:              aws.String(r.s.Tables.Deliveries),
		KeyConditionExpression: aws.String("pk = :pk AND sk BETWEEN :from AND :to"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(statsPK(project)), ":from": str(from.Format(hourLayout)), ":to": str(to.Format(hourLayout) + "#~"),
		},
	}
	var out []webhook.HourCounts
	err := r.s.each(ctx, in, func(item map[string]types.AttributeValue) error {
		sk, _ := item[attrSK].(*types.AttributeValueMemberS)
		if sk == nil {
			return nil
		}
		hourText, _, _ := strings.Cut(sk.Value, "#")
		hour, err := time.Parse(hourLayout, hourText)
		if err != nil {
			return fmt.Errorf("store: counter %q: %w", sk.Value, err)
		}
		c, err := countsOf(item, prefix)
		switch {
		case err != nil || c.Total() == 0:
			return err
		case len(out) > 0 && out[len(out)-1].Hour.Equal(hour):
			out[len(out)-1].Counts = out[len(out)-1].Counts.Add(c)
		default:
			out = append(out, webhook.HourCounts{Hour: hour, Counts: c})
		}
		return nil
	})
	return out, err
}

// countsOf reads a counter shard's counts named prefix+outcome.
func countsOf(item map[string]types.AttributeValue, prefix string) (webhook.Counts, error) {
	var c webhook.Counts
	counters := map[string]*int64{deliveriesCounter: &c.Deliveries}
	for _, outcome := range webhook.Outcomes {
		counters[string(outcome)] = c.Of(outcome)
	}
	for i, name := range latencyCounters {
		counters[name] = &c.Latency[i]
	}
	for name, to := range counters {
		n, ok := item[prefix+name].(*types.AttributeValueMemberN)
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			return c, fmt.Errorf("store: counter %s: %w", name, err)
		}
		*to = v
	}
	return c, nil
}
