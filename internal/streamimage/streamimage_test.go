package streamimage

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

func TestDecodeStreamImage(t *testing.T) {
	// An image as Lambda delivers it in a DynamoDB stream event.
	raw := `{"pk":{"S":"P#1#EVT"},"n":{"N":"42"},"b":{"B":"aGk="},"ok":{"BOOL":true},"nil":{"NULL":true},
		"tags":{"L":[{"S":"a"},{"S":"b"}]},"m":{"M":{"k":{"S":"v"}}},"ss":{"SS":["x","y"]}}`
	var image map[string]events.DynamoDBAttributeValue
	if err := json.Unmarshal([]byte(raw), &image); err != nil {
		t.Fatal(err)
	}
	var out struct {
		PK   string            `dynamodbav:"pk"`
		N    int               `dynamodbav:"n"`
		B    []byte            `dynamodbav:"b"`
		OK   bool              `dynamodbav:"ok"`
		Nil  *string           `dynamodbav:"nil"`
		Tags []string          `dynamodbav:"tags"`
		M    map[string]string `dynamodbav:"m"`
		SS   []string          `dynamodbav:"ss,stringset"`
	}
	if err := Decode(image, &out); err != nil {
		t.Fatal(err)
	}
	if out.PK != "P#1#EVT" || out.N != 42 || string(out.B) != "hi" || !out.OK || out.Nil != nil ||
		len(out.Tags) != 2 || out.M["k"] != "v" || len(out.SS) != 2 {
		t.Fatalf("decoded %+v", out)
	}
}
