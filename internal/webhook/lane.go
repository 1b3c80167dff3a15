package webhook

// BulkAfter is where the bulk lane starts: a project with more than this
// many deliveries in one dispatch (one batch of the outbox stream: up to
// 100 items gathered for at most a second) sends them on the bulk lane.
//
// The bulk lane is a delivery queue of its own whose consumers are capped
// (template.yaml: BulkDeliveryQueue, consumed by the deliver function's
// BulkQueue event with a MaximumConcurrency of its own). A project's flood
// then holds at most the bulk lane's consumers, and the database calls
// they make, while every other project's deliveries keep the delivery
// queue's; both queues are fair queues (a group per project), so floods
// share the bulk lane as projects share the other. A message keeps its
// lane through its deferrals and retries (Message.Bulk).
const BulkAfter = 20

// lanes marks for the bulk lane the messages of each project with more
// than BulkAfter deliveries among msgs.
func lanes(msgs []Message) {
	per := map[string]int{}
	for _, m := range msgs {
		if m.DeliveryID != "" {
			per[m.ProjectID]++
		}
	}
	for i := range msgs {
		if per[msgs[i].ProjectID] > BulkAfter {
			msgs[i].Bulk = true
		}
	}
}
