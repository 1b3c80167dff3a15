// The API's words the page shows, filters by and acts on, put into the
// page by the server (internal/dashboard.Vocabulary) as <meta> elements:
// no script holds a copy of the API's lists.

function meta(name) {
  const m = document.querySelector(`meta[name="botix-${name}"]`);
  if (!m || !m.content) throw new Error(`the page lacks <meta name="botix-${name}">`);
  return m.content;
}

function words(name) {
  return meta(name).split(' ').filter(Boolean);
}

// EVENT_TYPES are the event types an endpoint may subscribe to;
// HEALTH_EVENT_TYPES those that tell an endpoint's health
// (webhook_endpoint.failing, ...).
export const EVENT_TYPES = words('event-types');
export const HEALTH_EVENT_TYPES = words('health-event-types');

// DELIVERY_STATUSES are every status of a delivery; STATUS_DELIVERED and
// STATUS_DEAD the two the page acts on.
export const DELIVERY_STATUSES = words('delivery-statuses');
export const STATUS_DELIVERED = meta('status-delivered');
export const STATUS_DEAD = meta('status-dead');

// ATTEMPT_OUTCOMES are what the stats count attempts as, in the order the
// charts stack them; each is also the stats' field of its count.
export const ATTEMPT_OUTCOMES = words('attempt-outcomes');

// RECOVERY_RUNNING is a recovery's status while it continues by itself;
// RECOVERY_STALL_MS how long past its next step's time a running recovery
// is stalled, when a second Recover resumes it.
export const RECOVERY_RUNNING = meta('recovery-running');
export const RECOVERY_STALL_MS = Number(meta('recovery-stall-seconds')) * 1000;

// HEALTH_STATES are an endpoint's health states, worst first (disabled,
// failing, paused, healthy): the order endpoints are listed in.
export const HEALTH_STATES = words('health-states');

// RETENTION_DAYS is how many days deliveries are kept: what a search can
// still find.
export const RETENTION_DAYS = meta('retention-days');
