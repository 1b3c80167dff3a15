package local

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/metrics"
	"github.com/botix/public-api/internal/metrics/collect"
)

// Telemetry is what CloudWatch would make of the functions' log lines
// (package collect).
type Telemetry = collect.Telemetry

// Series is one metric with one set of dimension values, and its
// statistics.
type Series = collect.Series

// MetricsPath and TracePath are where the API's address serves the
// telemetry (locally only: API Gateway has no such routes).
const (
	MetricsPath = "/_local/metrics"
	TracePath   = "/_local/traces/"
)

// serveTelemetry answers GET /_local/metrics (every series) and GET
// /_local/traces/<trace id> (the lines of one trace, in order: where a
// request and its deliveries spent their time).
func (r *Runtime) serveTelemetry(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if req.Method != http.MethodGet {
		w.WriteHeader(http.StatusMethodNotAllowed)
		_, _ = w.Write([]byte(`{"message":"GET only"}` + "\n"))
		return
	}
	var v any = map[string]any{"namespace": metrics.Namespace, "metrics": r.telemetry.Metrics()}
	if id, ok := strings.CutPrefix(req.URL.Path, TracePath); ok {
		v = map[string]any{"trace_id": id, "lines": r.telemetry.Lines(map[string]string{logs.TraceID: id})}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// Telemetry returns what the functions logged, as CloudWatch would read
// it.
func (r *Runtime) Telemetry() *Telemetry { return r.telemetry }
