package deploycheck

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	cfntypes "github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/infra/tools/awstools"
)

const (
	stackName = "botix"
	region    = "us-east-1"
	// Where the functions' code is uploaded in moto's S3: the stand-up is
	// about the resources, so one small zip stands for every binary, as
	// `sam package` would have uploaded them.
	codeBucket, codeKey = "deploy-artifacts", "functions.zip"
)

// notInMoto lists the resource types of the translated stack that moto's
// CloudFormation cannot create, with the reason. The test removes only
// these from the stack it submits (a Ref to one becomes a parameter of the
// same name, so that what names it is still created), cfn-lint's schema
// check stands for them, and the probe stack fails the test when moto
// starts creating one (or stops creating another type).
var notInMoto = map[string]string{
	"AWS::ApiGatewayV2::Api":          "moto 5.2.5: not supported by moto's CloudFormation implementation (it has the API Gateway v2 API, not the resource)",
	"AWS::ApiGatewayV2::Stage":        "moto 5.2.5: not supported by moto's CloudFormation implementation",
	"AWS::CloudWatch::Alarm":          "moto 5.2.5: not supported by moto's CloudFormation implementation (it has PutMetricAlarm, not the resource)",
	"AWS::CloudWatch::CompositeAlarm": "moto 5.2.5: not supported by moto's CloudFormation implementation",
	"AWS::Scheduler::ScheduleGroup":   "moto 5.2.5: not supported by moto's CloudFormation implementation; the test creates the group with moto's Scheduler API instead",
	"AWS::SecretsManager::Secret":     "moto 5.2.5: not supported by moto's CloudFormation implementation",
}

// ignoredByMoto lists properties that moto's CloudFormation accepts but
// does not apply (its API then answers its default): for these the local
// runtime is compared with the translated template instead, and the test
// fails when moto starts applying one (so the list cannot go stale).
var ignoredByMoto = map[string]string{
	"AWS::Lambda::Function.Architectures":                   "moto 5.2.5: GetFunctionConfiguration answers [x86_64] whatever the template says",
	"AWS::DynamoDB::Table.TimeToLiveSpecification":          "moto 5.2.5: DescribeTimeToLive answers DISABLED",
	"AWS::DynamoDB::Table.PointInTimeRecoverySpecification": "moto 5.2.5: DescribeContinuousBackups answers point-in-time recovery DISABLED",
}

// notSupportedLine is what moto's server prints for each resource type its
// CloudFormation skips (the stack is still CREATE_COMPLETE).
var notSupportedLine = regexp.MustCompile(`Tried to parse (\S+) but it's not supported by moto's CloudFormation implementation`)

// TestStackStandsUpInMoto transforms template.yaml with the SAM translator
// (the transform CloudFormation applies at deploy), creates the stack in
// moto's server, and asserts that what the local runtime builds equals what
// the translated template declares: tables, queues, functions, event
// source mappings, the schedule group and the alarms' dimensions. It
// needs DynamoDB Local: go run ./infra/run/with-dynamodb -- go test -run
// TestStackStandsUpInMoto ./infra/checks/deploycheck/
func TestStackStandsUpInMoto(t *testing.T) {
	ctx := context.Background()
	dir := awstools.Dir(t)
	translated, translatedPath := translate(t, dir)
	linted := lint(t, dir, translatedPath) // the slowest step: it runs while the stack stands up

	moto := awstools.StartMoto(t)
	cfg := localtest.AWSConfigAt(t, moto.URL)
	uploadCode(t, ctx, cfg)
	cfn := cloudformation.NewFromConfig(cfg)

	// The probe: the translated template as it is. moto skips the types
	// it lacks and says so, once per type; that set must be notInMoto's.
	createStack(t, ctx, cfn, "probe", submittable(translated, nil))
	skipped := map[string]bool{}
	for _, m := range notSupportedLine.FindAllStringSubmatch(moto.Output(), -1) {
		skipped[m[1]] = true
	}
	for _, typ := range slices.Sorted(maps.Keys(skipped)) {
		if _, ok := notInMoto[typ]; !ok {
			t.Errorf("moto's CloudFormation cannot create %s: add it to notInMoto with moto's reason", typ)
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(notInMoto)) {
		switch {
		case !hasType(translated, typ):
			t.Errorf("the stack has no %s any more: take it off notInMoto", typ)
		case !skipped[typ]:
			t.Errorf("moto's CloudFormation now creates %s: take it off notInMoto and compare it", typ)
		}
	}

	// The stack: without the types moto lacks, each of them replaced by a
	// parameter holding what its Ref would be.
	stand := newMotoStack(t, ctx, cfg, translated)
	createStack(t, ctx, cfn, stackName, submittable(translated, stand.replaced))
	stand.load(t, ctx, cfn)
	stand.assertAllCreated(t)

	rt := localtest.Runtime(t, local.Config{})
	cmp := comparison{translated: translated, moto: stand, rt: rt, local: localtest.AWSConfig(t, rt)}
	t.Run("tables", cmp.tables)
	t.Run("queues", cmp.queues)
	t.Run("functions", cmp.functions)
	t.Run("event sources", cmp.eventSources)
	t.Run("schedule group", cmp.scheduleGroup)
	t.Run("alarms", cmp.alarms)
	t.Run("cfn-lint passes the translated template", func(t *testing.T) {
		if findings := <-linted; findings != "" {
			t.Error(findings)
		}
	})
}

// translate runs translate.py on template.yaml; it returns the translated
// template and the file it is written to.
func translate(t *testing.T, dir string) (map[string]any, string) {
	t.Helper()
	root, err := template.Root()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(awstools.Python(dir), filepath.Join(root, "infra", "checks", "deploycheck", "translate.py"),
		filepath.Join(root, "template.yaml"), "s3://"+codeBucket+"/"+codeKey, region)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("translate.py: %v\n%s", err, stderr.String())
	}
	path := filepath.Join(t.TempDir(), "translated.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	var tpl map[string]any
	if err := json.Unmarshal(out, &tpl); err != nil {
		t.Fatal(err)
	}
	return tpl, path
}

// lint starts cfn-lint on the translated template: its schema check is
// what vouches for the resources moto cannot create. The channel gets its
// findings ("" for none).
func lint(t *testing.T, dir, path string) <-chan string {
	t.Helper()
	root, err := template.Root()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		cmd := exec.Command(awstools.Bin(dir, "cfn-lint"), "--format", "parseable", "--", path)
		cmd.Dir = root // the project's .cfnlintrc, if any, applies
		out, err := cmd.CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			done <- fmt.Sprintf("cfn-lint on the translated template (%v):\n%s", err, out)
			return
		}
		done <- ""
	}()
	return done
}

func hasType(tpl map[string]any, typ string) bool {
	for _, r := range resources(tpl) {
		if asMap(r)["Type"] == typ {
			return true
		}
	}
	return false
}

// uploadCode puts one small zip where every function's Code points.
func uploadCode(t *testing.T, ctx context.Context, cfg aws.Config) {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create("bootstrap")
	if err == nil {
		_, err = w.Write([]byte("#!/bin/sh\n"))
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(codeBucket)}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(codeBucket), Key: aws.String(codeKey), Body: bytes.NewReader(b.Bytes())}); err != nil {
		t.Fatal(err)
	}
}

// submittable is the JSON of the translated template as moto is given it:
// the resources of replaced (logical id -> its Ref) become parameters of
// the same name, and Number parameters are submitted as String, because
// moto hands a Number parameter's Ref to a Lambda environment as a JSON
// number (CloudFormation gives the string; the Go SDK rejects a number).
func submittable(translated map[string]any, replaced map[string]string) string {
	var tpl map[string]any
	b, _ := json.Marshal(translated)
	_ = json.Unmarshal(b, &tpl)
	params := asMap(tpl["Parameters"])
	for _, p := range params {
		if asMap(p)["Type"] == "Number" {
			asMap(p)["Type"] = "String"
			asMap(p)["Default"] = fmt.Sprint(asMap(p)["Default"])
		}
	}
	for id, ref := range replaced {
		delete(asMap(tpl["Resources"]), id)
		params[id] = map[string]any{"Type": "String", "Default": ref}
	}
	tpl["Parameters"] = params
	b, _ = json.Marshal(tpl)
	return string(b)
}

// createStack creates a stack and waits for its end; a failure fails the
// test with every failed resource and moto's reason.
func createStack(t *testing.T, ctx context.Context, cfn *cloudformation.Client, name, body string) {
	t.Helper()
	if _, err := cfn.CreateStack(ctx, &cloudformation.CreateStackInput{
		StackName: aws.String(name), TemplateBody: aws.String(body),
		Capabilities: []cfntypes.Capability{cfntypes.CapabilityCapabilityIam, cfntypes.CapabilityCapabilityAutoExpand},
	}); err != nil {
		t.Fatalf("create stack %s: %v", name, err)
	}
	deadline := time.Now().Add(2 * time.Minute) // moto creates at once; generous for a busy machine
	for {
		out, err := cfn.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		st := out.Stacks[0]
		if st.StackStatus == cfntypes.StackStatusCreateComplete {
			return
		}
		if !strings.HasSuffix(string(st.StackStatus), "_IN_PROGRESS") || time.Now().After(deadline) {
			events, _ := cfn.DescribeStackEvents(ctx, &cloudformation.DescribeStackEventsInput{StackName: aws.String(name)})
			var failed []string
			if events != nil {
				for _, e := range events.StackEvents {
					if strings.HasSuffix(string(e.ResourceStatus), "FAILED") {
						failed = append(failed, fmt.Sprintf("%s (%s): %s", aws.ToString(e.LogicalResourceId), aws.ToString(e.ResourceType), aws.ToString(e.ResourceStatusReason)))
					}
				}
			}
			t.Fatalf("stack %s: %s %s\n%s", name, st.StackStatus, aws.ToString(st.StackStatusReason), strings.Join(failed, "\n"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// motoStack is the stack created in moto, and moto's clients.
type motoStack struct {
	translated map[string]any
	replaced   map[string]string                 // removed logical id -> its Ref
	resources  map[string]cfntypes.StackResource // logical id -> resource
	logical    map[string]string                 // physical id -> logical id
	ddb        *dynamodb.Client
	sqs        *sqs.Client
	lambda     *lambda.Client
	iam        *iam.Client
	scheduler  *scheduler.Client
	params     map[string]string
	functions  map[string]*lambda.GetFunctionConfigurationOutput // by logical id
}

// newMotoStack decides what stands for each resource moto lacks. The
// schedule group is created with moto's Scheduler API (its Ref is its
// name); the others get a placeholder, named for what it replaces.
func newMotoStack(t *testing.T, ctx context.Context, cfg aws.Config, translated map[string]any) *motoStack {
	t.Helper()
	s := &motoStack{
		translated: translated, replaced: map[string]string{},
		ddb: dynamodb.NewFromConfig(cfg), sqs: sqs.NewFromConfig(cfg), lambda: lambda.NewFromConfig(cfg),
		iam: iam.NewFromConfig(cfg), scheduler: scheduler.NewFromConfig(cfg), params: map[string]string{},
	}
	for name, p := range asMap(translated["Parameters"]) {
		s.params[name] = fmt.Sprint(asMap(p)["Default"])
	}
	for id, r := range resources(translated) {
		typ, _ := asMap(r)["Type"].(string)
		if _, ok := notInMoto[typ]; !ok {
			continue
		}
		s.replaced[id] = "not-created-" + id
		if typ == "AWS::Scheduler::ScheduleGroup" {
			name, err := s.resolver().String(asMap(asMap(r)["Properties"])["Name"])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.scheduler.CreateScheduleGroup(ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String(name)}); err != nil {
				t.Fatalf("moto's Scheduler: create group %s: %v", name, err)
			}
			s.replaced[id] = name
		}
	}
	return s
}

// load reads the stack's resources (logical and physical ids) and every
// function's configuration.
func (s *motoStack) load(t *testing.T, ctx context.Context, cfn *cloudformation.Client) {
	t.Helper()
	out, err := cfn.DescribeStackResources(ctx, &cloudformation.DescribeStackResourcesInput{StackName: aws.String(stackName)})
	if err != nil {
		t.Fatal(err)
	}
	s.resources, s.logical = map[string]cfntypes.StackResource{}, map[string]string{}
	for _, r := range out.StackResources {
		id := aws.ToString(r.LogicalResourceId)
		if id == "" {
			continue // moto lists a resource it skipped without its id
		}
		s.resources[id] = r
		s.logical[aws.ToString(r.PhysicalResourceId)] = id
	}
	s.functions = map[string]*lambda.GetFunctionConfigurationOutput{}
	for id, r := range s.resources {
		if aws.ToString(r.ResourceType) != "AWS::Lambda::Function" {
			continue
		}
		fc, err := s.lambda.GetFunctionConfiguration(ctx, &lambda.GetFunctionConfigurationInput{FunctionName: r.PhysicalResourceId})
		if err != nil {
			t.Fatalf("moto: GetFunctionConfiguration %s: %v", id, err)
		}
		s.functions[id] = fc
		s.logical[aws.ToString(fc.FunctionArn)] = id
	}
}

// assertAllCreated: every resource of the submitted template whose
// condition holds is in the stack, created.
func (s *motoStack) assertAllCreated(t *testing.T) {
	t.Helper()
	res := s.resolver()
	res.Conditions = asMap(s.translated["Conditions"])
	for _, id := range slices.Sorted(maps.Keys(resources(s.translated))) {
		r := asMap(resources(s.translated)[id])
		if _, ok := s.replaced[id]; ok {
			continue
		}
		if c, ok := r["Condition"].(string); ok {
			if holds, err := res.Condition(c); err != nil {
				t.Fatal(err)
			} else if !holds {
				continue
			}
		}
		got, ok := s.resources[id]
		if !ok {
			t.Errorf("%s (%s): not in moto's stack", id, r["Type"])
			continue
		}
		if got.ResourceStatus != cfntypes.ResourceStatusCreateComplete || aws.ToString(got.ResourceType) != r["Type"] {
			t.Errorf("%s: %s %s in moto, want %s CREATE_COMPLETE", id, aws.ToString(got.ResourceType), got.ResourceStatus, r["Type"])
		}
	}
}

// resolver evaluates the translated template's expressions as moto
// created the stack: a Ref is the physical id, an attribute is read from
// the service's API. moto resolves no dynamic reference: it keeps the
// text, and so does this resolver.
func (s *motoStack) resolver() template.Resolver {
	ctx := context.Background()
	return template.Resolver{
		Ref: func(name string) (string, error) {
			switch name {
			case "AWS::Region":
				return region, nil
			case "AWS::StackName":
				return stackName, nil
			case "AWS::Partition":
				return "aws", nil
			case "AWS::URLSuffix":
				return "amazonaws.com", nil
			}
			if v, ok := s.replaced[name]; ok {
				return v, nil
			}
			if v, ok := s.params[name]; ok {
				return v, nil
			}
			if r, ok := s.resources[name]; ok {
				return aws.ToString(r.PhysicalResourceId), nil
			}
			return "", fmt.Errorf("moto: no Ref for %s", name)
		},
		GetAtt: func(res, attr string) (string, error) {
			r, ok := s.resources[res]
			if !ok {
				return "", fmt.Errorf("moto: no resource %s", res)
			}
			phys := r.PhysicalResourceId
			switch typ := aws.ToString(r.ResourceType) + "." + attr; typ {
			case "AWS::SQS::Queue.Arn", "AWS::SQS::Queue.QueueName":
				out, err := s.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: phys, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
				if err != nil {
					return "", err
				}
				arn := out.Attributes["QueueArn"]
				if attr == "QueueName" {
					return arn[strings.LastIndex(arn, ":")+1:], nil
				}
				return arn, nil
			case "AWS::DynamoDB::Table.Arn", "AWS::DynamoDB::Table.StreamArn":
				out, err := s.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: phys})
				if err != nil {
					return "", err
				}
				if attr == "Arn" {
					return aws.ToString(out.Table.TableArn), nil
				}
				return aws.ToString(out.Table.LatestStreamArn), nil
			case "AWS::IAM::Role.Arn":
				out, err := s.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: phys})
				if err != nil {
					return "", err
				}
				return aws.ToString(out.Role.Arn), nil
			case "AWS::Lambda::Function.Arn":
				return aws.ToString(s.functions[res].FunctionArn), nil
			default:
				return "", fmt.Errorf("moto: the test reads no %s", typ)
			}
		},
		Dynamic: func(ref string) (string, error) { return "{{resolve:" + ref + "}}", nil },
	}
}

// comparison compares the local runtime with the translated template, as
// moto created it where moto can.
type comparison struct {
	translated map[string]any
	moto       *motoStack
	rt         *local.Runtime
	local      aws.Config
}

func (c comparison) ofType(typ string) []string {
	var ids []string
	for id, r := range resources(c.translated) {
		if asMap(r)["Type"] == typ {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

func (c comparison) props(id string) map[string]any {
	return asMap(asMap(resources(c.translated)[id])["Properties"])
}

// tables: DescribeTable in DynamoDB Local and in moto agree on keys,
// attributes, indexes with their projections, the stream and the billing
// mode; TTL (which moto does not apply) is compared with the template.
func (c comparison) tables(t *testing.T) {
	ctx := context.Background()
	localDB := c.rt.DynamoDB()
	for _, id := range c.ofType("AWS::DynamoDB::Table") {
		localName, ok := c.rt.Tables()[id]
		if !ok {
			t.Errorf("%s: the local runtime has no such table", id)
			continue
		}
		lt, err := localDB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(localName)})
		if err != nil {
			t.Fatal(err)
		}
		mt, err := c.moto.ddb.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: c.moto.resources[id].PhysicalResourceId})
		if err != nil {
			t.Fatal(err)
		}
		want, got := tableShape(mt.Table), tableShape(lt.Table)
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if want[k] != got[k] {
				t.Errorf("%s.%s: local %s, moto (the translated template) %s", id, k, got[k], want[k])
			}
		}
		lttl, err := localDB.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(localName)})
		if err != nil {
			t.Fatal(err)
		}
		spec := asMap(c.props(id)["TimeToLiveSpecification"])
		wantTTL := ""
		if spec["Enabled"] == true {
			wantTTL = fmt.Sprint(spec["AttributeName"])
		}
		gotTTL := ""
		if d := lttl.TimeToLiveDescription; d != nil && d.TimeToLiveStatus == ddbtypes.TimeToLiveStatusEnabled {
			gotTTL = aws.ToString(d.AttributeName)
		}
		if gotTTL != wantTTL {
			t.Errorf("%s.TimeToLiveSpecification: local TTL attribute %q, translated template %q", id, gotTTL, wantTTL)
		}
		// Each property moto ignores is watched, so that ignoredByMoto
		// cannot go stale.
		mttl, err := c.moto.ddb.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: c.moto.resources[id].PhysicalResourceId})
		if err != nil {
			t.Fatal(err)
		}
		if wantTTL != "" && mttl.TimeToLiveDescription.TimeToLiveStatus == ddbtypes.TimeToLiveStatusEnabled {
			t.Errorf("moto now applies %s.TimeToLiveSpecification: compare TTL with moto, and take it off ignoredByMoto (%s)", id, ignoredByMoto["AWS::DynamoDB::Table.TimeToLiveSpecification"])
		}
		mpitr, err := c.moto.ddb.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: c.moto.resources[id].PhysicalResourceId})
		if err != nil {
			t.Fatal(err)
		}
		if d := mpitr.ContinuousBackupsDescription.PointInTimeRecoveryDescription; asMap(c.props(id)["PointInTimeRecoverySpecification"])["PointInTimeRecoveryEnabled"] == true &&
			d != nil && d.PointInTimeRecoveryStatus == ddbtypes.PointInTimeRecoveryStatusEnabled {
			t.Errorf("moto now applies %s.PointInTimeRecoverySpecification: take it off ignoredByMoto (%s)", id, ignoredByMoto["AWS::DynamoDB::Table.PointInTimeRecoverySpecification"])
		}
	}
}

// tableShape is what the test compares of a table, as strings by name.
func tableShape(d *ddbtypes.TableDescription) map[string]string {
	out := map[string]string{"KeySchema": keys(d.KeySchema)}
	var attrs []string
	for _, a := range d.AttributeDefinitions {
		attrs = append(attrs, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
	}
	sort.Strings(attrs)
	out["AttributeDefinitions"] = strings.Join(attrs, " ")
	for _, g := range d.GlobalSecondaryIndexes {
		out["GlobalSecondaryIndexes."+aws.ToString(g.IndexName)] = keys(g.KeySchema) + " " + projection(g.Projection)
	}
	for _, l := range d.LocalSecondaryIndexes {
		out["LocalSecondaryIndexes."+aws.ToString(l.IndexName)] = keys(l.KeySchema) + " " + projection(l.Projection)
	}
	out["StreamSpecification"] = "disabled"
	if s := d.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		out["StreamSpecification"] = string(s.StreamViewType)
	}
	out["BillingMode"] = "PROVISIONED"
	if d.BillingModeSummary != nil {
		out["BillingMode"] = string(d.BillingModeSummary.BillingMode)
	}
	return out
}

func keys(ks []ddbtypes.KeySchemaElement) string {
	var s []string
	for _, k := range ks {
		s = append(s, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	return strings.Join(s, ",")
}

func projection(p *ddbtypes.Projection) string {
	if p == nil {
		return "projection:none"
	}
	nk := slices.Clone(p.NonKeyAttributes)
	sort.Strings(nk)
	return "projection:" + string(p.ProjectionType) + strings.Join(nk, ",")
}

// queueAttributes are the attributes compared: what the template sets and
// what a consumer's behaviour depends on.
var queueAttributes = []string{"VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "ReceiveMessageWaitTimeSeconds", "MaximumMessageSize", "SqsManagedSseEnabled"}

// queues: GetQueueAttributes at the local AWS endpoint and in moto agree;
// a redrive policy's target is compared by logical resource.
func (c comparison) queues(t *testing.T) {
	ctx := context.Background()
	localSQS := sqs.NewFromConfig(c.local)
	all := []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameAll}
	for _, id := range c.ofType("AWS::SQS::Queue") {
		localURL, err := c.rt.Resolve(map[string]any{"Ref": id})
		if err != nil {
			t.Fatal(err)
		}
		la, err := localSQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(localURL), AttributeNames: all})
		if err != nil {
			t.Fatalf("%s: local GetQueueAttributes: %v", id, err)
		}
		ma, err := c.moto.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: c.moto.resources[id].PhysicalResourceId, AttributeNames: all})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range queueAttributes {
			if la.Attributes[a] != ma.Attributes[a] {
				t.Errorf("%s.%s: local %q, moto %q", id, a, la.Attributes[a], ma.Attributes[a])
			}
		}
		lr, mr := c.redrive(t, la.Attributes["RedrivePolicy"], c.localQueueIDs(t)), c.redrive(t, ma.Attributes["RedrivePolicy"], c.motoQueueIDs(t))
		if lr != mr {
			t.Errorf("%s.RedrivePolicy: local %s, moto %s", id, lr, mr)
		}
	}
}

// redrive renders a redrive policy with its target's logical id.
func (c comparison) redrive(t *testing.T, policy string, byARN map[string]string) string {
	if policy == "" {
		return "none"
	}
	var p struct {
		Target string `json:"deadLetterTargetArn"`
		Max    any    `json:"maxReceiveCount"` // a number in moto, a string locally: both are accepted by SQS
	}
	if err := json.Unmarshal([]byte(policy), &p); err != nil {
		t.Fatalf("redrive policy %s: %v", policy, err)
	}
	target, ok := byARN[p.Target]
	if !ok {
		target = "unknown queue " + p.Target
	}
	return fmt.Sprintf("to %s after %v receives", target, p.Max)
}

func (c comparison) localQueueIDs(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, id := range c.ofType("AWS::SQS::Queue") {
		arn, err := c.rt.Resolve(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
		if err != nil {
			t.Fatal(err)
		}
		out[arn] = id
	}
	return out
}

func (c comparison) motoQueueIDs(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, id := range c.ofType("AWS::SQS::Queue") {
		arn, err := c.moto.resolver().String(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
		if err != nil {
			t.Fatal(err)
		}
		out[arn] = id
	}
	return out
}

// lambdaProvided are the variables the local runtime adds to every
// function's environment itself: what Lambda provides (region, credentials,
// the function's name) and the local services' endpoints.
var lambdaProvided = []string{"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_LAMBDA_FUNCTION_NAME",
	"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS", "AWS_ENDPOINT_URL_SCHEDULER"}

// functions: each function of the translated template is one the runtime
// runs, with moto's memory and timeout, and the same environment variable
// names; each value is what the translated template's expression resolves
// to, in moto (where moto resolves it) and in the local runtime. The
// architecture, which moto ignores, and the runtime and handler, which
// the local runtime does not use (it runs the Go handlers in process), are
// compared with the translated template.
func (c comparison) functions(t *testing.T) {
	motoRes := c.moto.resolver()
	ids := c.ofType("AWS::Lambda::Function")
	if len(ids) == 0 {
		t.Fatal("no function in the translated template")
	}
	for _, id := range ids {
		p := c.props(id)
		fc := c.moto.functions[id]
		local, ok := c.rt.Function(id)
		if !ok || fc == nil {
			t.Errorf("%s: local runtime has it %v, moto has it %v", id, ok, fc != nil)
			continue
		}
		checks := []struct{ prop, local, moto, template string }{
			{"MemorySize", strconv.Itoa(local.MemorySize()), fmt.Sprint(aws.ToInt32(fc.MemorySize)), num(p["MemorySize"], "128")},
			{"Timeout", strconv.Itoa(int(c.rt.FunctionTimeout(id) / time.Second)), fmt.Sprint(aws.ToInt32(fc.Timeout)), num(p["Timeout"], "3")},
			{"Architectures", local.Architecture(), "", fmt.Sprint(asSlice(p["Architectures"])...)},
			{"Runtime", "", string(fc.Runtime), fmt.Sprint(p["Runtime"])},
			{"Handler", "", aws.ToString(fc.Handler), fmt.Sprint(p["Handler"])},
		}
		for _, ch := range checks {
			if ch.local != "" && ch.local != ch.template {
				t.Errorf("%s.%s: local %s, translated template %s", id, ch.prop, ch.local, ch.template)
			}
			if ch.moto != "" && ch.moto != ch.template {
				t.Errorf("%s.%s: moto %s, translated template %s", id, ch.prop, ch.moto, ch.template)
			}
		}
		if arch := fc.Architectures; len(arch) == 1 && string(arch[0]) == fmt.Sprint(asSlice(p["Architectures"])...) && arch[0] != lambdatypes.ArchitectureX8664 {
			t.Errorf("moto now applies %s.Architectures: compare it with moto, and take it off ignoredByMoto (%s)", id, ignoredByMoto["AWS::Lambda::Function.Architectures"])
		}

		declared := asMap(asMap(p["Environment"])["Variables"])
		var motoEnv map[string]string
		if fc.Environment != nil {
			motoEnv = fc.Environment.Variables
		}
		localEnv := c.rt.EnvMap(id)
		for _, k := range lambdaProvided {
			delete(localEnv, k)
		}
		want := slices.Sorted(maps.Keys(declared))
		if got := slices.Sorted(maps.Keys(localEnv)); !slices.Equal(got, want) {
			t.Errorf("%s: local environment names %v, translated template %v", id, got, want)
		}
		if got := slices.Sorted(maps.Keys(motoEnv)); !slices.Equal(got, want) {
			t.Errorf("%s: moto's environment names %v, translated template %v", id, got, want)
		}
		for _, k := range want {
			if v, err := motoRes.String(declared[k]); err != nil {
				t.Errorf("%s.Environment.%s: %v", id, k, err)
			} else if motoEnv[k] != v {
				t.Errorf("%s.Environment.%s: moto %q, translated template resolved in moto %q", id, k, motoEnv[k], v)
			}
			if v, err := c.rt.Resolve(declared[k]); err != nil {
				t.Errorf("%s.Environment.%s: %v", id, k, err)
			} else if localEnv[k] != v {
				t.Errorf("%s.Environment.%s: local %q, translated template resolved locally %q", id, k, localEnv[k], v)
			}
		}
	}
}

// num renders a template number (JSON float64) or its default.
func num(v any, def string) string {
	if v == nil {
		return def
	}
	return fmt.Sprint(v)
}

// eventSource is an event source mapping reduced to what is compared.
type eventSource struct {
	StartingPosition        string
	BatchSize               int
	MaximumRetryAttempts    int
	MaximumConcurrency      int
	ParallelizationFactor   int
	ReportBatchItemFailures bool
	Filters                 string // the patterns, parsed and marshalled again
}

// eventSources: moto's ListEventSourceMappings and the runtime's stream
// and queue pollers agree, mapping by mapping (function and source by
// logical id). What the runtime does not play (the batching window,
// bisecting a failed batch) is compared
// between moto and the translated template.
func (c comparison) eventSources(t *testing.T) {
	ctx := context.Background()
	fromMoto := map[string]eventSource{}
	sourceIDs := c.motoQueueIDs(t)
	for _, id := range c.ofType("AWS::DynamoDB::Table") {
		if arn, err := c.moto.resolver().String(map[string]any{"Fn::GetAtt": []any{id, "StreamArn"}}); err == nil && arn != "" {
			sourceIDs[arn] = id
		}
	}
	p := lambda.NewListEventSourceMappingsPaginator(c.moto.lambda, &lambda.ListEventSourceMappingsInput{})
	declared := c.ofType("AWS::Lambda::EventSourceMapping")
	var seen int
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.EventSourceMappings {
			fn, src := c.moto.logical[aws.ToString(m.FunctionArn)], sourceIDs[aws.ToString(m.EventSourceArn)]
			if fn == "" || src == "" {
				continue // the probe stack's
			}
			seen++
			key := fn + " <- " + src
			es := eventSource{StartingPosition: string(m.StartingPosition), BatchSize: int(aws.ToInt32(m.BatchSize)),
				ReportBatchItemFailures: slices.Contains(m.FunctionResponseTypes, lambdatypes.FunctionResponseTypeReportBatchItemFailures)}
			if m.MaximumRetryAttempts != nil {
				es.MaximumRetryAttempts = int(*m.MaximumRetryAttempts)
			}
			if m.ScalingConfig != nil {
				es.MaximumConcurrency = int(aws.ToInt32(m.ScalingConfig.MaximumConcurrency))
			}
			if m.EventSourceArn != nil && strings.Contains(aws.ToString(m.EventSourceArn), ":dynamodb:") {
				es.ParallelizationFactor = max(1, int(aws.ToInt32(m.ParallelizationFactor))) // moto leaves Lambda's default, 1, out
			}
			if m.FilterCriteria != nil {
				var pats []string
				for _, f := range m.FilterCriteria.Filters {
					pats = append(pats, aws.ToString(f.Pattern))
				}
				es.Filters = patterns(t, pats)
			}
			fromMoto[key] = es
			// What the runtime does not play: moto against the template.
			decl := c.esmDeclared(t, declared, fn, src)
			for _, ch := range []struct{ prop, moto, def string }{
				{"MaximumBatchingWindowInSeconds", fmt.Sprint(aws.ToInt32(m.MaximumBatchingWindowInSeconds)), "0"},
				{"BisectBatchOnFunctionError", fmt.Sprint(aws.ToBool(m.BisectBatchOnFunctionError)), "false"},
			} {
				want, got := ch.def, ch.moto
				if v, ok := decl[ch.prop]; ok {
					want = fmt.Sprint(v)
				}
				if got != want {
					t.Errorf("%s.%s: moto %s, translated template %s", key, ch.prop, got, want)
				}
			}
		}
	}
	if seen != len(declared) {
		t.Errorf("moto has %d event source mappings of the stack, the translated template %d", seen, len(declared))
	}
	fromRuntime := map[string]eventSource{}
	for _, e := range c.rt.EventSources() {
		var pats []string
		for _, f := range e.Filters {
			b, _ := json.Marshal(f)
			pats = append(pats, string(b))
		}
		es := eventSource{StartingPosition: e.StartingPosition, BatchSize: e.BatchSize, MaximumRetryAttempts: e.MaximumRetryAttempts,
			MaximumConcurrency: e.MaximumConcurrency, ParallelizationFactor: e.ParallelizationFactor, ReportBatchItemFailures: e.ReportBatchItemFailures}
		if len(pats) > 0 {
			es.Filters = patterns(t, pats)
		}
		fromRuntime[e.Function+" <- "+e.Source] = es
	}
	for _, key := range slices.Sorted(maps.Keys(fromMoto)) {
		got, ok := fromRuntime[key]
		if !ok {
			t.Errorf("%s: in moto, not in the local runtime", key)
			continue
		}
		want := fromMoto[key]
		gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
		for i := range gv.NumField() {
			if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
				t.Errorf("%s.%s: local %v, moto %v", key, gv.Type().Field(i).Name, gv.Field(i).Interface(), wv.Field(i).Interface())
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(fromRuntime)) {
		if _, ok := fromMoto[key]; !ok {
			t.Errorf("%s: in the local runtime, not in moto", key)
		}
	}
}

// esmDeclared is the translated template's mapping of fn from src.
func (c comparison) esmDeclared(t *testing.T, ids []string, fn, src string) map[string]any {
	for _, id := range ids {
		p := c.props(id)
		ref := asMap(p["FunctionName"])["Ref"]
		att := asSlice(asMap(p["EventSourceArn"])["Fn::GetAtt"])
		if ref == fn && len(att) == 2 && att[0] == src {
			return p
		}
	}
	t.Fatalf("no event source mapping of %s from %s in the translated template", fn, src)
	return nil
}

// patterns normalises filter patterns: parsed and marshalled again
// (sorted keys), then sorted.
func patterns(t *testing.T, raw []string) string {
	var out []string
	for _, r := range raw {
		var v any
		if err := json.Unmarshal([]byte(r), &v); err != nil {
			t.Fatalf("filter pattern %s: %v", r, err)
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return strings.Join(out, " | ")
}

// scheduleGroup: each schedule group of the translated template exists at
// the local AWS endpoint, named as its Name resolves locally (moto's
// CloudFormation lacks the type: the test created it with moto's API).
func (c comparison) scheduleGroup(t *testing.T) {
	ctx := context.Background()
	localSched := scheduler.NewFromConfig(c.local)
	for _, id := range c.ofType("AWS::Scheduler::ScheduleGroup") {
		name, err := c.rt.Resolve(c.props(id)["Name"])
		if err != nil {
			t.Fatal(err)
		}
		ref, err := c.rt.Resolve(map[string]any{"Ref": id})
		if err != nil {
			t.Fatal(err)
		}
		if ref != name {
			t.Errorf("%s: local Ref %q, its Name %q (a schedule group's Ref is its name)", id, ref, name)
		}
		out, err := localSched.GetScheduleGroup(ctx, &scheduler.GetScheduleGroupInput{Name: aws.String(name)})
		if err != nil {
			t.Errorf("%s: local GetScheduleGroup %s: %v", id, name, err)
			continue
		}
		if out.State != "ACTIVE" {
			t.Errorf("%s: local state %s", id, out.State)
		}
		if _, err := c.moto.scheduler.GetScheduleGroup(ctx, &scheduler.GetScheduleGroupInput{Name: aws.String(c.moto.replaced[id])}); err != nil {
			t.Errorf("%s: moto GetScheduleGroup: %v", id, err)
		}
	}
}

// alarms: moto's CloudFormation lacks alarms and the local runtime does
// not model them, so cfn-lint's check of the translated template stands
// for their properties. What is checked here: each dimension of each
// alarm (and of each metric of a metric-math alarm) names a resource of
// the stack of the kind the metric's namespace measures.
func (c comparison) alarms(t *testing.T) {
	kinds := map[string]string{
		"QueueName":    "AWS::SQS::Queue",
		"FunctionName": "AWS::Lambda::Function",
		"ApiId":        "AWS::ApiGatewayV2::Api",
	}
	ids := c.ofType("AWS::CloudWatch::Alarm")
	if len(ids) == 0 {
		t.Fatal("no alarm in the translated template")
	}
	for _, id := range ids {
		p := c.props(id)
		dims := asSlice(p["Dimensions"])
		for _, m := range asSlice(p["Metrics"]) {
			dims = append(dims, asSlice(asMap(asMap(asMap(m)["MetricStat"])["Metric"])["Dimensions"])...)
		}
		if len(dims) == 0 {
			t.Errorf("%s: no dimension", id)
		}
		for _, d := range dims {
			if _, literal := asMap(d)["Value"].(string); literal {
				// A dimension of our own metrics (Lane: standard): which
				// values they take is infra/checks/templatecheck's to check.
				continue
			}
			name, value := fmt.Sprint(asMap(d)["Name"]), asMap(asMap(d)["Value"])
			target := ""
			if ref, ok := value["Ref"].(string); ok {
				target = ref
			} else if att := asSlice(value["Fn::GetAtt"]); len(att) == 2 {
				target = fmt.Sprint(att[0])
			}
			typ := asMap(resources(c.translated)[target])["Type"]
			if want, ok := kinds[name]; !ok || typ != want {
				t.Errorf("%s: dimension %s names %q (%v), want a resource of type %s", id, name, target, typ, kinds[name])
			}
		}
	}
}

func resources(tpl map[string]any) map[string]any { return asMap(tpl["Resources"]) }

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}
