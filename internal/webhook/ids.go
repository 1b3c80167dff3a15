package webhook

import (
	"crypto/sha256"

	"github.com/oklog/ulid/v2"

	"github.com/botix/public-api/internal/ids"
)

// DeliveryID derives the id of the delivery of an event to an endpoint:
// the event's ULID time and 80 bits of SHA-256(event id, endpoint id). The
// same pair always gives the same id, so a replayed stream batch can never
// create a second delivery, and deliveries sort by event time.
func DeliveryID(eventID, endpointID string) (string, error) {
	ev, err := ids.Parse(ids.Event, eventID)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(eventID + "/" + endpointID))
	var u ulid.ULID
	copy(u[:6], ev[:6])
	copy(u[6:], h[:10])
	return ids.Delivery + "_" + u.String(), nil
}
