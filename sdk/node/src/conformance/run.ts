// The Node SDK's conformance runner (sdk/conformance/README.md): runs one
// scenario with the SDK the way an integrator would, reading the params on
// the first stdin line and printing the report as the last stdout line.

import { createServer, type Server } from "node:http";
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import {
  BotixError,
  Client,
  type ClientOptions,
  ErrorCode,
  ROUTES,
  type ContactListParams,
  type DeliveryListParams,
  type EventListParams,
  type ListParams,
  type MessageListParams,
  type StatsParams,
  SqlDeduplicator,
  createWebhookHandler,
  type ResponseInfo,
} from "../index.js";

type Params = Record<string, any>;

function result(r: { id?: string; response: ResponseInfo }) {
  return {
    id: r.id ?? "",
    replayed: r.response.replayed,
    attempts: r.response.attempts,
    idempotency_key: r.response.idempotencyKey,
    request_id: r.response.requestId,
  };
}

function error(e: unknown) {
  if (!(e instanceof BotixError)) throw e; // not the SDK's error: the runner crashed
  return {
    type: e.name,
    kind: e.kind,
    status: e.status,
    code: e.code,
    message: e.apiMessage || e.message,
    field: e.field,
    details: e.details,
    request_id: e.requestId,
    retry_after_s: Math.ceil(e.retryAfterMs / 1000),
    idempotency_key: e.idempotencyKey,
    attempts: e.attempts,
    reissuable: e.reissuable,
  };
}

async function outcome<T>(f: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: ReturnType<typeof error> }> {
  try {
    return { ok: true, value: await f() };
  } catch (e) {
    return { ok: false, error: error(e) };
  }
}

const client = (o: ClientOptions = {}) => new Client(o); // BOTIX_API_URL and BOTIX_API_KEY from the environment

function phone8(prefix: string, i: number): string {
  return prefix + String(i).padStart(8, "0");
}

const scenarios: Record<string, (p: Params) => Promise<unknown>> = {
  async routes() {
    return { routes: Object.values(ROUTES).map(([m, path]) => [m, "/public/v1" + path]) };
  },
  async codes() {
    return { codes: Object.values(ErrorCode) };
  },
  async schemas() {
    return { generated_from: "sdk/openapi.yaml" };
  },

  // Each list method once with every parameter its params type has set:
  // Required<> makes the compiler refuse this file when a field is added
  // to a type and not here. The harness compares the query sent with the
  // document.
  async "list-params"(p) {
    const c = client({ retry: { maxAttempts: 1 } });
    const t = new Date("2026-11-29T08:00:00Z");
    const page: Required<ListParams> = { limit: 1, cursor: "x" };
    const contacts: Required<ContactListParams> = { ...page, tag: "x", createdAfter: t, createdBefore: t };
    const messages: Required<MessageListParams> = { ...page, contactId: "x", status: "queued" };
    const deliveries: Required<DeliveryListParams> = {
      ...page, status: "dead", endpointId: "x", eventType: "x", eventId: "x", deliveryId: "x", requestId: "x", since: t, until: t,
    };
    const stats: Required<StatsParams> = { granularity: "day", endpointId: "x", since: t, until: t };
    const events: Required<EventListParams> = { ...page, type: "x", since: t };
    const first = async (w: AsyncIterable<unknown>) => {
      for await (const _ of w) break; // a walk's first page is its first request
    };
    const steps: [string, object, () => Promise<unknown>][] = [
      ["/public/v1/contacts", contacts, () => first(c.contacts.list(contacts))],
      ["/public/v1/messages", messages, () => first(c.messages.list(messages))],
      ["/public/v1/webhook-endpoints", page, () => first(c.webhookEndpoints.list(page))],
      ["/public/v1/webhook-deliveries", deliveries, () => first(c.deliveries.list(deliveries))],
      ["/public/v1/webhook-deliveries/stats", stats, () => c.deliveries.stats(stats)],
      ["/public/v1/inspectors/{id}/requests", page, () => first(c.inspectors.requests(p.inspector_id, page))],
      ["/public/v1/events", events, () => first(c.events.list(events))],
      ["/public/v1/dashboard-sessions", page, () => first(c.dashboardSessions.list(page))],
    ];
    const calls = [];
    for (const [path, params, call] of steps) {
      await outcome(call); // the API's answer does not matter: the query sent does
      calls.push({ path, set: Object.keys(params).length });
    }
    return { calls };
  },

  async "lossy-creates"(p) {
    const c = client({
      attemptTimeoutMs: p.attempt_timeout_ms,
      retry: { maxAttempts: p.max_attempts, baseDelayMs: p.base_delay_ms, maxDelayMs: p.max_delay_ms },
    });
    const report = { calls: 0, completed: 0, reissues: 0, replayed: 0, contact_ids: [] as string[], errors: [] as unknown[] };
    let next = 0;
    const one = async (i: number) => {
      const body = { phone: phone8(p.phone_prefix, i), name: `c${i}`, tags: [p.tag] };
      let opts = {};
      report.calls++; // one logical create; its re-issues are counted apart
      for (let reissues = 0; ; reissues++) {
        try {
          const r = await c.contacts.create(body, opts);
          report.completed++;
          if (r.response.replayed) report.replayed++;
          report.contact_ids.push(r.id);
          return;
        } catch (e) {
          report.errors.push(error(e));
          if (!(e instanceof BotixError) || !e.reissuable || reissues >= p.max_reissues) return;
          report.reissues++;
          opts = e.reissue(); // the same operation: the same key
        }
      }
    };
    const worker = async () => {
      while (next < p.count) await one(next++);
    };
    await Promise.all(Array.from({ length: Math.max(1, p.concurrency ?? 1) }, worker));
    return report;
  },

  async "in-progress"(p) {
    const r = await outcome(() => client().contacts.create({ phone: p.phone, name: "in-progress" }));
    return r.ok ? { result: result(r.value) } : { error: r.error };
  },

  async "reuse-conflict"(p) {
    const c = client();
    const key = { idempotencyKey: p.idempotency_key };
    const first = await c.contacts.create({ phone: p.phone_a, name: "reuse" }, key);
    const replay = await c.contacts.create({ phone: p.phone_a, name: "reuse" }, key);
    const conflict = await outcome(() => c.contacts.create({ phone: p.phone_b, name: "reuse" }, key));
    const invalid = await outcome(() => c.contacts.create({ phone: p.phone_b, name: "reuse" }, { idempotencyKey: p.invalid_key }));
    return {
      first: result(first),
      replay: result(replay),
      conflict: conflict.ok ? null : conflict.error,
      invalid_key: invalid.ok ? null : invalid.error,
    };
  },

  async validation(p) {
    const r = await outcome(() => client().contacts.create({ phone: p.phone, name: "validation" }));
    return { error: r.ok ? null : r.error };
  },

  async "bad-key"(p) {
    const r = await outcome(() => client({ apiKey: p.api_key }).contacts.listPage());
    return { error: r.ok ? null : r.error };
  },

  async "retry-after"(p) {
    const r = await outcome(() => client().contacts.create({ phone: p.phone, name: "retry-after" }));
    return r.ok ? { result: result(r.value) } : { error: r.error };
  },

  async "retry-after-capped"(p) {
    const r = await outcome(() => client({ retry: { maxRetryAfterMs: p.max_retry_after_ms } }).contacts.create({ phone: p.phone, name: "capped" }));
    return r.ok ? { result: result(r.value) } : { error: r.error };
  },

  async "retry-quota"(p) {
    const c = client({
      retry: { quotaCapacity: p.quota_capacity, maxAttempts: p.max_attempts, baseDelayMs: p.base_delay_ms, maxDelayMs: p.max_delay_ms },
    });
    const run = async (n: number, limit: number) => {
      const out = [];
      for (let i = 0; i < n; i++) {
        const r = await outcome(() => c.contacts.listPage({ limit }));
        out.push(r.ok ? { ok: true, attempts: r.value.response.attempts, error: null } : { ok: false, attempts: r.error.attempts, error: r.error });
      }
      return out;
    };
    const outage = await run(p.outage_calls, p.outage_limit);
    const refill = await run(p.refill_calls, p.refill_limit);
    const after = await run(p.after_calls, p.after_limit);
    return { outage, refill, after };
  },

  async "iterate-resume"(p) {
    const ids: string[] = [];
    const walk = client().contacts.list({ limit: p.limit });
    let position = "";
    for await (const contact of walk) {
      ids.push(contact.id);
      if (ids.length === p.stop_after) {
        position = walk.position.toString(); // the item is handled: keep where the walk stands
        break;
      }
    }
    // A new client, as another process would: only the string is carried over.
    for await (const contact of client().contacts.list({ limit: p.limit }, { from: position })) ids.push(contact.id);
    return { ids, position };
  },
};

/** webhook-receive: serves until stdin closes, then reports what each receiver processed. */
async function webhookReceive(p: Params, stdinClosed: Promise<void>): Promise<unknown> {
  const require = createRequire(import.meta.url);
  const initSqlJs = require("sql.js") as (o?: object) => Promise<{ Database: new () => SqlJsDatabase }>;
  const SQL = await initSqlJs();
  // One SQL database every receiver of this process shares, one table per receiver: the store
  // the processes of a receiver would share.
  const db = new SQL.Database();
  const query = async (sql: string, params: unknown[]) => {
    const st = db.prepare(sql);
    try {
      st.bind(params as never);
      const rows: Record<string, unknown>[] = [];
      while (st.step()) rows.push(st.getAsObject());
      return rows;
    } finally {
      st.free();
    }
  };
  const failOnce = new Set<string>((p.fail_once ?? []).filter((x: unknown) => typeof x === "string"));
  const failed = new Set<string>();
  const slow: Record<string, number> = p.slow ?? {};
  const processed: Record<string, string[]> = {};
  const urls: Record<string, string> = {};
  const servers: Server[] = [];
  for (const [i, r] of (p.receivers as Params[]).entries()) {
    const name: string = r.name;
    processed[name] = [];
    const dedup = new SqlDeduplicator(query, { table: `events_${i}` });
    await query(dedup.createTableSQL, []);
    const handler = createWebhookHandler({
      secrets: r.secrets,
      allowLegacy: r.allow_legacy,
      toleranceMs: (r.tolerance_s ?? p.tolerance_s ?? 300) * 1000,
      dedup,
      log: (m, f) => process.stderr.write(`${name}: ${m} ${JSON.stringify(f)}\n`),
      async process(ev) {
        const key = `${name}\n${ev.id}`;
        if (failOnce.has(ev.id) && !failed.has(key)) {
          failed.add(key);
          throw new Error("fail_once");
        }
        const ms = slow[ev.id];
        if (ms) await new Promise((res) => setTimeout(res, ms));
        processed[name]!.push(ev.id);
      },
    });
    const server = createServer(handler);
    await new Promise<void>((res) => server.listen(0, "127.0.0.1", res));
    const addr = server.address();
    if (!addr || typeof addr === "string") throw new Error("no address");
    urls[name] = `http://127.0.0.1:${addr.port}/`;
    servers.push(server);
  }
  process.stdout.write(JSON.stringify({ receivers: urls }) + "\n");
  await stdinClosed;
  for (const s of servers) s.closeAllConnections?.();
  await Promise.all(servers.map((s) => new Promise((res) => s.close(res))));
  return { processed };
}

interface SqlJsDatabase {
  prepare(sql: string): { bind(p: never): void; step(): boolean; getAsObject(): Record<string, unknown>; free(): void };
}

async function main() {
  const id = process.argv[2] ?? "";
  const rl = createInterface({ input: process.stdin });
  let resolveClosed!: () => void;
  const stdinClosed = new Promise<void>((res) => (resolveClosed = res));
  const firstLine = new Promise<string>((res) => {
    let got = false;
    rl.on("line", (l) => {
      if (!got) {
        got = true;
        res(l);
      }
    });
    rl.on("close", () => {
      if (!got) res("{}");
      resolveClosed();
    });
  });
  const params = JSON.parse((await firstLine) || "{}") as Params;
  let report: unknown;
  if (id === "webhook-receive") report = await webhookReceive(params, stdinClosed);
  else if (scenarios[id]) report = await scenarios[id](params);
  else {
    process.stderr.write(`unknown scenario ${JSON.stringify(id)}\n`);
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(report) + "\n");
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`runner failed: ${e?.stack ?? e}\n`);
  process.exit(1);
});
