package webhook

import (
	"context"
	"strings"
	"time"

	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/metrics"
	"github.com/botix/public-api/internal/tracing"
)

// handling returns ctx for handling msg: its log lines name the project,
// delivery, endpoint and attempt, and it continues the trace msg carries
// (a new one for a message without).
func (d *Deliverer) handling(ctx context.Context, msg Message) context.Context {
	ctx = tracing.Continue(ctx, msg.Trace)
	ctx = logs.WithLogger(ctx, d.Log)
	return logs.With(ctx, logs.ProjectID, msg.ProjectID, logs.DeliveryID, msg.DeliveryID, logs.EndpointID, msg.EndpointID, logs.Attempt, msg.Attempt)
}

// counted writes the metrics of a recorded attempt of rec's round: its
// outcome, the receiver's answer time, and for a success the time since
// its event. requestID is empty when no request was sent.
func (d *Deliverer) counted(ctx context.Context, rec Delivery, bulk bool, resp Response, requestID string, result Result) {
	lane := metrics.LaneOf(bulk)
	outcome := string(result.Status)
	switch result.Status {
	case StatusRetrying:
		metrics.Put(ctx, d.Log, metrics.RetriesScheduled, 1, lane)
		if result.Throttled {
			outcome = "throttled"
		}
	case StatusDead:
		metrics.Put(ctx, d.Log, metrics.DeadLetters, 1, lane)
	}
	metrics.Put(ctx, d.Log, metrics.DeliveryAttempts, 1, lane, outcome)
	if requestID != "" {
		metrics.Duration(ctx, d.Log, metrics.AttemptDuration, resp.Duration, lane)
	}
	if result.Status == StatusDelivered {
		if u, err := ids.Parse(ids.Event, rec.EventID); err == nil {
			metrics.Duration(ctx, d.Log, metrics.EventToDelivery, d.now().Sub(ids.Time(u)), lane)
		}
	}
}

// countedExtra writes the metrics of a recorded manual retry or redirect.
func (d *Deliverer) countedExtra(ctx context.Context, log Attempt, delivered bool) {
	outcome := "failed"
	if delivered {
		outcome = string(StatusDelivered)
	}
	metrics.Put(ctx, d.Log, metrics.DeliveryAttempts, 1, metrics.LaneManual, outcome)
	if log.RequestID != "" {
		metrics.Duration(ctx, d.Log, metrics.AttemptDuration, time.Duration(log.DurationMs)*time.Millisecond, metrics.LaneManual)
	}
}

// transition names a health event's type in the HealthTransitions metric
// ("webhook_endpoint.disabling_soon" is disabling_soon).
func transition(eventType string) string {
	return strings.TrimPrefix(eventType, "webhook_endpoint.")
}

// traceAll gives msgs that carry no trace yet the traceparent tp.
func traceAll(msgs []Message, tp string) {
	for i := range msgs {
		if msgs[i].Trace == "" {
			msgs[i].Trace = tp
		}
	}
}
