// Package registry maps the logical id of every function in template.yaml
// to its builder. The local runtime routes through it and the template
// checks compare it with template.yaml and functions/. Lambda mains do not
// import it, so each binary links only its own function's code: a main
// calls its builder by name, and the builders are functions that reach
// only their own route's handler (infra/checks/templatecheck checks the
// binaries).
package registry

import (
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/app/awsfree"
	"github.com/botix/public-api/internal/app/awsfree/reference"
	"github.com/botix/public-api/internal/app/awsfree/site"
)

// HTTP maps API functions to their builders. The functions that call no
// AWS API are wired on package awsfree, each in a package of its own; their
// mains start them without package app.
var HTTP = map[string]app.Builder[app.HTTPHandler]{
	"NotFoundFunction":      app.AWSFree(awsfree.NotFound),
	"CreateContactFunction": app.CreateContact,
	"GetContactFunction":    app.GetContact,
	"SendMessageFunction":   app.SendMessage,
	"ImportCatalogFunction": app.ImportCatalog,
	"RunScenarioFunction":   app.RunScenario,
	"ListContactsFunction":  app.ListContacts,
	"CountContactsFunction": app.CountContacts,
	"ListMessagesFunction":  app.ListMessages,

	"CreateWebhookEndpointFunction":  app.CreateWebhookEndpoint,
	"ListWebhookEndpointsFunction":   app.ListWebhookEndpoints,
	"GetWebhookEndpointFunction":     app.GetWebhookEndpoint,
	"UpdateWebhookEndpointFunction":  app.UpdateWebhookEndpoint,
	"DeleteWebhookEndpointFunction":  app.DeleteWebhookEndpoint,
	"RotateWebhookSecretFunction":    app.RotateWebhookSecret,
	"TestWebhookEndpointFunction":    app.TestWebhookEndpoint,
	"RecoverWebhookEndpointFunction": app.RecoverWebhookEndpoint,

	"ListDeliveriesFunction":   app.ListDeliveries,
	"GetDeliveryFunction":      app.GetDelivery,
	"GetDeliveryStatsFunction": app.GetDeliveryStats,
	"RetryDeliveryFunction":    app.RetryDelivery,
	"RedirectDeliveryFunction": app.RedirectDelivery,

	"CreateInspectorFunction":       app.CreateInspector,
	"CaptureInspectorFunction":      app.CaptureInspector,
	"ListInspectorRequestsFunction": app.ListInspectorRequests,

	"ListEventsFunction": app.ListEvents,
	"GetEventFunction":   app.GetEvent,

	"CreateDashboardSessionFunction":     app.CreateDashboardSession,
	"GetCurrentDashboardSessionFunction": app.GetCurrentDashboardSession,
	"ListDashboardSessionsFunction":      app.ListDashboardSessions,
	"DeleteDashboardSessionFunction":     app.DeleteDashboardSession,

	"DashboardFunction":       app.AWSFree(site.Dashboard),
	"GetApiReferenceFunction": app.AWSFree(reference.GetApiReference),
}

// Stream maps DynamoDB stream consumers to their builders.
var Stream = map[string]app.Builder[app.StreamHandler]{
	"CatalogApplyFunction": app.CatalogApply,
	"DispatchFunction":     app.Dispatch,
}

// Queue maps SQS consumers to their builders.
var Queue = map[string]app.Builder[app.QueueHandler]{
	"DeliverFunction": app.Deliver,
}

// Invoke maps directly invoked functions (admin, redrive) to their builders.
var Invoke = map[string]app.Builder[app.InvokeHandler]{
	"AdminFunction":   app.Admin,
	"RedriveFunction": app.Redrive,
}
