package registry

import "github.com/botix/public-api/internal/app"

// Permissions lists, per function, every AWS action its code calls and on
// which template resource ("DataTable", "DataTable/index/gsi1",
// "WebhookScheduleGroup/*"). The template's policies must grant exactly
// these (a test compares), and the local runtime records the calls the
// functions really make and fails a test on any call not listed here. The
// permissions Lambda's event source mappings need (stream and queue reads)
// are added by SAM and are not the code's.
var Permissions = map[string][]app.Permission{
	"NotFoundFunction":        nil,
	"DashboardFunction":       nil,
	"GetApiReferenceFunction": nil,
	"CreateContactFunction":   mutation(write("DataTable", "GetItem", "PutItem", "UpdateItem")),
	"GetContactFunction":      read("DataTable"),
	"SendMessageFunction":     mutation(write("DataTable", "GetItem", "PutItem", "ConditionCheckItem")),
	"ImportCatalogFunction":   mutation(write("DataTable", "GetItem", "PutItem")),
	"RunScenarioFunction":     mutation(write("DataTable", "GetItem", "PutItem", "ConditionCheckItem")),
	"ListContactsFunction":    query("DataTable"),
	"CountContactsFunction":   query("DataTable"),
	"ListMessagesFunction":    query("DataTable", "gsi1"),

	"CreateWebhookEndpointFunction": mutation(write("DataTable", "GetItem", "PutItem", "UpdateItem")),
	// The endpoints, and the last failure's class of each failing one
	// (gsi2); GET also reads its latest recovery's outcomes by key.
	"ListWebhookEndpointsFunction":  append(query("DataTable"), app.Permission{Action: "dynamodb:Query", Resource: "DeliveriesTable/index/gsi2"}),
	"GetWebhookEndpointFunction":    append(append(read("DataTable"), read("DeliveriesTable")...), app.Permission{Action: "dynamodb:Query", Resource: "DeliveriesTable/index/gsi2"}),
	"UpdateWebhookEndpointFunction": mutation(write("DataTable", "GetItem", "UpdateItem")),
	"DeleteWebhookEndpointFunction": mutation(write("DataTable", "GetItem", "DeleteItem", "UpdateItem")),
	"RotateWebhookSecretFunction":   mutation(write("DataTable", "GetItem", "UpdateItem")),
	"TestWebhookEndpointFunction":   mutation(write("DataTable", "GetItem", "PutItem")),
	// Reads the endpoint, counts its failed deliveries (gsi2) and writes
	// the recovery request, which the stream carries to the dispatcher.
	"RecoverWebhookEndpointFunction": mutation(append(write("DataTable", "GetItem", "PutItem"), app.Permission{Action: "dynamodb:Query", Resource: "DeliveriesTable/index/gsi2"})),

	// request_id reads gsi3 (attempts by request id) before the list.
	"ListDeliveriesFunction": append(read("DataTable"), queryOnly("DeliveriesTable", "gsi1", "gsi2", "gsi3")...),
	"GetDeliveryFunction":    append(read("DataTable"), write("DeliveriesTable", "GetItem", "Query")...),
	// The key and the endpoint (endpoint_id) by key; the hourly counters
	// with one Query.
	"GetDeliveryStatsFunction": append(read("DataTable"), queryOnly("DeliveriesTable")...),
	// Both read the delivery and write a delivery request (to the data
	// table, whose stream carries it to the queue).
	"RetryDeliveryFunction":    mutation(append(write("DataTable", "GetItem", "PutItem"), read("DeliveriesTable")...)),
	"RedirectDeliveryFunction": mutation(append(write("DataTable", "GetItem", "PutItem"), read("DeliveriesTable")...)),

	"CreateInspectorFunction":       mutation(write("DataTable", "GetItem", "PutItem")),
	"CaptureInspectorFunction":      write("DataTable", "GetItem", "PutItem", "UpdateItem"),
	"ListInspectorRequestsFunction": query("DataTable"),

	"ListEventsFunction": query("DataTable", "gsi1"),
	"GetEventFunction":   read("DataTable"),

	// Checks that the key making the session is still live.
	"CreateDashboardSessionFunction": mutation(write("DataTable", "GetItem", "PutItem", "ConditionCheckItem")),
	// The key's own GetItem; the sessions' references with one Query.
	"ListDashboardSessionsFunction": query("DataTable"),
	// The authentication's read of the session is all it needs.
	"GetCurrentDashboardSessionFunction": read("DataTable"),
	// Reads the session's reference (for its token hash), deletes both.
	"DeleteDashboardSessionFunction": mutation(write("DataTable", "GetItem", "DeleteItem")),

	"CatalogApplyFunction": write("DataTable", "UpdateItem"),
	// A recovery lists the endpoint's failed deliveries (gsi2).
	"DispatchFunction": append(append(write("DataTable", "Query"), write("DeliveriesTable", "PutItem")...),
		app.Permission{Action: "dynamodb:Query", Resource: "DeliveriesTable/index/gsi2"},
		app.Permission{Action: "sqs:SendMessage", Resource: "DeliveryQueue"},
		app.Permission{Action: "sqs:SendMessage", Resource: "BulkDeliveryQueue"}),
	// Endpoints (and their health) live in the data table, with the health
	// events the function writes; deliveries and attempt logs in the
	// deliveries table. A recovery's continuation reads the endpoint's
	// failed deliveries (gsi2) and saves the step (the recovery item and its
	// step request, PutItem). A parked outbox record is dispatched again
	// here: the project's endpoints (Query), its deliveries (PutItem).
	"DeliverFunction": append(append(write("DataTable", "GetItem", "PutItem", "Query", "UpdateItem", "ConditionCheckItem"), write("DeliveriesTable", "GetItem", "PutItem", "UpdateItem")...),
		app.Permission{Action: "dynamodb:Query", Resource: "DeliveriesTable/index/gsi2"},
		app.Permission{Action: "sqs:SendMessage", Resource: "DeadLetterQueue"},
		// Deferrals (no capacity at the endpoint) and short slow-downs, on
		// the lane the message came on.
		app.Permission{Action: "sqs:SendMessage", Resource: "DeliveryQueue"},
		app.Permission{Action: "sqs:ChangeMessageVisibility", Resource: "DeliveryQueue"},
		app.Permission{Action: "sqs:SendMessage", Resource: "BulkDeliveryQueue"},
		app.Permission{Action: "sqs:ChangeMessageVisibility", Resource: "BulkDeliveryQueue"},
		app.Permission{Action: "scheduler:CreateSchedule", Resource: "WebhookScheduleGroup/*"},
		app.Permission{Action: "iam:PassRole", Resource: "SchedulerRole"}),
	"RedriveFunction": append(read("DeliveriesTable"),
		app.Permission{Action: "sqs:ReceiveMessage", Resource: "DeadLetterQueue"},
		app.Permission{Action: "sqs:DeleteMessage", Resource: "DeadLetterQueue"},
		app.Permission{Action: "sqs:ChangeMessageVisibility", Resource: "DeadLetterQueue"},
		app.Permission{Action: "sqs:SendMessage", Resource: "DeliveryQueue"},
		app.Permission{Action: "sqs:SendMessage", Resource: "BulkDeliveryQueue"}),
	// revoke_api_key and revoke_sessions Query the project's sessions.
	"AdminFunction": write("DataTable", "GetItem", "PutItem", "DeleteItem", "ConditionCheckItem", "Query"),
}

func write(table string, actions ...string) []app.Permission {
	out := make([]app.Permission, len(actions))
	for i, a := range actions {
		out[i] = app.Permission{Action: "dynamodb:" + a, Resource: table}
	}
	return out
}

// read is the API key lookup plus reads by key.
func read(table string) []app.Permission { return write(table, "GetItem") }

// query is read plus Query on the table and the named indexes.
func query(table string, indexes ...string) []app.Permission {
	return append(read(table), queryOnly(table, indexes...)...)
}

// queryOnly is Query on the table and the named indexes.
func queryOnly(table string, indexes ...string) []app.Permission {
	out := write(table, "Query")
	for _, ix := range indexes {
		out = append(out, app.Permission{Action: "dynamodb:Query", Resource: table + "/index/" + ix})
	}
	return out
}

// mutation adds the idempotency table's capture, completion and release.
func mutation(p []app.Permission) []app.Permission {
	return append(p, write("IdempotencyTable", "PutItem", "UpdateItem", "DeleteItem")...)
}
