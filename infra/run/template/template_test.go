package template

import (
	"fmt"
	"testing"
)

const sample = `
Parameters:
  Stage: { Type: String, Default: prod }
Globals:
  Function:
    Timeout: 10
    Environment:
      Variables:
        TABLE: !Ref Table
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{ AttributeName: pk, AttributeType: S }]
      KeySchema: [{ AttributeName: pk, KeyType: HASH }]
      TimeToLiveSpecification: { AttributeName: expires_at, Enabled: true }
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Timeout: 30
      Environment:
        Variables:
          ARN: !GetAtt Table.Arn
          URL: !Sub "https://${Table}.${AWS::Region}/${!Literal}/${Table.Arn}"
          SECRET: "{{resolve:secretsmanager:s:SecretString:k}}"
          JOINED: !Join [",", [a, !Ref Stage]]
      Events:
        Get: { Type: HttpApi, Properties: { Method: get, Path: "/x/{id}" } }
        Default: { Type: HttpApi }
`

func TestParseAndResolve(t *testing.T) {
	tp, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	fns := tp.Functions()
	fn, ok := fns["Fn"]
	if !ok {
		t.Fatal("function Fn not found")
	}
	if got := fn.Timeout().Seconds(); got != 30 {
		t.Errorf("timeout = %v, want function's own 30 over Globals' 10", got)
	}
	r := Resolver{
		Ref: func(n string) (string, error) {
			return map[string]string{"Table": "tbl", "AWS::Region": "eu-west-1", "Stage": "prod"}[n], nil
		},
		GetAtt:  func(res, attr string) (string, error) { return fmt.Sprintf("arn(%s.%s)", res, attr), nil },
		Dynamic: func(ref string) (string, error) { return "resolved(" + ref + ")", nil },
	}
	want := map[string]string{
		"TABLE":  "tbl",
		"ARN":    "arn(Table.Arn)",
		"URL":    "https://tbl.eu-west-1/${Literal}/arn(Table.Arn)",
		"SECRET": "resolved(secretsmanager:s:SecretString:k)",
		"JOINED": "a,prod",
	}
	env := fn.Environment()
	for k, w := range want {
		got, err := r.String(env[k])
		if err != nil || got != w {
			t.Errorf("%s = %q, %v; want %q", k, got, err, w)
		}
	}
	routes := tp.Routes()
	if len(routes) != 2 || routes[0].Key != "$default" || routes[1].Key != "GET /x/{id}" {
		t.Errorf("routes = %+v", routes)
	}
	tables, err := tp.Tables()
	if err != nil || tables["Table"].TTLAttribute != "expires_at" {
		t.Errorf("tables = %+v, %v", tables, err)
	}
}

func TestMemoryAndArchitecture(t *testing.T) {
	tp, err := Parse([]byte(`
Globals:
  Function:
    Architectures: [arm64]
    MemorySize: 256
Resources:
  Inherits: { Type: AWS::Serverless::Function, Properties: {} }
  Own: { Type: AWS::Serverless::Function, Properties: { MemorySize: 512, Architectures: [x86_64] } }
`))
	if err != nil {
		t.Fatal(err)
	}
	none, err := Parse([]byte("Resources:\n  Bare: { Type: AWS::Serverless::Function, Properties: {} }\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		fn     Function
		memory int
		arch   string
	}{
		{"Globals apply to a function that sets neither", tp.Functions()["Inherits"], 256, "arm64"},
		{"a function's own settings win over Globals", tp.Functions()["Own"], 512, "x86_64"},
		{"Lambda's defaults without any: 128 MB, x86_64", none.Functions()["Bare"], 128, "x86_64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.fn.MemorySize() != c.memory || c.fn.Architecture() != c.arch {
				t.Errorf("memory %d, architecture %s; want %d, %s", c.fn.MemorySize(), c.fn.Architecture(), c.memory, c.arch)
			}
		})
	}
}
