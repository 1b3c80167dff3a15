package templatecheck_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/botix/public-api/internal/metrics"
)

// TestDashboardAndAlarmsWatchMetricsTheCodeEmits: every metric of our
// namespace that the dashboard or an alarm names is one internal/metrics
// declares, with its dimensions and their values (a renamed metric would
// leave a flat line and an alarm that never fires), and every metric the
// code emits is on the dashboard.
func TestDashboardAndAlarmsWatchMetricsTheCodeEmits(t *testing.T) {
	tpl, _ := load(t)
	declared := map[string]metrics.Metric{}
	for _, m := range metrics.All() {
		declared[m.Name] = m
	}
	check := func(where, name string, dims map[string]string) {
		m, ok := declared[name]
		if !ok {
			t.Errorf("%s: metric %s.%s is not emitted by the code (internal/metrics)", where, metrics.Namespace, name)
			return
		}
		for k, v := range dims {
			if !slices.Contains(m.Dimensions, k) {
				t.Errorf("%s: %s has no dimension %s (it has %v)", where, name, k, m.Dimensions)
			} else if !slices.Contains(m.Values[k], v) {
				t.Errorf("%s: %s's dimension %s is never %q (it is one of %v)", where, name, k, v, m.Values[k])
			}
		}
		if len(dims) != len(m.Dimensions) {
			t.Errorf("%s: %s is emitted with dimensions %v, named here with %v: CloudWatch would find no data", where, name, m.Dimensions, dims)
		}
	}
	for _, id := range tpl.OfType("AWS::CloudWatch::Alarm") {
		p := tpl.Resources[id].Properties
		metricsOf := []map[string]any{p}
		for _, q := range asList(p["Metrics"]) {
			qm, _ := q.(map[string]any)
			ms, _ := qm["MetricStat"].(map[string]any)
			if m, ok := ms["Metric"].(map[string]any); ok {
				metricsOf = append(metricsOf, m)
			}
		}
		for _, m := range metricsOf {
			if m["Namespace"] != metrics.Namespace {
				continue
			}
			dims := map[string]string{}
			for _, d := range asList(m["Dimensions"]) {
				dm, _ := d.(map[string]any)
				dims[fmt.Sprint(dm["Name"])] = fmt.Sprint(dm["Value"])
			}
			check("alarm "+id, fmt.Sprint(m["MetricName"]), dims)
		}
	}
	onDashboard := map[string]bool{}
	for _, id := range tpl.OfType("AWS::CloudWatch::Dashboard") {
		for _, row := range dashboardMetrics(t, tpl.Resources[id].Properties["DashboardBody"]) {
			if row[0] != metrics.Namespace {
				continue
			}
			dims := map[string]string{}
			for i := 2; i+1 < len(row); i += 2 {
				dims[row[i]] = row[i+1]
			}
			onDashboard[row[1]] = true
			check("dashboard "+id, row[1], dims)
		}
	}
	for name := range declared {
		if !onDashboard[name] {
			t.Errorf("metric %s is emitted but on no dashboard", name)
		}
	}
}

// dashboardMetrics reads a dashboard body's metric rows, with CloudWatch's
// shorthands expanded ("." repeats the previous row's value at that place,
// "..." all of the previous row's values up to the ones that follow it),
// and their rendering options left out.
func dashboardMetrics(t *testing.T, body any) [][]string {
	t.Helper()
	text := ""
	switch b := body.(type) {
	case string:
		text = b
	case map[string]any:
		switch sub := b["Fn::Sub"].(type) {
		case string:
			text = sub
		case []any:
			text, _ = sub[0].(string)
		}
	}
	var doc struct {
		Widgets []struct {
			Properties struct {
				Metrics [][]any `json:"metrics"`
			} `json:"properties"`
		} `json:"widgets"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("dashboard body is not JSON: %v", err)
	}
	var out [][]string
	for _, w := range doc.Widgets {
		var prev []string
		for _, raw := range w.Properties.Metrics {
			var row []string
			for _, v := range raw {
				if s, ok := v.(string); ok {
					row = append(row, s)
				}
			}
			switch {
			case len(row) > 0 && row[0] == "...":
				rest := row[1:]
				row = append(append([]string(nil), prev[:max(0, len(prev)-len(rest))]...), rest...)
			default:
				for i := range row {
					if row[i] == "." && i < len(prev) {
						row[i] = prev[i]
					}
				}
			}
			if len(row) >= 2 && !strings.HasPrefix(row[0], "$") {
				out = append(out, row)
			}
			prev = row
		}
	}
	return out
}

// metricRows is the operators' guide's metric table, from internal/metrics.
func metricRows() (rows []string, total int) {
	for _, m := range metrics.All() {
		var dims []string
		for _, d := range m.Dimensions {
			dims = append(dims, d+" ("+strings.Join(m.Values[d], ", ")+")")
		}
		ds := "—"
		if len(dims) > 0 {
			ds = strings.Join(dims, "; ")
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s | %d | %s |", m.Name, m.Unit, ds, m.Series(), m.Doc))
		total += m.Series()
	}
	return rows, total
}

// TestOperatorsGuideMetricTable: the guide's table of metrics, their
// dimensions and what they cost is the code's.
func TestOperatorsGuideMetricTable(t *testing.T) {
	b, err := os.ReadFile("../../../docs/operators.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	rows, total := metricRows()
	want := strings.Join(rows, "\n") + "\n" + fmt.Sprintf("| **total** | | | **%d** | **$%.2f a month** at $0.30 per metric |", total, 0.30*float64(total))
	if !strings.Contains(doc, want) {
		t.Errorf("docs/operators.md's metric table is not the code's; it should read:\n%s", want)
	}
	for _, figure := range []string{fmt.Sprintf("would make %d,000", total), fmt.Sprintf("instead of\n$%.2f", 0.30*float64(total))} {
		if !strings.Contains(doc, figure) {
			t.Errorf("docs/operators.md does not say %q", figure)
		}
	}
}
