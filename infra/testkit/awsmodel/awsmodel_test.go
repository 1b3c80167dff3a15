package awsmodel

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/tools/awstools"
)

// jsonModel is a small AWS JSON service with one shape for each rule.
const jsonModel = `{
 "metadata": {"protocol": "json", "serviceId": "Test", "targetPrefix": "Test_2020", "endpointPrefix": "test"},
 "operations": {
  "Send": {"name": "Send", "http": {"method": "POST", "requestUri": "/"},
   "input": {"shape": "SendInput"}, "output": {"shape": "SendOutput"}, "errors": [{"shape": "NotFound"}, {"shape": "Bare"}]},
  "Ping": {"name": "Ping", "http": {"method": "POST", "requestUri": "/"}}
 },
 "shapes": {
  "SendInput": {"type": "structure", "required": ["Queue", "Entries"], "members": {
   "Queue": {"shape": "Name"}, "Entries": {"shape": "EntryList"}, "Count": {"shape": "Count"},
   "Ratio": {"shape": "Ratio"}, "Flag": {"shape": "Bool"}, "At": {"shape": "Time"}, "Data": {"shape": "Data"},
   "Attrs": {"shape": "AttrMap"}, "Color": {"shape": "Color"}}},
  "Name": {"type": "string", "min": 1, "max": 8, "pattern": "^[a-z]+$"},
  "EntryList": {"type": "list", "member": {"shape": "Entry"}, "min": 1, "max": 2},
  "Entry": {"type": "structure", "required": ["Body"], "members": {"Body": {"shape": "Body"}}},
  "Body": {"type": "string", "min": 1},
  "Count": {"type": "integer", "min": 1, "max": 10},
  "Ratio": {"type": "double", "min": 0, "max": 1},
  "Bool": {"type": "boolean"},
  "Time": {"type": "timestamp"},
  "Data": {"type": "blob", "max": 3},
  "AttrMap": {"type": "map", "key": {"shape": "Name"}, "value": {"shape": "Body"}, "max": 1},
  "Color": {"type": "string", "enum": ["red", "green"]},
  "SendOutput": {"type": "structure", "members": {"Id": {"shape": "Name"}}},
  "NotFound": {"type": "structure", "members": {"message": {"shape": "Body"}}, "exception": true},
  "Bare": {"type": "structure", "members": {}, "exception": true}
 }
}`

// restModel is a small REST-JSON service: members in the URI, the query
// string, headers, the body, a raw payload, the status.
const restModel = `{
 "metadata": {"protocol": "rest-json", "serviceId": "Rest", "endpointPrefix": "rest"},
 "operations": {
  "GetThing": {"name": "GetThing", "http": {"method": "GET", "requestUri": "/things/{Name}"},
   "input": {"shape": "GetThingInput"}, "output": {"shape": "GetThingOutput"}, "errors": [{"shape": "Missing"}]},
  "PutThing": {"name": "PutThing", "http": {"method": "PUT", "requestUri": "/things/{Name}", "responseCode": 204},
   "input": {"shape": "PutThingInput"}},
  "InvokeThing": {"name": "InvokeThing", "http": {"method": "POST", "requestUri": "/things/{Name}/invoke"},
   "input": {"shape": "InvokeInput"}, "output": {"shape": "InvokeOutput"}}
 },
 "shapes": {
  "GetThingInput": {"type": "structure", "required": ["Name"], "members": {
   "Name": {"shape": "Name", "location": "uri", "locationName": "Name"},
   "Max": {"shape": "Count", "location": "querystring", "locationName": "max"},
   "Mode": {"shape": "Color", "location": "header", "locationName": "X-Mode"}}},
  "GetThingOutput": {"type": "structure", "members": {
   "Name": {"shape": "Name"}, "ETag": {"shape": "Name", "location": "header", "locationName": "X-ETag"}}},
  "PutThingInput": {"type": "structure", "required": ["Name", "Body"], "members": {
   "Name": {"shape": "Name", "location": "uri", "locationName": "Name"}, "Body": {"shape": "Body"}}},
  "InvokeInput": {"type": "structure", "required": ["Name"], "payload": "Payload", "members": {
   "Name": {"shape": "Name", "location": "uri", "locationName": "Name"}, "Payload": {"shape": "Data"}}},
  "InvokeOutput": {"type": "structure", "payload": "Payload", "members": {
   "StatusCode": {"shape": "Int", "location": "statusCode"}, "Payload": {"shape": "Data"}}},
  "Name": {"type": "string", "min": 1, "max": 8, "pattern": "^[a-z]+$"},
  "Body": {"type": "string", "min": 1},
  "Count": {"type": "integer", "min": 1, "max": 10},
  "Int": {"type": "integer"},
  "Data": {"type": "blob"},
  "Color": {"type": "string", "enum": ["red", "green"]},
  "Missing": {"type": "structure", "required": ["Message"], "members": {"Message": {"shape": "Body"}},
   "error": {"httpStatusCode": 404, "senderFault": true}, "exception": true}
 }
}`

func testSet(t *testing.T) *Set {
	t.Helper()
	j, err := Parse([]byte(jsonModel))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse([]byte(restModel))
	if err != nil {
		t.Fatal(err)
	}
	return NewSet(j, r)
}

// jsonEx is an AWS JSON exchange: op's request with body, answered with
// status and answer (header: X-Amzn-ErrorType, when given).
func jsonEx(op, body string, status int, answer string, errType ...string) Exchange {
	ex := Exchange{
		Method: http.MethodPost, URL: &url.URL{Path: "/"},
		RequestHeader: http.Header{"X-Amz-Target": {op}}, RequestBody: []byte(body),
		Status: status, ResponseHeader: http.Header{}, ResponseBody: []byte(answer),
	}
	if len(errType) > 0 {
		ex.ResponseHeader.Set("X-Amzn-ErrorType", errType[0])
	}
	return ex
}

// restEx is a REST-JSON exchange; headers are "Name: value" pairs, those
// of the answer after a "--".
func restEx(method, target, body string, status int, answer string, headers ...string) Exchange {
	u, _ := url.Parse(target)
	ex := Exchange{
		Method: method, URL: u, RequestHeader: http.Header{}, RequestBody: []byte(body),
		Status: status, ResponseHeader: http.Header{}, ResponseBody: []byte(answer),
	}
	h := ex.RequestHeader
	for _, kv := range headers {
		if kv == "--" {
			h = ex.ResponseHeader
			continue
		}
		k, v, _ := strings.Cut(kv, ": ")
		h.Add(k, v)
	}
	return ex
}

const okEntries = `"Queue":"jobs","Entries":[{"Body":"x"}]`

func TestExchangesAreCheckedAgainstTheModel(t *testing.T) {
	set := testSet(t)
	for _, tc := range []struct {
		name string
		ex   Exchange
		want []string
	}{
		{"a valid request and answer pass", jsonEx("Test_2020.Send", `{`+okEntries+`,"Count":3,"Ratio":0.5,"Flag":true,"At":1.7e9,"Data":"AAA=","Attrs":{"k":"v"},"Color":"red"}`, 200, `{"Id":"abc"}`), nil},
		{"a required member missing", jsonEx("Test_2020.Send", `{"Queue":"jobs"}`, 200, `{}`),
			[]string{"Test Send request: Entries: required member missing"}},
		{"a null member is a missing one", jsonEx("Test_2020.Send", `{"Queue":null,"Entries":[{"Body":"x"}]}`, 200, `{}`),
			[]string{"Test Send request: Queue: required member missing"}},
		{"a member the shape has not", jsonEx("Test_2020.Send", `{`+okEntries+`,"Extra":1}`, 200, `{}`),
			[]string{"Test Send request: Extra: not a member of SendInput"}},
		{"a string over its max length", jsonEx("Test_2020.Send", `{"Queue":"abcdefghi","Entries":[{"Body":"x"}]}`, 200, `{}`),
			[]string{"Test Send request: Queue: length 9 > max 8"}},
		{"a nested string under its min length", jsonEx("Test_2020.Send", `{"Queue":"jobs","Entries":[{"Body":"x"},{"Body":""}]}`, 200, `{}`),
			[]string{"Test Send request: Entries[1].Body: length 0 < min 1"}},
		{"a string off its pattern", jsonEx("Test_2020.Send", `{"Queue":"ab1","Entries":[{"Body":"x"}]}`, 200, `{}`),
			[]string{`Test Send request: Queue: "ab1" does not match pattern ^[a-z]+$`}},
		{"a list under its min size", jsonEx("Test_2020.Send", `{"Queue":"jobs","Entries":[]}`, 200, `{}`),
			[]string{"Test Send request: Entries: size 0 < min 1"}},
		{"a list over its max size", jsonEx("Test_2020.Send", `{"Queue":"jobs","Entries":[{"Body":"x"},{"Body":"x"},{"Body":"x"}]}`, 200, `{}`),
			[]string{"Test Send request: Entries: size 3 > max 2"}},
		{"an integer out of range", jsonEx("Test_2020.Send", `{`+okEntries+`,"Count":0}`, 200, `{}`),
			[]string{"Test Send request: Count: value 0 < min 1"}},
		{"a fraction where an integer belongs", jsonEx("Test_2020.Send", `{`+okEntries+`,"Count":1.5}`, 200, `{}`),
			[]string{"Test Send request: Count: want an integer, got 1.5"}},
		{"a double out of range", jsonEx("Test_2020.Send", `{`+okEntries+`,"Ratio":1.5}`, 200, `{}`),
			[]string{"Test Send request: Ratio: value 1.5 > max 1"}},
		{"a string where a boolean belongs", jsonEx("Test_2020.Send", `{`+okEntries+`,"Flag":"yes"}`, 200, `{}`),
			[]string{`Test Send request: Flag: want a boolean, got the string "yes"`}},
		{"a timestamp is epoch seconds in the JSON protocols", jsonEx("Test_2020.Send", `{`+okEntries+`,"At":"2020-01-01T00:00:00Z"}`, 200, `{}`),
			[]string{`Test Send request: At: want a timestamp in epoch seconds (a number), got the string "2020-01-01T00:00:00Z"`}},
		{"a blob is base64", jsonEx("Test_2020.Send", `{`+okEntries+`,"Data":"!!"}`, 200, `{}`),
			[]string{"Test Send request: Data: not base64 (blob): illegal base64 data at input byte 0"}},
		{"a blob's length is its bytes'", jsonEx("Test_2020.Send", `{`+okEntries+`,"Data":"AAAAAA=="}`, 200, `{}`),
			[]string{"Test Send request: Data: length 4 > max 3"}},
		{"a map over its max size", jsonEx("Test_2020.Send", `{`+okEntries+`,"Attrs":{"a":"x","b":"y"}}`, 200, `{}`),
			[]string{"Test Send request: Attrs: size 2 > max 1"}},
		{"a map's keys are checked", jsonEx("Test_2020.Send", `{`+okEntries+`,"Attrs":{"A1":"x"}}`, 200, `{}`),
			[]string{`Test Send request: Attrs["A1"] (key): "A1" does not match pattern ^[a-z]+$`}},
		{"a value outside its enum", jsonEx("Test_2020.Send", `{`+okEntries+`,"Color":"blue"}`, 200, `{}`),
			[]string{`Test Send request: Color: "blue" is not one of [red green]`}},
		{"an answer with a member its shape has not", jsonEx("Test_2020.Send", `{`+okEntries+`}`, 200, `{"Id":"abc","Extra":true}`),
			[]string{"Test Send response: Extra: not a member of SendOutput"}},
		{"an answer that is no JSON", jsonEx("Test_2020.Send", `{`+okEntries+`}`, 200, `<xml/>`),
			[]string{"Test Send response: the body is not JSON: invalid character '<' looking for beginning of value"}},
		{"an error the operation declares", jsonEx("Test_2020.Send", `{`+okEntries+`}`, 400, `{"__type":"com.example#NotFound","message":"gone"}`), nil},
		{"a declared error's body is its shape", jsonEx("Test_2020.Send", `{`+okEntries+`}`, 400, `{"__type":"NotFound","Message":"gone"}`),
			[]string{"Test Send response: error NotFound.Message: not a member of NotFound"}},
		{"a declared error without members still carries AWS's message", jsonEx("Test_2020.Send", `{`+okEntries+`}`, 400, `{"__type":"Bare","message":"not in flight"}`), nil},
		{"a declared error without members has no other member", jsonEx("Test_2020.Send", `{`+okEntries+`}`, 400, `{"__type":"Bare","message":"x","Why":"y"}`),
			[]string{"Test Send response: error Bare.Why: not a member of Bare"}},
		{"a common AWS error", jsonEx("Test_2020.Send", `{`+okEntries+`}`, 400, `{"message":"slow down"}`, "ThrottlingException:http://internal"), nil},
		{"an error neither declared nor common", jsonEx("Test_2020.Send", `{`+okEntries+`}`, 400, `{"__type":"Boom","message":"x"}`),
			[]string{"Test Send response: error Boom (status 400) is neither one Send declares nor a common AWS error"}},
		{"an error without a code", jsonEx("Test_2020.Send", `{`+okEntries+`}`, 500, `{"message":"x"}`),
			[]string{"Test Send response: an error answer (status 500) without an error code (__type or X-Amzn-ErrorType)"}},
		{"a body for an operation without input", jsonEx("Test_2020.Ping", `{"a":1}`, 200, `{}`),
			[]string{"Test Ping request: a body (1 members) where the operation has none"}},
		{"an operation the model has not", jsonEx("Test_2020.Nope", `{}`, 400, `{}`),
			[]string{`Test request: X-Amz-Target "Test_2020.Nope" names no operation of Test`}},
		{"a service no model is of", jsonEx("AWSEvents.PutEvents", `{}`, 400, `{}`),
			[]string{`AWS request: X-Amz-Target "AWSEvents.PutEvents" names no modelled service`}},

		{"a REST request and answer from URI, query, headers and body", restEx("GET", "/things/abc?max=3", "", 200, `{"Name":"abc"}`, "X-Mode: red", "--", "X-ETag: abc"), nil},
		{"a URI label off its pattern", restEx("GET", "/things/ABC", "", 200, `{}`),
			[]string{`Rest GetThing request: Name: "ABC" does not match pattern ^[a-z]+$`}},
		{"a query parameter out of range", restEx("GET", "/things/abc?max=11", "", 200, `{}`),
			[]string{"Rest GetThing request: Max: value 11 > max 10"}},
		{"a query parameter of the wrong type", restEx("GET", "/things/abc?max=x", "", 200, `{}`),
			[]string{"Rest GetThing request: Max: want an integer, got x"}},
		{"a query parameter the operation has not", restEx("GET", "/things/abc?foo=1", "", 200, `{}`),
			[]string{"Rest GetThing request: ?foo: not a query parameter of GetThing"}},
		{"a request header outside its enum", restEx("GET", "/things/abc", "", 200, `{}`, "X-Mode: blue"),
			[]string{`Rest GetThing request: Mode: "blue" is not one of [red green]`}},
		{"an answer header off its pattern", restEx("GET", "/things/abc", "", 200, `{}`, "--", "X-ETag: A"),
			[]string{`Rest GetThing response: ETag: "A" does not match pattern ^[a-z]+$`}},
		{"a success status the operation does not answer", restEx("GET", "/things/abc", "", 201, `{}`),
			[]string{"Rest GetThing response: status 201, the operation answers 200"}},
		{"a body member and a URI member", restEx("PUT", "/things/abc", `{"Body":"","Name":"abc"}`, 204, ``),
			[]string{"Rest PutThing request: Body: length 0 < min 1", "Rest PutThing request: Name: not a member of PutThingInput"}},
		{"a required body member missing", restEx("PUT", "/things/abc", `{}`, 204, ``),
			[]string{"Rest PutThing request: Body: required member missing"}},
		{"a raw payload is not parsed", restEx("POST", "/things/abc/invoke", `not json`, 202, `also not json`), nil},
		{"no route matches", restEx("DELETE", "/things/abc", "", 200, `{}`),
			[]string{"AWS request: DELETE /things/abc matches no operation of the models (Test, Rest)"}},
		{"a REST error with its declared status", restEx("GET", "/things/abc", "", 404, `{"Message":"gone"}`, "--", "X-Amzn-ErrorType: Missing"), nil},
		{"a REST error with another status", restEx("GET", "/things/abc", "", 400, `{"Message":"gone"}`, "--", "X-Amzn-ErrorType: Missing"),
			[]string{"Rest GetThing response: error Missing with status 400, the model says 404"}},
		{"a REST error without its required member", restEx("GET", "/things/abc", "", 404, `{}`, "--", "X-Amzn-ErrorType: Missing"),
			[]string{"Rest GetThing response: error Missing.Message: required member missing"}},
	} {
		t.Run(tc.name, func(t *testing.T) { expectViolations(t, set, tc.ex, tc.want) })
	}
}

// The pinned models of the five services load, and the rules reach
// their shapes: one exchange per service, as the SDKs send them.
func TestTheStacksServicesModels(t *testing.T) {
	dir, err := awstools.ModelsDir(awstools.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	set, err := Default(dir)
	if err != nil {
		t.Fatal(err)
	}
	const queue = `"QueueUrl":"http://127.0.0.1:1/000000000000/q"`
	for _, tc := range []struct {
		name string
		ex   Exchange
		want []string
	}{
		{"DynamoDB: an attribute value's members", jsonEx("DynamoDB_20120810.PutItem", `{"TableName":"t","Item":{"pk":{"S":"a"},"n":{"N":"1"},"b":{"BOOL":true},"l":{"L":[{"NULL":true}]}}}`, 200, `{}`), nil},
		{"DynamoDB: an attribute value's unknown member", jsonEx("DynamoDB_20120810.PutItem", `{"TableName":"t","Item":{"pk":{"STRING":"a"}}}`, 200, `{}`),
			[]string{`DynamoDB PutItem request: Item["pk"].STRING: not a member of AttributeValue`}},
		{"DynamoDB: an enum", jsonEx("DynamoDB_20120810.PutItem", `{"TableName":"t","Item":{},"ReturnValues":"ALL"}`, 200, `{}`),
			[]string{`DynamoDB PutItem request: ReturnValues: "ALL" is not one of [NONE ALL_OLD UPDATED_OLD ALL_NEW UPDATED_NEW]`}},
		{"DynamoDB Streams: a record's timestamp", jsonEx("DynamoDBStreams_20120810.GetRecords", `{"ShardIterator":"it"}`, 200,
			`{"Records":[{"eventID":"1","eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1.7E9,"Keys":{"pk":{"S":"a"}},"SequenceNumber":"100000000000000000001","SizeBytes":10,"StreamViewType":"NEW_IMAGE"}}],"NextShardIterator":"it2"}`), nil},
		{"SQS: a batch entry without its body", jsonEx("AmazonSQS.SendMessageBatch", `{`+queue+`,"Entries":[{"Id":"1"}]}`, 200, `{"Successful":[],"Failed":[]}`),
			[]string{"SQS SendMessageBatch request: Entries[0].MessageBody: required member missing"}},
		{"SQS: a declared error", jsonEx("AmazonSQS.SendMessage", `{`+queue+`,"MessageBody":"x"}`, 400, `{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"no"}`), nil},
		{"Scheduler: a schedule without its time window", restEx("POST", "/schedules/s1", `{"ScheduleExpression":"at(2030-01-01T00:00:00)","Target":{"Arn":"arn:aws:sqs:us-east-1:000000000000:q","RoleArn":"arn:aws:iam::000000000000:role/r"}}`, 200, `{"ScheduleArn":"arn:aws:scheduler:us-east-1:000000000000:schedule/default/s1"}`, "Authorization: AWS4-HMAC-SHA256 Credential=local/20300101/us-east-1/scheduler/aws4_request, SignedHeaders=host, Signature=0"),
			[]string{"Scheduler CreateSchedule request: FlexibleTimeWindow: required member missing"}},
		{"Lambda: Invoke's headers and raw payload", restEx("POST", "/2015-03-31/functions/botix-local-AdminFunction/invocations", `{"action":"x"}`, 200, `{"ok":true}`, "X-Amz-Invocation-Type: RequestResponse", "--", "X-Amz-Executed-Version: $LATEST"), nil},
		{"Lambda: an invocation type outside the enum", restEx("POST", "/2015-03-31/functions/f/invocations", `{}`, 200, `{}`, "X-Amz-Invocation-Type: Async"),
			[]string{`Lambda Invoke request: InvocationType: "Async" is not one of [Event RequestResponse DryRun]`}},
	} {
		t.Run(tc.name, func(t *testing.T) { expectViolations(t, set, tc.ex, tc.want) })
	}
}

func TestTallyCountsRequestsAndAnswersPerService(t *testing.T) {
	tally := Tally{}
	tally.Add(Result{Service: "SQS", Operation: "SendMessage"})
	tally.Add(Result{Service: "SQS", Operation: "SendMessage", Violations: []Violation{{}}})
	tally.Add(Result{Service: "AWS", Violations: []Violation{{}}})
	want := map[string]Count{"SQS": {2, 2, 1}, "AWS": {1, 0, 1}}
	for svc, c := range want {
		if got := *tally[svc]; got != c {
			t.Errorf("%s: %+v, want %+v", svc, got, c)
		}
	}
	if got := tally.Services(); !slices.Equal(got, []string{"AWS", "SQS"}) {
		t.Errorf("services %v", got)
	}
}

// BenchmarkCheck measures the cost of checking one exchange the end-to-end
// tests make by the thousand: a stream read with one record, and a put.
func BenchmarkCheck(b *testing.B) {
	dir, err := awstools.ModelsDir(awstools.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	set, err := Default(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		ex   Exchange
	}{
		{"DynamoDB Streams GetRecords", jsonEx("DynamoDBStreams_20120810.GetRecords", `{"ShardIterator":"it","Limit":100}`, 200,
			`{"Records":[{"eventID":"1","eventName":"INSERT","eventSource":"aws:dynamodb","eventVersion":"1.1","awsRegion":"us-east-1","dynamodb":{"ApproximateCreationDateTime":1.7E9,"Keys":{"pk":{"S":"P#prj_1"},"sk":{"S":"E#01"}},"NewImage":{"pk":{"S":"P#prj_1"},"sk":{"S":"E#01"},"type":{"S":"contact.created"},"data":{"S":"{\"id\":\"ct_1\"}"},"ttl":{"N":"1800000000"}},"SequenceNumber":"100000000000000000001","SizeBytes":120,"StreamViewType":"NEW_IMAGE"}}],"NextShardIterator":"it2"}`)},
		{"DynamoDB PutItem", jsonEx("DynamoDB_20120810.PutItem", `{"TableName":"t-DataTable","Item":{"pk":{"S":"P#prj_1"},"sk":{"S":"E#01"},"type":{"S":"contact.created"},"tags":{"L":[{"S":"a"},{"S":"b"}]},"ttl":{"N":"1800000000"}},"ConditionExpression":"attribute_not_exists(pk)"}`, 200, `{}`)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if res := set.Check(bc.ex); len(res.Violations) > 0 {
					b.Fatal(res.Violations)
				}
			}
		})
	}
}

// expectViolations checks that set finds exactly want (sorted) in ex.
func expectViolations(t *testing.T, set *Set, ex Exchange, want []string) {
	t.Helper()
	var got []string
	for _, v := range set.Check(ex).Violations {
		got = append(got, v.String())
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
