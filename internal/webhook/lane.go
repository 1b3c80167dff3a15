package webhook

import "time"

// BulkAfter is where the bulk lane starts: a project with more than this
// many deliveries in one dispatch (one batch of the outbox stream: up to
// 100 items gathered for at most a second), created faster than this many
// a second, sends them on the bulk lane. The second condition reads the
// events' created_at: a steady sender's events that a dispatcher running
// behind reads in one batch span the seconds they were sent over, and are
// not a flood.
//
// The bulk lane is a delivery queue of its own whose consumers are capped
// (template.yaml: BulkDeliveryQueue, consumed by the deliver function's
// BulkQueue event with a MaximumConcurrency of its own). A project's flood
// then holds at most the bulk lane's consumers, and the database calls
// they make, while every other project's deliveries keep the delivery
// queue's; both queues are fair queues (a group per project), so floods
// share the bulk lane as projects share the other. A message keeps its
// lane through its deferrals and retries (Message.Bulk).
//
// The dispatcher does not store a flood's deliveries: each travels in its
// first message (Message.Pending), and the deliverer stores it, claimed,
// in the write that claims its first attempt. The flood's writes then
// come at its delivery pace rather than ahead of every other project's
// events in the outbox stream, and its deliveries cost one write fewer.
const BulkAfter = 20

// bulkProjects returns the projects whose messages go on the bulk lane:
// those that dispatch more than BulkAfter deliveries among msgs, at more
// than BulkAfter a second of the time their events were created over
// (created[i]: msgs[i]'s event's; zero for a message without one, such as
// a recovery's redrive, which counts as created now).
func bulkProjects(msgs []Message, created []time.Time) map[string]bool {
	type window struct {
		n           int
		first, last time.Time
	}
	per := map[string]*window{}
	for i, m := range msgs {
		if m.DeliveryID == "" {
			continue
		}
		w := per[m.ProjectID]
		if w == nil {
			w = &window{}
			per[m.ProjectID] = w
		}
		w.n++
		if t := created[i]; !t.IsZero() {
			if w.first.IsZero() || t.Before(w.first) {
				w.first = t
			}
			if t.After(w.last) {
				w.last = t
			}
		}
	}
	bulk := map[string]bool{}
	for project, w := range per {
		if span := max(w.last.Sub(w.first).Seconds(), 1); w.n > BulkAfter && float64(w.n) > BulkAfter*span {
			bulk[project] = true
		}
	}
	return bulk
}
