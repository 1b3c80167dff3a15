// Package collect reads log lines as CloudWatch reads them: the metrics
// their embedded metric format (EMF) members define, aggregated per metric
// and dimension values with CloudWatch's statistics, and the lines
// themselves. The local runtime shows what it collects from its functions
// (/_local/metrics); the pillars' tests assert what a step emitted.
package collect

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/botix/public-api/internal/metrics"
)

// Telemetry is what CloudWatch would make of the functions' log lines:
// the metrics their embedded metric format (EMF) lines define, aggregated
// per metric and dimension values as CloudWatch's statistics are, and the
// recent lines themselves, each with the function that wrote it (what a
// trace id or a Logs Insights query finds). The local runtime gives every
// function a tee into it, whatever logger the function has; a test of one
// pillar reads the metrics of the logger Logger gives it.
type Telemetry struct {
	mu     sync.Mutex
	series map[string]*Series
	lines  []map[string]any
	next   int
}

// keptLines bounds the lines kept (the oldest go first).
const keptLines = 20000

// keptValues bounds the values a series keeps for its percentiles.
const keptValues = 10000

// Series is one metric with one set of dimension values, and its
// statistics.
type Series struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	Unit        string            `json:"unit,omitempty"`
	Dimensions  map[string]string `json:"dimensions"`
	SampleCount int               `json:"sample_count"`
	Sum         float64           `json:"sum"`
	Min         float64           `json:"min"`
	Max         float64           `json:"max"`
	P50         float64           `json:"p50"`
	P99         float64           `json:"p99"`
	values      []float64
}

// Handler is a JSON log handler whose lines t takes, each with the
// function fn that wrote it: the tee of that function's logger, every
// line, metrics included, as the function's JSON handler writes it.
func (t *Telemetry) Handler(fn string) slog.Handler {
	h := slog.NewJSONHandler(lineWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: metrics.ReplaceLevel})
	return h.WithAttrs([]slog.Attr{slog.String("function", fn)})
}

type lineWriter struct{ t *Telemetry }

// Write takes one line (slog's JSON handler writes each record at once).
func (w lineWriter) Write(p []byte) (int, error) {
	var line map[string]any
	d := json.NewDecoder(bytes.NewReader(p))
	d.UseNumber()
	if err := d.Decode(&line); err == nil {
		w.t.add(line)
	}
	return len(p), nil
}

func (t *Telemetry) add(line map[string]any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) < keptLines {
		t.lines = append(t.lines, line)
	} else {
		t.lines[t.next] = line
		t.next = (t.next + 1) % keptLines
	}
	aws, ok := line["_aws"].(map[string]any)
	if !ok {
		return
	}
	dirs, _ := aws["CloudWatchMetrics"].([]any)
	for _, d := range dirs {
		dir, _ := d.(map[string]any)
		ns, _ := dir["Namespace"].(string)
		sets, _ := dir["Dimensions"].([]any)
		defs, _ := dir["Metrics"].([]any)
		for _, def := range defs {
			m, _ := def.(map[string]any)
			name, _ := m["Name"].(string)
			unit, _ := m["Unit"].(string)
			v, ok := number(line[name])
			if !ok {
				continue
			}
			for _, set := range sets {
				names, _ := set.([]any)
				dims := map[string]string{}
				for _, n := range names {
					k, _ := n.(string)
					dims[k], _ = line[k].(string)
				}
				t.observe(ns, name, unit, dims, v)
			}
		}
	}
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

func (t *Telemetry) observe(ns, name, unit string, dims map[string]string, v float64) {
	if t.series == nil {
		t.series = map[string]*Series{}
	}
	k := seriesKey(ns, name, dims)
	s := t.series[k]
	if s == nil {
		s = &Series{Namespace: ns, Name: name, Unit: unit, Dimensions: dims, Min: math.Inf(1), Max: math.Inf(-1)}
		t.series[k] = s
	}
	s.SampleCount++
	s.Sum += v
	s.Min, s.Max = min(s.Min, v), max(s.Max, v)
	if len(s.values) < keptValues {
		s.values = append(s.values, v)
	}
}

func seriesKey(ns, name string, dims map[string]string) string {
	keys := make([]string, 0, len(dims))
	for k, v := range dims {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return ns + "/" + name + "/" + strings.Join(keys, ",")
}

// Metrics returns every series seen so far, sorted by name and
// dimensions, with their percentiles.
func (t *Telemetry) Metrics() []Series {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make([]string, 0, len(t.series))
	for k := range t.series {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Series, 0, len(keys))
	for _, k := range keys {
		s := *t.series[k]
		vs := append([]float64(nil), s.values...)
		sort.Float64s(vs)
		s.P50, s.P99 = percentile(vs, 0.50), percentile(vs, 0.99)
		s.values = nil
		out = append(out, s)
	}
	return out
}

// Sum is the sum of a metric's values over the series whose dimensions
// include dims (0 when none).
func (t *Telemetry) Sum(name string, dims map[string]string) (sum float64, count int) {
	for _, s := range t.Metrics() {
		if s.Name != name || !includes(s.Dimensions, dims) {
			continue
		}
		sum += s.Sum
		count += s.SampleCount
	}
	return sum, count
}

func includes(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Lines returns the kept log lines, oldest first, that have every
// attribute of match (all, with none).
func (t *Telemetry) Lines(match map[string]string) []map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []map[string]any
	for i := range t.lines {
		line := t.lines[(t.next+i)%len(t.lines)]
		ok := true
		for k, v := range match {
			if s, _ := line[k].(string); s != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// Logger is a logger whose lines, as function fn's, t takes.
func (t *Telemetry) Logger(fn string) *slog.Logger { return slog.New(t.Handler(fn)) }

// Totals is each series' sum, keyed by the metric's name and its
// dimension values in the order of their names ("DeliveryAttempts/standard/dead":
// Lane, then Outcome; "FencedCommits" without dimensions): what a test
// compares with what a step should have emitted, every metric at once.
func (t *Telemetry) Totals() map[string]float64 {
	out := map[string]float64{}
	for _, s := range t.Metrics() {
		names := make([]string, 0, len(s.Dimensions))
		for k := range s.Dimensions {
			names = append(names, k)
		}
		sort.Strings(names)
		key := s.Name
		for _, k := range names {
			key += "/" + s.Dimensions[k]
		}
		out[key] += s.Sum
	}
	return out
}
