package metrics_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/pb33f/jsonschema/v6"

	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/metrics"
)

// emfSchema compiles the EMF specification's JSON schema (testdata).
func emfSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/emf.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("emf.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("emf.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// line logs one Put at level (as LOG_LEVEL sets it) and returns what the
// function's handler wrote.
func line(t *testing.T, level slog.Level, m metrics.Metric, v float64, dims ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	log := slog.New(logs.Handler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level, ReplaceAttr: metrics.ReplaceLevel})))
	ctx := logs.With(context.Background(), logs.RequestID, "req_1", logs.ProjectID, "prj_1")
	metrics.Put(ctx, log, m, v, dims...)
	return buf.Bytes()
}

// sampleDims is the first value of each of m's dimensions.
func sampleDims(m metrics.Metric) []string {
	var out []string
	for _, d := range m.Dimensions {
		out = append(out, m.Values[d][0])
	}
	return out
}

// emfRules checks what the specification says beside its schema: each
// metric a directive names is a member of the root holding a number, each
// dimension a member holding a string.
func emfRules(doc map[string]any) []string {
	var problems []string
	aws, _ := doc["_aws"].(map[string]any)
	dirs, _ := aws["CloudWatchMetrics"].([]any)
	for _, d := range dirs {
		dir, _ := d.(map[string]any)
		for _, set := range dir["Dimensions"].([]any) {
			for _, name := range set.([]any) {
				if _, ok := doc[name.(string)].(string); !ok {
					problems = append(problems, "dimension "+name.(string)+" is not a string member")
				}
			}
		}
		for _, m := range dir["Metrics"].([]any) {
			name := m.(map[string]any)["Name"].(string)
			if _, ok := doc[name].(float64); !ok {
				problems = append(problems, "metric "+name+" is not a number member")
			}
		}
	}
	return problems
}

func TestLinesAreEMF(t *testing.T) {
	schema := emfSchema(t)
	for _, m := range metrics.All() {
		t.Run(m.Name, func(t *testing.T) {
			dims := sampleDims(m)
			out := line(t, slog.LevelInfo, m, 42, dims...)
			var doc map[string]any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatalf("not one JSON line: %v: %s", err, out)
			}
			if err := schema.Validate(doc); err != nil {
				t.Errorf("not valid by the EMF schema: %v\n%s", err, out)
			}
			for _, p := range emfRules(doc) {
				t.Errorf("%s\n%s", p, out)
			}
			if doc[m.Name] != 42.0 {
				t.Errorf("%s = %v, want 42", m.Name, doc[m.Name])
			}
			for i, d := range m.Dimensions {
				if doc[d] != dims[i] {
					t.Errorf("dimension %s = %v, want %s", d, doc[d], dims[i])
				}
			}
			if doc["level"] != "METRIC" || doc["request_id"] != "req_1" || doc["project_id"] != "prj_1" {
				t.Errorf("level, request and project: %s", out)
			}
		})
	}
}

func TestTheSchemaRefusesWhatIsNotEMF(t *testing.T) {
	schema := emfSchema(t)
	for name, body := range map[string]string{
		"no _aws":                 `{"DeliveryAttempts":1}`,
		"no timestamp":            `{"_aws":{"CloudWatchMetrics":[{"Namespace":"Botix","Dimensions":[[]],"Metrics":[{"Name":"X"}]}]},"X":1}`,
		"no dimension set":        `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"Botix","Dimensions":[],"Metrics":[{"Name":"X"}]}]},"X":1}`,
		"a unit CloudWatch lacks": `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"Botix","Dimensions":[[]],"Metrics":[{"Name":"X","Unit":"Deliveries"}]}]},"X":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if schema.Validate(doc) == nil {
				t.Errorf("the schema accepts %s", body)
			}
		})
	}
}

func TestMetricLinesPassEveryLogLevel(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
		if out := line(t, level, metrics.DeadLetters, 1, metrics.LaneStandard); !bytes.Contains(out, []byte(`"DeadLetters":1`)) {
			t.Errorf("LOG_LEVEL %s drops the metric line: %q", level, out)
		}
	}
}

func TestEveryDimensionHasItsValues(t *testing.T) {
	for _, m := range metrics.All() {
		for _, d := range m.Dimensions {
			if len(m.Values[d]) == 0 {
				t.Errorf("%s: dimension %s lists no values (the cost table multiplies by them)", m.Name, d)
			}
		}
	}
}
