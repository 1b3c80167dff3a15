package templatecheck_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/app/registry"
)

// resourceOf names the template resource a policy Resource points at:
// !GetAtt X.Arn -> X, !Sub "${X.Arn}/index/gsi1" -> X/index/gsi1,
// !Sub "arn:...:schedule/${X}/*" -> X/*. Anything else (a literal ARN, "*")
// is returned as is and will not match a declared permission.
func resourceOf(v any) string {
	m, _ := v.(map[string]any)
	if att, ok := m["Fn::GetAtt"].([]any); ok && len(att) == 2 && att[1] == "Arn" {
		return fmt.Sprint(att[0])
	}
	if ref, ok := m["Ref"].(string); ok {
		return ref
	}
	if sub, ok := m["Fn::Sub"].(string); ok {
		for _, tok := range regexp.MustCompile(`\$\{([A-Za-z0-9]+)(\.Arn)?\}`).FindAllStringSubmatchIndex(sub, -1) {
			name := sub[tok[2]:tok[3]]
			return name + sub[tok[1]:]
		}
	}
	return fmt.Sprint(v)
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

func policyOf(t *testing.T, fn template.Function) []app.Permission {
	t.Helper()
	var out []app.Permission
	for _, pol := range asList(fn.Properties["Policies"]) {
		if pol == nil {
			continue
		}
		stmts, ok := pol.(map[string]any)["Statement"]
		if !ok {
			t.Fatalf("policy %v is not an inline statement list; managed policies are too broad to check", pol)
		}
		for _, st := range asList(stmts) {
			s := st.(map[string]any)
			if s["Effect"] != "Allow" {
				continue
			}
			for _, a := range asList(s["Action"]) {
				for _, r := range asList(s["Resource"]) {
					out = append(out, app.Permission{Action: fmt.Sprint(a), Resource: resourceOf(r)})
				}
			}
		}
	}
	return out
}

func keys(ps []app.Permission) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Action+" on "+p.Resource)
	}
	sort.Strings(out)
	return out
}

func TestPoliciesGrantExactlyWhatTheCodeCalls(t *testing.T) {
	tpl, _ := load(t)
	for id, fn := range tpl.Functions() {
		t.Run(id, func(t *testing.T) {
			declared, ok := registry.Permissions[id]
			if !ok {
				t.Fatal("registry.Permissions does not list this function's AWS calls")
			}
			granted := policyOf(t, fn)
			for _, g := range keys(granted) {
				if strings.Contains(g, "*") && !strings.HasSuffix(g, "/*") {
					t.Errorf("wildcard grant: %s", g)
				}
			}
			want, got := strings.Join(keys(declared), "\n"), strings.Join(keys(granted), "\n")
			if want != got {
				t.Errorf("template policy and the code's calls differ\ntemplate grants:\n%s\ncode calls:\n%s", got, want)
			}
		})
	}
	for id := range registry.Permissions {
		if _, ok := tpl.Functions()[id]; !ok {
			t.Errorf("registry.Permissions lists %s, which the template does not have", id)
		}
	}
}

func TestSchedulerRoleMaySendToTheDeliveryQueuesOnly(t *testing.T) {
	tpl, _ := load(t)
	role := tpl.Resources["SchedulerRole"].Properties
	var grants []string
	for _, pol := range asList(role["Policies"]) {
		doc := pol.(map[string]any)["PolicyDocument"].(map[string]any)
		for _, st := range asList(doc["Statement"]) {
			s := st.(map[string]any)
			for _, a := range asList(s["Action"]) {
				for _, r := range asList(s["Resource"]) {
					grants = append(grants, fmt.Sprint(a)+" on "+resourceOf(r))
				}
			}
		}
	}
	if strings.Join(grants, ",") != "sqs:SendMessage on DeliveryQueue,sqs:SendMessage on BulkDeliveryQueue" {
		t.Fatalf("SchedulerRole grants %v", grants)
	}
	trust := fmt.Sprint(role["AssumeRolePolicyDocument"])
	if !strings.Contains(trust, "scheduler.amazonaws.com") || !strings.Contains(trust, "aws:SourceAccount") {
		t.Fatalf("SchedulerRole trust policy: %s", trust)
	}
}

func seconds(t *testing.T, v any) time.Duration {
	t.Helper()
	switch x := v.(type) {
	case int:
		return time.Duration(x) * time.Second
	case string:
		d, err := time.ParseDuration(x)
		if err != nil {
			t.Fatalf("%q is not a duration", x)
		}
		return d
	}
	t.Fatalf("%v is not a number of seconds", v)
	return 0
}

func TestQueuesAndTimeouts(t *testing.T) {
	tpl, _ := load(t)
	fns := tpl.Functions()
	deliver := fns["DeliverFunction"]
	dlq := tpl.Resources["DeadLetterQueue"].Properties
	param := func(name string) time.Duration { return seconds(t, tpl.Parameters[name]["Default"]) }

	if c, r := param("WebhookConnectTimeout"), param("WebhookReadTimeout"); deliver.Timeout() <= c+r {
		t.Errorf("deliver timeout %s must exceed connect %s + read %s", deliver.Timeout(), c, r)
	}
	// Both lanes are delivery queues: the same timeouts, dead letters and
	// encryption.
	for _, id := range []string{"DeliveryQueue", "BulkDeliveryQueue"} {
		q := tpl.Resources[id].Properties
		if vis := seconds(t, q["VisibilityTimeout"]); vis < 6*deliver.Timeout() {
			t.Errorf("%s visibility %s < 6 x deliver timeout %s", id, vis, deliver.Timeout())
		}
		rp, _ := q["RedrivePolicy"].(map[string]any)
		if resourceOf(rp["deadLetterTargetArn"]) != "DeadLetterQueue" || rp["maxReceiveCount"] == nil {
			t.Errorf("%s redrive policy %v", id, rp)
		}
		src, dl := seconds(t, q["MessageRetentionPeriod"]), seconds(t, dlq["MessageRetentionPeriod"])
		if dl < 14*24*time.Hour || dl <= src {
			t.Errorf("DLQ retention %s must be >= 14 days and longer than %s's %s", dl, id, src)
		}
	}
	for _, id := range []string{"DeliveryQueue", "BulkDeliveryQueue", "DeadLetterQueue"} {
		if tpl.Resources[id].Properties["SqsManagedSseEnabled"] != true {
			t.Errorf("%s is not encrypted", id)
		}
	}
}

func event(t *testing.T, fn template.Function, typ string) template.Event {
	t.Helper()
	for _, e := range fn.Events() {
		if e.Type == typ {
			return e
		}
	}
	t.Fatalf("%s has no %s event source", fn.LogicalID, typ)
	return template.Event{}
}

func TestEventSources(t *testing.T) {
	tpl, _ := load(t)
	fns := tpl.Functions()
	partial := func(e template.Event) bool {
		return strings.Contains(fmt.Sprint(e.Properties["FunctionResponseTypes"]), "ReportBatchItemFailures")
	}

	dispatch := event(t, fns["DispatchFunction"], "DynamoDB")
	if !partial(dispatch) || dispatch.Properties["BisectBatchOnFunctionError"] != true || dispatch.Properties["MaximumRetryAttempts"] == nil {
		t.Errorf("dispatch source %v", dispatch.Properties)
	}
	filter := fmt.Sprint(dispatch.Properties["FilterCriteria"])
	for _, want := range []string{`"INSERT"`, `"event"`, `"delivery_request"`} {
		if !strings.Contains(filter, want) {
			t.Errorf("dispatch filter %s lacks %s", filter, want)
		}
	}
	// The deliver function consumes both lanes, the bulk lane with fewer
	// consumers than the delivery queue.
	concurrency := map[string]int{}
	for _, e := range fns["DeliverFunction"].Events() {
		if e.Type != "SQS" {
			continue
		}
		if !partial(e) || e.Properties["BatchSize"] == nil || e.Properties["MaximumBatchingWindowInSeconds"] == nil || e.Properties["ScalingConfig"] == nil {
			t.Errorf("deliver source %s: %v", e.Name, e.Properties)
		}
		n, _ := e.Properties["ScalingConfig"].(map[string]any)["MaximumConcurrency"].(int)
		concurrency[resourceOf(e.Properties["Queue"])] = n
	}
	if bulk, main := concurrency["BulkDeliveryQueue"], concurrency["DeliveryQueue"]; bulk < 2 || bulk >= main {
		t.Errorf("deliver sources' MaximumConcurrency %v: the bulk lane's must be at least SQS's 2 and below the delivery queue's", concurrency)
	}
	apply := event(t, fns["CatalogApplyFunction"], "DynamoDB")
	if !partial(apply) || !strings.Contains(fmt.Sprint(apply.Properties["FilterCriteria"]), "catalog_import") {
		t.Errorf("catalog apply source %v", apply.Properties)
	}
}

func TestAlarmsOutputsAndSecrets(t *testing.T) {
	tpl, _ := load(t)
	alarms := map[string]string{}
	for _, id := range tpl.OfType("AWS::CloudWatch::Alarm") {
		alarms[id] = fmt.Sprint(tpl.Resources[id].Properties)
	}
	for id, must := range map[string][]string{
		"DeadLetterQueueAlarm":     {"ApproximateNumberOfMessagesVisible", "DeadLetterQueue"},
		"DeliverErrorsAlarm":       {"Errors", "DeliverFunction"},
		"Api5xxRateAlarm":          {"5xx", "Count"},
		"DispatchIteratorAgeAlarm": {"IteratorAge", "DispatchFunction"},
	} {
		for _, m := range must {
			if !strings.Contains(alarms[id], m) {
				t.Errorf("alarm %s does not watch %s", id, m)
			}
		}
		if !strings.Contains(alarms[id], "AlarmTopic") {
			t.Errorf("alarm %s notifies nobody", id)
		}
	}
	for _, out := range []string{"ApiUrl", "DeadLetterQueueUrl", "RedriveFunctionName", "AdminFunctionName"} {
		if _, ok := tpl.Outputs[out]; !ok {
			t.Errorf("no output %s", out)
		}
	}
	secret := tpl.Resources["CursorSigningSecret"]
	if secret.Type != "AWS::SecretsManager::Secret" || secret.Properties["GenerateSecretString"] == nil {
		t.Error("the cursor signing secret must be generated by Secrets Manager")
	}
	for id, fn := range tpl.Functions() {
		if v, ok := fn.Environment()["CURSOR_SIGNING_KEYS"]; ok && !strings.Contains(fmt.Sprint(v), "{{resolve:secretsmanager:") {
			t.Errorf("%s gets CURSOR_SIGNING_KEYS from a literal", id)
		}
	}
}
