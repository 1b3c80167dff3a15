// The receiver kit for BOTIX webhooks: verify a request's signatures,
// process each event once (a deduplicating store in three states), and
// serve them from a node:http handler. BOTIX sends:
//
//   POST <your URL>
//   X-Botix-Signature: <hex HMAC-SHA256 of the body>[,<hex> per further active secret]
//   webhook-id: evt_...            (the event id; the same on every retry)
//   webhook-timestamp: <unix seconds>
//   webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> [v1,... per further active secret]
//
// The HMAC key is the base64 part of the endpoint secret ("whsec_<base64>").

import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/** How far webhook-timestamp may be from now, by default: 5 minutes. */
export const DEFAULT_TOLERANCE_MS = 5 * 60_000;
/** The largest body the handler reads (BOTIX sends at most 64 KB). */
export const MAX_BODY = 1 << 20;
/** How long done event ids are remembered: longer than BOTIX's retry window. */
export const DEFAULT_RETENTION_MS = 72 * 3600_000;
/** How long a processing claim holds before a redelivery may take it over. */
export const DEFAULT_LEASE_MS = 5 * 60_000;

/** Why a request failed verification. */
export type VerificationReason =
  | "no_signature" // neither header
  | "untimed_signature" // only X-Botix-Signature, and allowLegacy is off
  | "bad_signature" // no signature matches any secret
  | "bad_timestamp" // webhook-timestamp missing or not a number
  | "stale" // webhook-timestamp outside the tolerance
  | "bad_secret"; // a secret is not whsec_ + base64

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
  constructor(readonly reason: VerificationReason) {
    super(`webhook: ${reasonText[reason]}`);
  }
}

const reasonText: Record<VerificationReason, string> = {
  no_signature: "no X-Botix-Signature or webhook-signature header",
  untimed_signature: "only X-Botix-Signature, which carries no timestamp; webhook-signature is required",
  bad_signature: "signature does not match",
  bad_timestamp: "invalid webhook-timestamp",
  stale: "timestamp outside the tolerance",
  bad_secret: "secret must be whsec_ followed by base64",
};

/** Request headers as node:http, fetch or a plain object give them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(h: HeaderSource, name: string): string {
  if (typeof (h as Headers).get === "function") return (h as Headers).get(name) ?? "";
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(h as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === lower && v !== undefined) return Array.isArray(v) ? v.join(", ") : v;
  }
  return "";
}

/** A BOTIX event as a webhook carries it. Thin events carry only {object, id} in data: fetch the object through the API. */
export interface WebhookEvent {
  id: string;
  type: string;
  created_at: string;
  project_id: string;
  data: unknown;
  thin?: boolean;
}

export interface VerifierOptions {
  /** The endpoint's secrets (more than one during a rotation). */
  secrets: string[];
  /** Bounds |now - webhook-timestamp|; default 5 minutes. */
  toleranceMs?: number;
  /**
   * Also accept a request signed with X-Botix-Signature alone (untimestamped: a captured one
   * can be replayed at any time; only the deduplicator stops it). A request that carries
   * webhook-signature is judged by it alone either way.
   */
  allowLegacy?: boolean;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith("whsec_")) throw new WebhookVerificationError("bad_secret");
  const raw = secret.slice("whsec_".length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw) || raw.length % 4 !== 0) throw new WebhookVerificationError("bad_secret");
  const k = Buffer.from(raw, "base64");
  if (k.length === 0) throw new WebhookVerificationError("bad_secret");
  return k;
}

/** Compares every expected signature with every candidate in constant time. */
function anyMatch(expected: Buffer[], candidates: string[]): boolean {
  let ok = false;
  for (const want of expected) {
    for (const c of candidates) {
      const got = Buffer.from(c, "utf8");
      // timingSafeEqual needs equal lengths; comparing against itself keeps the time independent of the content.
      const same = got.length === want.length ? timingSafeEqual(got, want) : (timingSafeEqual(want, want), false);
      if (same) ok = true;
    }
  }
  return ok;
}

/** Verifies webhook requests with its secrets: by webhook-signature (timestamped) when present, else X-Botix-Signature only with allowLegacy. */
export class Verifier {
  readonly secrets: string[];
  readonly toleranceMs: number;
  readonly allowLegacy: boolean;
  constructor(o: VerifierOptions) {
    this.secrets = [...o.secrets];
    this.toleranceMs = o.toleranceMs && o.toleranceMs > 0 ? o.toleranceMs : DEFAULT_TOLERANCE_MS;
    this.allowLegacy = o.allowLegacy ?? false;
  }

  /** Throws a WebhookVerificationError unless the request verifies. body: the raw bytes as received. */
  verify(headers: HeaderSource, body: string | Uint8Array, now: number = Date.now()): void {
    const keys = this.secrets.map(keyOf);
    const raw = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const std = header(headers, "webhook-signature");
    const legacy = header(headers, "x-botix-signature");
    if (std !== "") {
      // A bad webhook-signature is not excused by X-Botix-Signature.
      return this.#verifyStandard(keys, headers, raw, std, now);
    }
    if (legacy === "") throw new WebhookVerificationError("no_signature");
    if (!this.allowLegacy) throw new WebhookVerificationError("untimed_signature");
    const candidates = legacy.split(",").map((s) => s.trim().toLowerCase());
    const expected = keys.map((k) => Buffer.from(createHmac("sha256", k).update(raw).digest("hex"), "utf8"));
    if (!anyMatch(expected, candidates)) throw new WebhookVerificationError("bad_signature");
  }

  #verifyStandard(keys: Buffer[], headers: HeaderSource, body: Buffer, sigs: string, now: number): void {
    const tsText = header(headers, "webhook-timestamp").trim();
    if (!/^-?\d+$/.test(tsText)) throw new WebhookVerificationError("bad_timestamp");
    const ts = Number(tsText);
    if (Math.abs(now - ts * 1000) > this.toleranceMs) throw new WebhookVerificationError("stale");
    const id = header(headers, "webhook-id");
    const candidates: string[] = [];
    for (const part of sigs.split(/\s+/)) {
      const comma = part.indexOf(",");
      if (comma > 0 && part.slice(0, comma) === "v1") candidates.push(part.slice(comma + 1));
    }
    const expected = keys.map((k) =>
      Buffer.from(createHmac("sha256", k).update(`${id}.${ts}.`).update(body).digest("base64"), "utf8"),
    );
    if (!anyMatch(expected, candidates)) throw new WebhookVerificationError("bad_signature");
  }
}

/** verify with a Verifier of these options. */
export function verifyWebhook(o: VerifierOptions, headers: HeaderSource, body: string | Uint8Array, now?: number): void {
  new Verifier(o).verify(headers, body, now);
}

/** What a Deduplicator knows of an event id when begin is called. */
export type DedupState =
  /** Not seen, or its processing was forgotten or its lease ran out: the caller now holds the claim; process, then complete or forget. */
  | "unseen"
  /** Another copy is being processed under a live lease: neither process nor acknowledge. */
  | "processing"
  /** Processed: acknowledge, do not process. */
  | "done";

/**
 * Remembers event ids in three states so that an event is processed once even when copies
 * arrive concurrently: of concurrent begin calls with one unseen id, exactly one gets "unseen".
 * A rejected promise means the store could not be asked; the caller treats it as retryable.
 */
export interface Deduplicator {
  begin(eventId: string): Promise<DedupState>;
  /** Records the id as done (for the retention) after processing succeeded. */
  complete(eventId: string): Promise<void>;
  /** Releases a processing id after processing failed; leaves a done id done. */
  forget(eventId: string): Promise<void>;
}

export interface DedupOptions {
  /** How long a done id is remembered; default 72 h. */
  retentionMs?: number;
  /** How long a processing claim holds; default 5 minutes. It must exceed the longest processing. */
  leaseMs?: number;
  /** The clock (ms); default Date.now. */
  now?: () => number;
}

/** Remembers ids in process memory: right for one process and for tests. */
export class MemoryDeduplicator implements Deduplicator {
  readonly #seen = new Map<string, { done: boolean; until: number }>();
  readonly #retention: number;
  readonly #lease: number;
  readonly #now: () => number;
  constructor(o: DedupOptions = {}) {
    this.#retention = o.retentionMs || DEFAULT_RETENTION_MS;
    this.#lease = o.leaseMs || DEFAULT_LEASE_MS;
    this.#now = o.now ?? Date.now;
  }
  async begin(id: string): Promise<DedupState> {
    const now = this.#now();
    const e = this.#seen.get(id);
    if (e && now < e.until) return e.done ? "done" : "processing";
    if (this.#seen.size > 100_000) for (const [k, v] of this.#seen) if (now >= v.until) this.#seen.delete(k);
    this.#seen.set(id, { done: false, until: now + this.#lease });
    return "unseen";
  }
  async complete(id: string): Promise<void> {
    this.#seen.set(id, { done: true, until: this.#now() + this.#retention });
  }
  async forget(id: string): Promise<void> {
    const e = this.#seen.get(id);
    if (e && !e.done) this.#seen.delete(id);
  }
}

/** Runs one SQL statement with positional parameters and resolves to the rows it returned (none for a write). */
export type SqlQuery = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

export interface SqlDeduplicatorOptions extends DedupOptions {
  /** The table (default botix_webhook_events); created by createTableSQL. */
  table?: string;
  /** "?" (SQLite, MySQL-style drivers) or "$n" (PostgreSQL's pg). Default "?". */
  placeholders?: "?" | "$n";
}

/**
 * A Deduplicator in your SQL database, through a callback that runs a statement (e.g. better-sqlite3,
 * node:sqlite, pg). Every process of a receiver that shares the table shares the state. The
 * statements use INSERT ... ON CONFLICT, which SQLite (3.24+) and PostgreSQL understand. A claim is
 * atomic through the table's primary key: an expired row is deleted, then each claimant inserts
 * a row with its own token if none exists, and reads back whose token holds.
 */
export class SqlDeduplicator implements Deduplicator {
  readonly #q: SqlQuery;
  readonly #table: string;
  readonly #dollar: boolean;
  readonly #retention: number;
  readonly #lease: number;
  readonly #now: () => number;
  constructor(query: SqlQuery, o: SqlDeduplicatorOptions = {}) {
    this.#q = query;
    this.#table = o.table ?? "botix_webhook_events";
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(this.#table)) throw new TypeError("botix: the table name must be an SQL identifier");
    this.#dollar = o.placeholders === "$n";
    this.#retention = o.retentionMs || DEFAULT_RETENTION_MS;
    this.#lease = o.leaseMs || DEFAULT_LEASE_MS;
    this.#now = o.now ?? Date.now;
  }

  /** The CREATE TABLE statement of the store (run it once, e.g. in a migration). */
  get createTableSQL(): string {
    return `CREATE TABLE IF NOT EXISTS ${this.#table} (event_id TEXT PRIMARY KEY, state TEXT NOT NULL, until_ms BIGINT NOT NULL, token TEXT NOT NULL)`;
  }

  #run(sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    let n = 0;
    const text = this.#dollar ? sql.replace(/\?/g, () => `$${++n}`) : sql;
    return this.#q(text, params);
  }

  async begin(id: string): Promise<DedupState> {
    const t = this.#table;
    const now = this.#now();
    const token = randomUUID();
    await this.#run(`DELETE FROM ${t} WHERE event_id = ? AND until_ms <= ?`, [id, now]);
    await this.#run(`INSERT INTO ${t} (event_id, state, until_ms, token) VALUES (?, 'processing', ?, ?) ON CONFLICT (event_id) DO NOTHING`, [
      id,
      now + this.#lease,
      token,
    ]);
    const rows = await this.#run(`SELECT state, token FROM ${t} WHERE event_id = ?`, [id]);
    const row = rows[0];
    if (!row) return "processing"; // released between the two statements by its holder: not ours, ask again later
    if (row.token === token) return "unseen";
    return row.state === "done" ? "done" : "processing";
  }

  async complete(id: string): Promise<void> {
    await this.#run(
      `INSERT INTO ${this.#table} (event_id, state, until_ms, token) VALUES (?, 'done', ?, '') ON CONFLICT (event_id) DO UPDATE SET state = 'done', until_ms = excluded.until_ms`,
      [id, this.#now() + this.#retention],
    );
  }

  async forget(id: string): Promise<void> {
    await this.#run(`DELETE FROM ${this.#table} WHERE event_id = ? AND state = 'processing'`, [id]);
  }
}

/** A framework-neutral request and answer of the webhook handler. */
export interface WebhookRequest {
  method: string;
  headers: HeaderSource;
  body: Uint8Array | string;
}
export interface WebhookAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookHandlerOptions extends VerifierOptions {
  dedup: Deduplicator;
  /** Processes one event; a rejection makes the answer 500 and the event id forgotten so the retry processes it. */
  process: (event: WebhookEvent) => Promise<void> | void;
  /** One line per failure (never a secret); default console.warn. */
  log?: (message: string, fields: Record<string, unknown>) => void;
  now?: () => number;
}

/**
 * Verifies, de-duplicates and processes one webhook request. Answers: 200 processed or already
 * done; 503 without Retry-After while another copy is processing (BOTIX retries that delivery on
 * its schedule, so a failing processing does not lose the event; a Retry-After would make BOTIX
 * pause the whole endpoint, as on a 429); 500 when processing fails; 401 for a bad signature;
 * 503 when the store cannot be asked; 413 over 1 MiB; 405 for a method other than POST.
 */
export function createWebhookProcessor(o: WebhookHandlerOptions): (req: WebhookRequest) => Promise<WebhookAnswer> {
  const verifier = new Verifier(o);
  const log = o.log ?? ((m, f) => console.warn(m, f));
  const now = o.now ?? Date.now;
  const answer = (status: number, body = "", headers: Record<string, string> = {}): WebhookAnswer => ({
    status,
    body,
    headers: { "Content-Type": "text/plain; charset=utf-8", ...headers },
  });
  return async (req) => {
    if (req.method !== "POST") return answer(405, "POST only");
    const body = typeof req.body === "string" ? Buffer.from(req.body, "utf8") : req.body;
    if (body.byteLength > MAX_BODY) return answer(413, "body too large");
    try {
      verifier.verify(req.headers, body, now());
    } catch (e) {
      log("webhook rejected", { reason: e instanceof WebhookVerificationError ? e.reason : String(e), webhook_id: header(req.headers, "webhook-id") });
      return answer(401, "invalid signature");
    }
    let ev: WebhookEvent;
    try {
      ev = JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
      if (!ev || typeof ev.id !== "string" || ev.id === "") throw new Error("no id");
    } catch {
      return answer(400, "not a BOTIX event");
    }
    let state: DedupState;
    try {
      state = await o.dedup.begin(ev.id);
    } catch (e) {
      log("deduplicator unavailable", { error: String(e), event_id: ev.id });
      return answer(503, "try again");
    }
    switch (state) {
      case "done":
        return answer(200); // already processed: acknowledge, do nothing
      case "processing":
        // No Retry-After: BOTIX would pause every delivery of the endpoint, not only this one.
        return answer(503, "event is being processed; retry later");
      case "unseen":
        break;
      default:
        log("deduplicator returned an invalid state", { state, event_id: ev.id });
        return answer(503, "try again");
    }
    try {
      await o.process(ev);
    } catch (e) {
      await o.dedup.forget(ev.id).catch((fe) => log("forgetting a failed event failed; a retry waits for the lease", { error: String(fe), event_id: ev.id }));
      log("webhook processing failed; BOTIX will retry", { error: String(e), event_id: ev.id });
      return answer(500, "processing failed");
    }
    try {
      await o.dedup.complete(ev.id);
    } catch (e) {
      // Processed: acknowledge. A 500 would bring a retry that, after the lease, processes it again.
      log("recording a processed event failed; a redelivery after the lease would process it again", { error: String(e), event_id: ev.id });
    }
    return answer(200);
  };
}

/** A node:http request handler (http.createServer(handler)) around createWebhookProcessor. */
export function createWebhookHandler(o: WebhookHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const processor = createWebhookProcessor(o);
  return (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        over = true;
        return;
      }
      chunks.push(c);
    });
    req.on("error", () => res.destroy());
    req.on("end", () => {
      const send = (a: WebhookAnswer) => {
        res.writeHead(a.status, a.headers);
        res.end(a.body);
      };
      if (over) return send({ status: 413, headers: { "Content-Type": "text/plain; charset=utf-8" }, body: "body too large" });
      processor({ method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks) }).then(send, (e) => {
        send({ status: 500, headers: {}, body: "internal error" });
        void e;
      });
    });
  };
}
