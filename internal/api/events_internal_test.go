package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/awslimits"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/webhook"
)

// A full events page of the largest events it lists whole — bodies of
// escaped quotes, each doubled again in the response's JSON string — is
// under Lambda's 6 MB response, as the function returns it to API
// Gateway; one byte more of an event and it is listed thin.
func TestAFullEventsPageFitsLambdasResponse(t *testing.T) {
	event := func(quotes int) domain.Event {
		data, _ := json.Marshal(map[string]string{"id": "msg_1", "text": strings.Repeat(`"`, quotes)})
		return domain.Event{ID: "evt_01JDQ7X3ZV8N5W2K4R6T9Y1B30", Type: domain.EventMessageSent, CreatedAt: "2026-12-02T00:00:00Z", ProjectID: "prj_1", Data: data}
	}
	// The most quotes an event may carry and still be listed whole.
	quotes := 0
	for string(listedEvent(event(quotes+1))) != string(thinOf(event(quotes+1))) {
		quotes++
	}
	largest := listedEvent(event(quotes))
	if string(largest) == string(thinOf(event(quotes))) {
		t.Fatal("no event of quotes is listed whole")
	}
	page := make([]json.RawMessage, pagination.MaxLimit)
	for i := range page {
		page[i] = largest
	}
	resp, err := pagination.Respond(&pagination.Pager{}, pagination.Request{}, page, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(events.APIGatewayV2HTTPResponse{StatusCode: resp.Status, Body: string(resp.Body)})
	if len(out) > awslimits.LambdaPayloadBytes {
		t.Fatalf("a page of %d events of %d bytes is a %d-byte response, past Lambda's %d", len(page), len(largest), len(out), awslimits.LambdaPayloadBytes)
	}
}

func thinOf(ev domain.Event) json.RawMessage {
	thin, _ := webhook.ThinBody(ev)
	return thin
}
