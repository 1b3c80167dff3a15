// Package metrics writes the stack's CloudWatch metrics in the embedded
// metric format (EMF): each measurement is one JSON log line on the
// function's logger, which CloudWatch Logs turns into a metric, with no
// API call and no latency. The metrics, their units and their dimensions
// are declared once, here (All): the template's dashboard and alarms may
// name only these (infra/checks/templatecheck checks), and the operators' guide
// prices them.
//
// Dimensions are kept to small closed sets (lane, outcome, cause) for cost:
// a CloudWatch metric is billed per combination of dimension values, so a
// per-project dimension would multiply the bill by the number of
// projects. Per-project and per-endpoint figures stay in the log lines,
// which carry project_id and endpoint_id for Logs Insights.
package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/botix/public-api/internal/logs"
)

// Namespace is the CloudWatch namespace of every metric.
const Namespace = "Botix"

// LevelMetric is the slog level of metric lines: above every level a
// LOG_LEVEL can filter out, so that metrics never depend on it. Handlers
// print it as "METRIC" (ReplaceLevel).
const LevelMetric = slog.Level(12)

// ReplaceLevel is a slog.HandlerOptions.ReplaceAttr that prints
// LevelMetric as "METRIC" instead of "ERROR+4".
func ReplaceLevel(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.LevelKey {
		if l, ok := a.Value.Any().(slog.Level); ok && l == LevelMetric {
			a.Value = slog.StringValue("METRIC")
		}
	}
	return a
}

// Unit is a CloudWatch unit.
type Unit string

// Units used.
const (
	Count        Unit = "Count"
	Milliseconds Unit = "Milliseconds"
)

// Metric is one CloudWatch metric: its name, unit and dimension names.
type Metric struct {
	Name       string
	Unit       Unit
	Dimensions []string
	// Values lists each dimension's possible values (the cardinality the
	// operators' guide prices); Doc says when the metric is emitted.
	Values map[string][]string
	Doc    string
}

// Dimension names and their closed sets of values.
const (
	Lane    = "Lane"
	Outcome = "Outcome"
	Cause   = "Cause"
	Mode    = "Mode"
	Kind    = "Kind"
)

// Lane values: the delivery queue, its bulk lane, and the extra attempts
// (manual retries, redirects) asked through the API.
const (
	LaneStandard = "standard"
	LaneBulk     = "bulk"
	LaneManual   = "manual"
)

// LaneOf names the lane of a queue message.
func LaneOf(bulk bool) string {
	if bulk {
		return LaneBulk
	}
	return LaneStandard
}

var lanes = []string{LaneStandard, LaneBulk}

// The metrics. Their values are documented in Values; Put refuses none,
// but the tests hold every call site to them.
var (
	DeliveryAttempts = Metric{Name: "DeliveryAttempts", Unit: Count, Dimensions: []string{Lane, Outcome},
		Values: map[string][]string{Lane: {LaneStandard, LaneBulk, LaneManual}, Outcome: {"delivered", "retrying", "throttled", "dead", "failed"}},
		Doc:    "an attempt was recorded, by what followed it (manual lane: delivered or failed)"}
	AttemptDuration = Metric{Name: "AttemptDuration", Unit: Milliseconds, Dimensions: []string{Lane},
		Values: map[string][]string{Lane: {LaneStandard, LaneBulk, LaneManual}},
		Doc:    "the receiver's answer time of an attempt that sent a request"}
	EventToDelivery = Metric{Name: "EventToDelivery", Unit: Milliseconds, Dimensions: []string{Lane},
		Values: map[string][]string{Lane: lanes},
		Doc:    "from the event's creation (its id's time) to the receiver's 2xx, retries included"}
	TimeInQueue = Metric{Name: "TimeInQueue", Unit: Milliseconds, Dimensions: []string{Lane},
		Values: map[string][]string{Lane: lanes},
		Doc:    "a first attempt's message, from its send to its first receive (delayed messages are not counted)"}
	RetriesScheduled = Metric{Name: "RetriesScheduled", Unit: Count, Dimensions: []string{Lane},
		Values: map[string][]string{Lane: lanes},
		Doc:    "a retry was scheduled (Scheduler) or deferred on the queue (a receiver's short Retry-After)"}
	DeadLetters = Metric{Name: "DeadLetters", Unit: Count, Dimensions: []string{Lane},
		Values: map[string][]string{Lane: lanes},
		Doc:    "a delivery died (its message sent to the dead-letter queue, or its endpoint deleted)"}
	Throttles = Metric{Name: "Throttles", Unit: Count,
		Doc: "a receiver answered 429, or 503 with Retry-After"}
	EndpointPauses = Metric{Name: "EndpointPauses", Unit: Count,
		Doc: "an attempt was put back on the queue because its endpoint is paused by a receiver's Retry-After"}
	Recoveries = Metric{Name: "Recoveries", Unit: Count,
		Doc: "a recovery step ran (POST .../recover, or a continuation): sample count the steps, sum the deliveries they queued again"}
	HealthTransitions = Metric{Name: "HealthTransitions", Unit: Count, Dimensions: []string{Kind},
		Values: map[string][]string{Kind: {"failing", "disabling_soon", "disabled", "recovered"}},
		Doc:    "an endpoint health event was written (once per streak and kind)"}
	IdempotentRequests = Metric{Name: "IdempotentRequests", Unit: Count, Dimensions: []string{Outcome},
		Values: map[string][]string{Outcome: {"captured", "replayed", "reuse_conflict", "in_progress"}},
		Doc:    "a mutation's Idempotency-Key was captured, or answered from an existing record"}
	FencedCommits = Metric{Name: "FencedCommits", Unit: Count,
		Doc: "a mutation's commit was refused because its key's lease had been taken over"}
	ListPages = Metric{Name: "ListPages", Unit: Count, Dimensions: []string{Mode},
		Values: map[string][]string{Mode: {"cursor", "offset"}},
		Doc:    "a list page was answered"}
	CursorRefusals = Metric{Name: "CursorRefusals", Unit: Count,
		Doc: "a list request was refused with 400 INVALID_CURSOR"}
	ServerErrors = Metric{Name: "ServerErrors", Unit: Count, Dimensions: []string{Cause},
		Values: map[string][]string{Cause: {"SERVICE_UNAVAILABLE", "INTERNAL", "panic"}},
		Doc:    "the API answered 5xx, by error code (panic: a handler panicked)"}
)

// All is every metric the code emits.
func All() []Metric {
	return []Metric{DeliveryAttempts, AttemptDuration, EventToDelivery, TimeInQueue, RetriesScheduled, DeadLetters,
		Throttles, EndpointPauses, Recoveries, HealthTransitions, IdempotentRequests, FencedCommits, ListPages,
		CursorRefusals, ServerErrors}
}

// Series is how many CloudWatch metrics m is billed as: the product of
// its dimensions' value counts (1 without dimensions).
func (m Metric) Series() int {
	n := 1
	for _, d := range m.Dimensions {
		n *= len(m.Values[d])
	}
	return n
}

// Put writes one measurement of m as an EMF line on log: value v, with
// dims, the values of m.Dimensions in order. A nil log is the logger ctx
// carries (logs.WithLogger); without one nothing is written (the pillars'
// tests that leave loggers out).
func Put(ctx context.Context, log *slog.Logger, m Metric, v float64, dims ...string) {
	if log == nil {
		log = logs.Logger(ctx)
	}
	if log == nil {
		return
	}
	attrs := make([]slog.Attr, 0, len(dims)+2)
	attrs = append(attrs, slog.Any("_aws", directive(m, time.Now())), slog.Float64(m.Name, v))
	for i, d := range m.Dimensions {
		val := ""
		if i < len(dims) {
			val = dims[i]
		}
		attrs = append(attrs, slog.String(d, val))
	}
	log.LogAttrs(ctx, LevelMetric, "metric", attrs...)
}

// Duration writes a measurement in milliseconds.
func Duration(ctx context.Context, log *slog.Logger, m Metric, d time.Duration, dims ...string) {
	Put(ctx, log, m, float64(d.Milliseconds()), dims...)
}

// Metadata is the "_aws" member of an EMF line.
type Metadata struct {
	Timestamp         int64       `json:"Timestamp"`
	CloudWatchMetrics []Directive `json:"CloudWatchMetrics"`
}

// Directive tells CloudWatch which members of the line are metrics and
// which are their dimensions.
type Directive struct {
	Namespace  string       `json:"Namespace"`
	Dimensions [][]string   `json:"Dimensions"`
	Metrics    []Definition `json:"Metrics"`
}

// Definition names one metric member of the line and its unit.
type Definition struct {
	Name string `json:"Name"`
	Unit Unit   `json:"Unit,omitempty"`
}

func directive(m Metric, now time.Time) Metadata {
	dims := m.Dimensions
	if dims == nil {
		dims = []string{}
	}
	return Metadata{Timestamp: now.UnixMilli(), CloudWatchMetrics: []Directive{{
		Namespace: Namespace, Dimensions: [][]string{dims}, Metrics: []Definition{{Name: m.Name, Unit: m.Unit}},
	}}}
}
