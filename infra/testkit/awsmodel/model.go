// Package awsmodel checks AWS API requests and answers against botocore's
// service models, the API definitions the AWS CLI itself is built from
// (pinned in infra/tools/awstools): required members, types, lengths, ranges,
// list and map sizes, patterns, enums, and members a shape does not have.
// It speaks the two protocols of the services the stack calls: AWS JSON
// (DynamoDB, DynamoDB Streams, SQS: the operation is in X-Amz-Target) and
// REST-JSON (Scheduler, Lambda: the operation is found by method and URI
// template, members come from the URI, query string, headers and body).
//
// The end-to-end tests run every exchange with the local AWS through it
// (infra/testkit/localtest); it is a library for tests, and imports no AWS SDK.
package awsmodel

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Services are the botocore names of the services the stack calls, the
// ones Default loads.
var Services = []string{"dynamodb", "dynamodbstreams", "sqs", "scheduler", "lambda"}

// Model is one service's API definition.
type Model struct {
	// Service is the model's serviceId ("DynamoDB", "SQS", ...), the name
	// a violation gives.
	Service string
	// Protocol is "json" or "rest-json".
	Protocol string
	// TargetPrefix is what an AWS JSON request's X-Amz-Target starts with
	// ("DynamoDB_20120810"); "" for REST-JSON.
	TargetPrefix string
	// SigningName is the service of its SigV4 credential scope.
	SigningName string

	operations map[string]*operation
	shapes     map[string]*shape
	routes     []*route // REST-JSON: every operation's URI template
}

// operation is an operation of a model.
type operation struct {
	Name string `json:"name"`
	HTTP struct {
		Method       string `json:"method"`
		RequestURI   string `json:"requestUri"`
		ResponseCode int    `json:"responseCode"`
	} `json:"http"`
	Input  *member   `json:"input"`
	Output *member   `json:"output"`
	Errors []member  `json:"errors"`
	errors []*member // Errors, kept for lookups by name
}

// member is a reference to a shape: a structure's member, a list's member,
// a map's key or value, an operation's input, output or error.
type member struct {
	Shape           string `json:"shape"`
	Location        string `json:"location"` // uri, querystring, header, headers, statusCode, or "" (body)
	LocationName    string `json:"locationName"`
	TimestampFormat string `json:"timestampFormat"`
	EventPayload    bool   `json:"eventpayload"`
}

// shape is a type of a model, with its constraints.
type shape struct {
	Type            string             `json:"type"`
	Required        []string           `json:"required"`
	Members         map[string]*member `json:"members"`
	Member          *member            `json:"member"`
	Key             *member            `json:"key"`
	Value           *member            `json:"value"`
	Min             *float64           `json:"min"`
	Max             *float64           `json:"max"`
	Pattern         string             `json:"pattern"`
	Enum            []string           `json:"enum"`
	Payload         string             `json:"payload"`
	Streaming       bool               `json:"streaming"`
	EventStream     bool               `json:"eventstream"`
	Exception       bool               `json:"exception"`
	TimestampFormat string             `json:"timestampFormat"`
	Error           *struct {
		Code           string `json:"code"`
		HTTPStatusCode int    `json:"httpStatusCode"`
	} `json:"error"`

	re       *regexp.Regexp
	reErr    error
	required map[string]bool
	enum     map[string]bool
}

// document is the JSON of a service-2.json file.
type document struct {
	Metadata struct {
		Protocol       string `json:"protocol"`
		ServiceID      string `json:"serviceId"`
		TargetPrefix   string `json:"targetPrefix"`
		SigningName    string `json:"signingName"`
		EndpointPrefix string `json:"endpointPrefix"`
	} `json:"metadata"`
	Operations map[string]*operation `json:"operations"`
	Shapes     map[string]*shape     `json:"shapes"`
}

// Load reads a model (service-2.json, gzipped or not).
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("awsmodel: %s: %w", path, err)
		}
		dec = json.NewDecoder(gz)
	}
	var doc document
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("awsmodel: %s: %w", path, err)
	}
	m, err := build(doc)
	if err != nil {
		return nil, fmt.Errorf("awsmodel: %s: %w", path, err)
	}
	return m, nil
}

// Parse reads a model from its JSON (the unit tests' small models).
func Parse(data []byte) (*Model, error) {
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("awsmodel: %w", err)
	}
	return build(doc)
}

func build(doc document) (*Model, error) {
	m := &Model{
		Service:      doc.Metadata.ServiceID,
		Protocol:     doc.Metadata.Protocol,
		TargetPrefix: doc.Metadata.TargetPrefix,
		SigningName:  doc.Metadata.SigningName,
		operations:   doc.Operations,
		shapes:       doc.Shapes,
	}
	if m.SigningName == "" {
		m.SigningName = doc.Metadata.EndpointPrefix
	}
	if m.Protocol != "json" && m.Protocol != "rest-json" {
		return nil, fmt.Errorf("protocol %q: only json and rest-json are checked", m.Protocol)
	}
	for name, s := range m.shapes {
		if s.Pattern != "" {
			// RE2 lacks the lookarounds an ECMA pattern may use (a few
			// Lambda and Scheduler shapes the stack does not send): a
			// value that reaches such a shape is a violation saying so,
			// never a silent pass.
			s.re, s.reErr = regexp.Compile(toRE2(s.Pattern))
		}
		s.required = map[string]bool{}
		for _, r := range s.Required {
			s.required[r] = true
		}
		if len(s.Enum) > 0 {
			s.enum = map[string]bool{}
			for _, e := range s.Enum {
				s.enum[e] = true
			}
		}
		refs := []*member{s.Member, s.Key, s.Value}
		for _, ref := range s.Members {
			refs = append(refs, ref)
		}
		for _, ref := range refs {
			if ref != nil && m.shapes[ref.Shape] == nil {
				return nil, fmt.Errorf("shape %s refers to unknown shape %s", name, ref.Shape)
			}
		}
	}
	for name, op := range m.operations {
		for i := range op.Errors {
			op.errors = append(op.errors, &op.Errors[i])
		}
		if op.HTTP.ResponseCode == 0 {
			op.HTTP.ResponseCode = 200
		}
		if m.Protocol == "rest-json" {
			rt, err := parseRoute(op)
			if err != nil {
				return nil, fmt.Errorf("operation %s: %w", name, err)
			}
			m.routes = append(m.routes, rt)
		}
	}
	// The most specific template first: more literal segments win, as a
	// service's router would pick /functions/{F}/invocations over /functions/{F+}.
	sort.SliceStable(m.routes, func(i, j int) bool {
		if m.routes[i].literals != m.routes[j].literals {
			return m.routes[i].literals > m.routes[j].literals
		}
		return m.routes[i].op.Name < m.routes[j].op.Name
	})
	return m, nil
}

// toRE2 spells the Java-isms of botocore's patterns in RE2: \uXXXX
// escapes (a UTF-16 surrogate range is the supplementary planes) and
// \p{Print}.
func toRE2(p string) string {
	p = strings.ReplaceAll(p, `\uD800\uDC00-\uDBFF\uDFFF`, `\x{10000}-\x{10FFFF}`)
	p = strings.ReplaceAll(p, `\p{Print}`, `[[:print:]]`)
	return javaEscape.ReplaceAllString(p, `\x{$1}`)
}

var javaEscape = regexp.MustCompile(`\\u([0-9A-Fa-f]{4})`)

// Set is the models of several services, to find which one an exchange
// belongs to.
type Set struct {
	models []*Model
}

// NewSet makes a Set of models.
func NewSet(models ...*Model) *Set { return &Set{models: models} }

// LoadDir loads the newest API version of each named service (botocore
// names: "sqs", "dynamodb") from botocore's data directory
// (awstools.ModelsDir), where models are <service>/<version>/service-2.json.gz.
func LoadDir(modelsDir string, services ...string) (*Set, error) {
	set := &Set{}
	for _, svc := range services {
		versions, err := filepath.Glob(filepath.Join(modelsDir, svc, "*", "service-2.json*"))
		if err != nil || len(versions) == 0 {
			return nil, fmt.Errorf("awsmodel: no model of %s in %s", svc, modelsDir)
		}
		sort.Strings(versions) // versions are dates: the last is the newest
		m, err := Load(versions[len(versions)-1])
		if err != nil {
			return nil, err
		}
		set.models = append(set.models, m)
	}
	return set, nil
}

var (
	sharedOnce sync.Once
	shared     *Set
	sharedErr  error
)

// Default loads Services from modelsDir once per process (a few hundred
// milliseconds); later calls return the same Set, whatever their argument.
func Default(modelsDir string) (*Set, error) {
	sharedOnce.Do(func() { shared, sharedErr = LoadDir(modelsDir, Services...) })
	return shared, sharedErr
}
