package webhook

import (
	"encoding/json"
	"strings"

	"github.com/botix/public-api/internal/domain"
)

// MaxPayload is the largest webhook body; bigger events are sent thin.
const MaxPayload = 64 << 10

// Body returns the webhook body of an event: the event itself, or, past
// MaxPayload, its thin form naming the object for the receiver to fetch:
// {"id","type","created_at","project_id","data":{"object","id"},"thin":true}.
func Body(ev domain.Event) ([]byte, error) {
	full, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	if len(full) <= MaxPayload {
		return full, nil
	}
	return ThinBody(ev)
}

// ThinBody is the thin form of an event: the object it is about, by id.
func ThinBody(ev domain.Event) ([]byte, error) {
	var ref struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(ev.Data, &ref)
	object, _, _ := strings.Cut(ev.Type, ".")
	return json.Marshal(struct {
		domain.Event
		Data thinData `json:"data"`
		Thin bool     `json:"thin"`
	}{Event: ev, Data: thinData{Object: object, ID: ref.ID}, Thin: true})
}

type thinData struct {
	Object string `json:"object"`
	ID     string `json:"id"`
}
