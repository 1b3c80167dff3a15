// The BOTIX client: a method for every public route of the API. Every
// method goes through ROUTES, the table the conformance suite compares with
// the API's routes.

import { type CallOptions, type ClientOptions, type Operation, type ResponseInfo, Transport, type WithResponse } from "./client.js";
import type { components } from "./generated/openapi.js";
import { type Page, Position, Walker } from "./walk.js";

type S = components["schemas"];
export type Contact = S["Contact"];
export type ContactCreate = S["ContactCreate"];
export type Count = S["Count"];
export type Message = S["Message"];
export type MessageCreate = S["MessageCreate"];
export type CatalogImportCreate = S["CatalogImportCreate"];
export type CatalogImport = S["CatalogImport"];
export type ScenarioRunCreate = S["ScenarioRunCreate"];
export type ScenarioRun = S["ScenarioRun"];
export type WebhookEndpoint = S["WebhookEndpoint"];
export type WebhookEndpointWithSecret = S["WebhookEndpointWithSecret"];
export type WebhookEndpointCreate = S["WebhookEndpointCreate"];
export type WebhookEndpointUpdate = S["WebhookEndpointUpdate"];
/** The slow-down the receiver asked for with a 429, or a 503 with Retry-After: on an endpoint while it lasts. */
export type EndpointThrottle = S["EndpointThrottle"];
export type EndpointHealth = S["EndpointHealth"];
export type Deleted = S["Deleted"];
export type TestEvent = S["TestEvent"];
export type RecoverRequest = S["RecoverRequest"];
export type Recovery = S["Recovery"];
/** An endpoint's latest recovery, as `get` shows it (`WebhookEndpoint.recovery`). */
export type RecoveryProgress = S["RecoveryProgress"];
export type Delivery = S["Delivery"];
export type DeliveryDetail = S["DeliveryDetail"];
export type RedirectRequest = S["RedirectRequest"];
export type DeliveryRequest = S["DeliveryRequest"];
export type DeliveryStats = S["DeliveryStats"];
export type Inspector = S["Inspector"];
export type InspectorRequest = S["InspectorRequest"];
export type Event = S["Event"];
export type ErrorCodeReference = S["ErrorCodeReference"];
export type ErrorCodeInfo = S["ErrorCodeInfo"];
/** The body of `dashboardSessions.create`: `scope` is `read` or `read_retry`. */
export type DashboardSessionRequest = S["DashboardSessionRequest"];
/** A dashboard session; its `token` is shown only in the answer of `create`. */
export type DashboardSession = S["DashboardSession"];
export type DashboardSessionDeleted = S["DashboardSessionDeleted"];
/** The session of a client's token (`dashboardSessions.current()`), without the token. */
export type CurrentDashboardSession = S["CurrentDashboardSession"];
/** A live session as `dashboardSessions.list` shows it: no token, and `key_id`, the API key that made it (null for a session made before sessions recorded their key). */
export type ListedDashboardSession = S["ListedDashboardSession"];

/** Every public route, by the OpenAPI operationId; paths are after /public/v1, parameters in braces. */
export const ROUTES = {
  createContact: ["POST", "/contacts"],
  listContacts: ["GET", "/contacts"],
  countContacts: ["GET", "/contacts/count"],
  getContact: ["GET", "/contacts/{id}"],
  sendMessage: ["POST", "/messages"],
  listMessages: ["GET", "/messages"],
  importCatalog: ["POST", "/catalog/imports"],
  runScenario: ["POST", "/scenarios/{scenario_id}/runs"],
  createWebhookEndpoint: ["POST", "/webhook-endpoints"],
  listWebhookEndpoints: ["GET", "/webhook-endpoints"],
  getWebhookEndpoint: ["GET", "/webhook-endpoints/{id}"],
  updateWebhookEndpoint: ["PATCH", "/webhook-endpoints/{id}"],
  deleteWebhookEndpoint: ["DELETE", "/webhook-endpoints/{id}"],
  rotateWebhookSecret: ["POST", "/webhook-endpoints/{id}/rotate-secret"],
  testWebhookEndpoint: ["POST", "/webhook-endpoints/{id}/test"],
  recoverWebhookEndpoint: ["POST", "/webhook-endpoints/{id}/recover"],
  listDeliveries: ["GET", "/webhook-deliveries"],
  getDeliveryStats: ["GET", "/webhook-deliveries/stats"],
  getDelivery: ["GET", "/webhook-deliveries/{id}"],
  retryDelivery: ["POST", "/webhook-deliveries/{id}/retry"],
  redirectDelivery: ["POST", "/webhook-deliveries/{id}/redirect"],
  createInspector: ["POST", "/inspectors"],
  listInspectorRequests: ["GET", "/inspectors/{id}/requests"],
  listEvents: ["GET", "/events"],
  getEvent: ["GET", "/events/{id}"],
  createDashboardSession: ["POST", "/dashboard-sessions"],
  listDashboardSessions: ["GET", "/dashboard-sessions"],
  getCurrentDashboardSession: ["GET", "/dashboard-sessions/current"],
  deleteDashboardSession: ["DELETE", "/dashboard-sessions/{id}"],
  getOpenAPI: ["GET", "/openapi.json"],
  getErrorCodes: ["GET", "/error-codes"],
  getChangelog: ["GET", "/changelog.atom"],
} as const satisfies Record<string, readonly [string, string]>;

export type RouteName = keyof typeof ROUTES;

/** The operation of a route: its method, and its path with the parameters filled in and escaped. */
export function operation(name: RouteName, params: Record<string, string> = {}, rest: Omit<Operation, "method" | "path"> = {}): Operation {
  const [method, template] = ROUTES[name];
  const path = template.replace(/\{([a-z_]+)\}/g, (_, p: string) => {
    const v = params[p];
    if (v === undefined || v === "") throw new TypeError(`botix: ${name} needs ${p}`);
    return encodeURIComponent(v);
  });
  return { method, path, ...rest };
}

/** The cursor parameters of every list: limit 1..200 (absent: the API's default, 20); cursor from an earlier page of the same list and filters. */
export interface ListParams {
  limit?: number;
  cursor?: string;
}
export interface ContactListParams extends ListParams {
  tag?: string;
  createdAfter?: Date | string;
  createdBefore?: Date | string;
}
export interface MessageListParams extends ListParams {
  contactId?: string;
  status?: S["MessageStatus"];
}
export interface DeliveryListParams extends ListParams {
  status?: S["DeliveryStatus"];
  endpointId?: string;
  eventType?: string;
  /** The deliveries of one event (the webhook-id a receiver saw). */
  eventId?: string;
  /** One delivery (dlv_...), when it matches the other filters too. */
  deliveryId?: string;
  /** The delivery one of whose attempts sent this request id (req_..., the X-Botix-Request-Id a receiver logged). */
  requestId?: string;
  since?: Date | string;
  until?: Date | string;
}
export interface EventListParams extends ListParams {
  type?: string;
  since?: Date | string;
}
export interface StatsParams {
  granularity?: "hour" | "day";
  endpointId?: string;
  since?: Date | string;
  until?: Date | string;
}
/** Where a walk starts: a Position, its string (from position.toString()), or the start. */
export interface WalkOptions {
  from?: Position | string;
  signal?: AbortSignal;
}

function timeParam(t: Date | string | undefined): string | undefined {
  if (t === undefined || t === "") return undefined;
  return typeof t === "string" ? t : t.toISOString();
}

function query(p: ListParams, filters: Record<string, string | undefined> = {}): URLSearchParams {
  const q = new URLSearchParams();
  if (p.cursor) q.set("cursor", p.cursor);
  if (p.limit !== undefined && p.limit > 0) q.set("cursor_limit", String(p.limit));
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== "") q.set(k, v);
  return q;
}

function withResponse<T extends object>(data: T, response: ResponseInfo): WithResponse<T> {
  Object.defineProperty(data, "response", { value: response, enumerable: false });
  return data as WithResponse<T>;
}

interface PageJSON<T> {
  data?: T[];
  next_cursor?: string | null;
  has_more?: boolean;
}

/** The BOTIX public API client. Safe for concurrent use; its retry quota is shared by all its calls. */
export class Client {
  readonly transport: Transport;
  readonly contacts: Contacts;
  readonly messages: Messages;
  readonly catalog: Catalog;
  readonly scenarios: Scenarios;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly deliveries: Deliveries;
  readonly inspectors: Inspectors;
  readonly events: Events;
  readonly dashboardSessions: DashboardSessions;

  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(options);
    this.contacts = new Contacts(this);
    this.messages = new Messages(this);
    this.catalog = new Catalog(this);
    this.scenarios = new Scenarios(this);
    this.webhookEndpoints = new WebhookEndpoints(this);
    this.deliveries = new Deliveries(this);
    this.inspectors = new Inspectors(this);
    this.events = new Events(this);
    this.dashboardSessions = new DashboardSessions(this);
  }

  /** Calls a route and returns its JSON object with `response`. */
  async request<T extends object>(name: RouteName, params: Record<string, string>, rest: Omit<Operation, "method" | "path">, opts?: CallOptions): Promise<WithResponse<T>> {
    const { data, response } = await this.transport.call<T>(operation(name, params, rest), opts);
    return withResponse((data ?? {}) as T, response);
  }

  /** One page of a list route. */
  async page<T>(name: RouteName, params: Record<string, string>, q: URLSearchParams, opts?: CallOptions): Promise<Page<T>> {
    const { data, response } = await this.transport.call<PageJSON<T>>(operation(name, params, { query: q }), opts);
    return { data: data?.data ?? [], nextCursor: data?.next_cursor ?? "", hasMore: data?.has_more ?? false, response };
  }

  /** A Walker over a list route, from w.from, else from q's cursor. */
  walker<T extends { id: string }>(name: RouteName, params: Record<string, string>, q: URLSearchParams, w: WalkOptions = {}): Walker<T> {
    let from = typeof w.from === "string" ? Position.parse(w.from) : (w.from ?? Position.start);
    if (from.isStart) from = new Position(q.get("cursor") ?? "");
    q.delete("cursor");
    return new Walker<T>((cursor) => {
      const pq = new URLSearchParams(q);
      if (cursor) pq.set("cursor", cursor);
      return this.page<T>(name, params, pq, { signal: w.signal });
    }, from);
  }

  /** The API's OpenAPI 3.1 document (GET /public/v1/openapi.json), the contract this client follows. */
  openAPI(opts?: CallOptions): Promise<WithResponse<Record<string, unknown>>> {
    return this.request("getOpenAPI", {}, {}, opts);
  }

  /** The API's error-code reference (GET /public/v1/error-codes). */
  errorCodes(opts?: CallOptions): Promise<WithResponse<ErrorCodeReference>> {
    return this.request("getErrorCodes", {}, {}, opts);
  }

  /** The API's changelog (GET /public/v1/changelog.atom, Atom 1.0), newest entry first. */
  async changelog(opts?: CallOptions): Promise<WithResponse<{ entries: ChangelogEntry[] }>> {
    const { data, response } = await this.transport.call<string>(operation("getChangelog", {}, { raw: true }), opts);
    return withResponse({ entries: parseAtom(data) }, response);
  }
}

/** One entry of the API's changelog. */
export interface ChangelogEntry {
  id: string;
  title: string;
  published: string;
  updated: string;
  /** The kind ("added", "changed", "deprecated") and the version ("API 1.1.0"). */
  categories: string[];
  link: string;
  summary: string;
}

function unescapeXML(s: string): string {
  return s
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1")
    .replace(/&#x([0-9a-fA-F]+);/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** Reads the entries of the API's Atom feed (the shape the API renders; Node has no XML parser built in). */
export function parseAtom(xml: string): ChangelogEntry[] {
  const out: ChangelogEntry[] = [];
  for (const m of xml.matchAll(/<entry>([\s\S]*?)<\/entry>/g)) {
    const e = m[1]!;
    const text = (tag: string) => unescapeXML(new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`).exec(e)?.[1] ?? "").trim();
    out.push({
      id: text("id"),
      title: text("title"),
      published: text("published"),
      updated: text("updated"),
      categories: [...e.matchAll(/<category\s[^>]*term="([^"]*)"/g)].map((c) => unescapeXML(c[1]!)),
      link: unescapeXML(/<link\s[^>]*href="([^"]*)"/.exec(e)?.[1] ?? ""),
      summary: text("summary"),
    });
  }
  return out;
}

/** /public/v1/contacts */
export class Contacts {
  constructor(private readonly c: Client) {}
  /** Creates a contact (idempotent: one key for the call, the same on every retry). 409 CONTACT_ALREADY_EXISTS when the phone is taken. */
  create(body: ContactCreate, opts?: CallOptions): Promise<WithResponse<Contact>> {
    return this.c.request("createContact", {}, { body }, opts);
  }
  get(id: string, opts?: CallOptions): Promise<WithResponse<Contact>> {
    return this.c.request("getContact", { id }, {}, opts);
  }
  /** How many contacts the project has. */
  count(opts?: CallOptions): Promise<WithResponse<Count>> {
    return this.c.request("countContacts", {}, {}, opts);
  }
  /** One page of contacts, newest first. */
  listPage(p: ContactListParams = {}, opts?: CallOptions): Promise<Page<Contact>> {
    return this.c.page("listContacts", {}, contactQuery(p), opts);
  }
  /** Every contact, newest first, as a resumable async iterable (`for await`). */
  list(p: ContactListParams = {}, w?: WalkOptions): Walker<Contact> {
    return this.c.walker("listContacts", {}, contactQuery(p), w);
  }
}
function contactQuery(p: ContactListParams): URLSearchParams {
  return query(p, { tag: p.tag, created_after: timeParam(p.createdAfter), created_before: timeParam(p.createdBefore) });
}

/** /public/v1/messages */
export class Messages {
  constructor(private readonly c: Client) {}
  /** Queues a message to a contact (idempotent). */
  send(body: MessageCreate, opts?: CallOptions): Promise<WithResponse<Message>> {
    return this.c.request("sendMessage", {}, { body }, opts);
  }
  listPage(p: MessageListParams = {}, opts?: CallOptions): Promise<Page<Message>> {
    return this.c.page("listMessages", {}, messageQuery(p), opts);
  }
  list(p: MessageListParams = {}, w?: WalkOptions): Walker<Message> {
    return this.c.walker("listMessages", {}, messageQuery(p), w);
  }
}
function messageQuery(p: MessageListParams): URLSearchParams {
  return query(p, { contact_id: p.contactId, status: p.status });
}

/** /public/v1/catalog */
export class Catalog {
  constructor(private readonly c: Client) {}
  /** Queues a catalog import (idempotent; up to 1 MB of items). */
  import(body: CatalogImportCreate, opts?: CallOptions): Promise<WithResponse<CatalogImport>> {
    return this.c.request("importCatalog", {}, { body }, opts);
  }
}

/** /public/v1/scenarios */
export class Scenarios {
  constructor(private readonly c: Client) {}
  /** Starts a scenario for a contact (idempotent). */
  run(scenarioId: string, body: ScenarioRunCreate, opts?: CallOptions): Promise<WithResponse<ScenarioRun>> {
    return this.c.request("runScenario", { scenario_id: scenarioId }, { body }, opts);
  }
}

/** /public/v1/webhook-endpoints */
export class WebhookEndpoints {
  constructor(private readonly c: Client) {}
  /** Registers an endpoint; the answer's secret is shown only here. */
  create(body: WebhookEndpointCreate, opts?: CallOptions): Promise<WithResponse<WebhookEndpointWithSecret>> {
    return this.c.request("createWebhookEndpoint", {}, { body }, opts);
  }
  get(id: string, opts?: CallOptions): Promise<WithResponse<WebhookEndpoint>> {
    return this.c.request("getWebhookEndpoint", { id }, {}, opts);
  }
  listPage(p: ListParams = {}, opts?: CallOptions): Promise<Page<WebhookEndpoint>> {
    return this.c.page("listWebhookEndpoints", {}, query(p), opts);
  }
  list(p: ListParams = {}, w?: WalkOptions): Walker<WebhookEndpoint> {
    return this.c.walker("listWebhookEndpoints", {}, query(p), w);
  }
  /** Changes the fields that are set (idempotent). */
  update(id: string, body: WebhookEndpointUpdate, opts?: CallOptions): Promise<WithResponse<WebhookEndpoint>> {
    return this.c.request("updateWebhookEndpoint", { id }, { body }, opts);
  }
  /** Removes an endpoint (idempotent). */
  delete(id: string, opts?: CallOptions): Promise<WithResponse<Deleted>> {
    return this.c.request("deleteWebhookEndpoint", { id }, {}, opts);
  }
  /** A new signing secret (shown only in the answer); the previous one keeps signing until previous_secret_expires_at. */
  rotateSecret(id: string, opts?: CallOptions): Promise<WithResponse<WebhookEndpointWithSecret>> {
    return this.c.request("rotateWebhookSecret", { id }, {}, opts);
  }
  /** Sends a webhook.test event to this endpoint through the normal pipeline. */
  test(id: string, opts?: CallOptions): Promise<WithResponse<TestEvent>> {
    return this.c.request("testWebhookEndpoint", { id }, {}, opts);
  }
  /** Re-sends the failed or dead deliveries since a time (at most 100 per step; while has_more the recovery continues by itself, paced: `get` shows its progress). */
  recover(id: string, since: Date | string, opts?: CallOptions): Promise<WithResponse<Recovery>> {
    const body: RecoverRequest = { since: timeParam(since)! };
    return this.c.request("recoverWebhookEndpoint", { id }, { body }, opts);
  }
}

/** /public/v1/webhook-deliveries */
export class Deliveries {
  constructor(private readonly c: Client) {}
  listPage(p: DeliveryListParams = {}, opts?: CallOptions): Promise<Page<Delivery>> {
    return this.c.page("listDeliveries", {}, deliveryQuery(p), opts);
  }
  list(p: DeliveryListParams = {}, w?: WalkOptions): Walker<Delivery> {
    return this.c.walker("listDeliveries", {}, deliveryQuery(p), w);
  }
  /** A delivery with its payload and attempts. */
  get(id: string, opts?: CallOptions): Promise<WithResponse<DeliveryDetail>> {
    return this.c.request("getDelivery", { id }, {}, opts);
  }
  /** Attempts per hour or day, by outcome. */
  stats(p: StatsParams = {}, opts?: CallOptions): Promise<WithResponse<DeliveryStats>> {
    const q = query({}, { granularity: p.granularity, endpoint_id: p.endpointId, since: timeParam(p.since), until: timeParam(p.until) });
    return this.c.request("getDeliveryStats", {}, { query: q }, opts);
  }
  /** Sends the delivery again now, as a manual attempt (idempotent). */
  retry(id: string, opts?: CallOptions): Promise<WithResponse<DeliveryRequest>> {
    return this.c.request("retryDelivery", { id }, {}, opts);
  }
  /** Sends the delivery's webhook to an inspector instead (idempotent). */
  redirect(id: string, inspectorId: string, opts?: CallOptions): Promise<WithResponse<DeliveryRequest>> {
    const body: RedirectRequest = { inspector_id: inspectorId };
    return this.c.request("redirectDelivery", { id }, { body }, opts);
  }
}
function deliveryQuery(p: DeliveryListParams): URLSearchParams {
  return query(p, {
    status: p.status,
    endpoint_id: p.endpointId,
    event_type: p.eventType,
    event_id: p.eventId,
    delivery_id: p.deliveryId,
    request_id: p.requestId,
    since: timeParam(p.since),
    until: timeParam(p.until),
  });
}

/** /public/v1/inspectors */
export class Inspectors {
  constructor(private readonly c: Client) {}
  /** Makes an inspector: a URL that keeps what it is sent (idempotent). */
  create(opts?: CallOptions): Promise<WithResponse<Inspector>> {
    return this.c.request("createInspector", {}, {}, opts);
  }
  requestsPage(id: string, p: ListParams = {}, opts?: CallOptions): Promise<Page<InspectorRequest>> {
    return this.c.page("listInspectorRequests", { id }, query(p), opts);
  }
  /** Everything an inspector captured, newest first. */
  requests(id: string, p: ListParams = {}, w?: WalkOptions): Walker<InspectorRequest> {
    return this.c.walker("listInspectorRequests", { id }, query(p), w);
  }
}

/** /public/v1/events */
export class Events {
  constructor(private readonly c: Client) {}
  listPage(p: EventListParams = {}, opts?: CallOptions): Promise<Page<Event>> {
    return this.c.page("listEvents", {}, eventQuery(p), opts);
  }
  list(p: EventListParams = {}, w?: WalkOptions): Walker<Event> {
    return this.c.walker("listEvents", {}, eventQuery(p), w);
  }
  get(id: string, opts?: CallOptions): Promise<WithResponse<Event>> {
    return this.c.request("getEvent", { id }, {}, opts);
  }
}
/**
 * /public/v1/dashboard-sessions: short-lived, scoped tokens for the dashboard instead of the API key.
 * Only a client made with the key may call it; a client made with a session's token (`apiKey: token`)
 * calls what the scope grants and gets INSUFFICIENT_SCOPE for the rest.
 */
export class DashboardSessions {
  constructor(private readonly c: Client) {}
  /** Makes a session (idempotent); the answer's token is shown only here. */
  create(body: DashboardSessionRequest, opts?: CallOptions): Promise<WithResponse<DashboardSession>> {
    return this.c.request("createDashboardSession", {}, { body }, opts);
  }
  /** The session of this client's token: its scope and expiry (a client made with the API key gets NOT_FOUND). */
  current(opts?: CallOptions): Promise<WithResponse<CurrentDashboardSession>> {
    return this.c.request("getCurrentDashboardSession", {}, {}, opts);
  }
  listPage(p: ListParams = {}, opts?: CallOptions): Promise<Page<ListedDashboardSession>> {
    return this.c.page("listDashboardSessions", {}, query(p), opts);
  }
  /** The project's live sessions, newest first, each with the API key that made it (never their tokens): to find every token handed out and revoke it. The API key only (a session's token gets INSUFFICIENT_SCOPE). */
  list(p: ListParams = {}, w?: WalkOptions): Walker<ListedDashboardSession> {
    return this.c.walker("listDashboardSessions", {}, query(p), w);
  }
  /** Revokes a session: its token stops working at once (idempotent). */
  delete(id: string, opts?: CallOptions): Promise<WithResponse<DashboardSessionDeleted>> {
    return this.c.request("deleteDashboardSession", { id }, {}, opts);
  }
}

function eventQuery(p: EventListParams): URLSearchParams {
  return query(p, { type: p.type, since: timeParam(p.since) });
}
