// The HTTP core of the BOTIX client: one logical operation per call, with
// retries (full-jitter backoff, Retry-After, a retry quota), one
// Idempotency-Key for every attempt of a mutating call, no redirects, and
// bounded answers.

import { randomUUID } from "node:crypto";
import {
  AbortedError,
  ApiError,
  type AttemptFailure,
  BotixError,
  type BotixErrorFields,
  CodecError,
  ErrorCode,
  GaveUpError,
  InvalidIdempotencyKeyError,
  RetryQuotaExceededError,
  retryableAnswer,
} from "./errors.js";

/** The SDK's version, sent in the User-Agent. */
export const VERSION = "1.0.0";

/** The API's address when neither the constructor nor BOTIX_API_URL says otherwise: the local runtime of `make run`. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:8080";

/**
 * Bounds the retries of one call. An absent, zero or negative field means its
 * default (DEFAULT_RETRY_POLICY's), except quotaCapacity, where a negative
 * value means no quota.
 */
export interface RetryPolicy {
  /** HTTP attempts of a call, the first included: 1 never retries. Default 5. */
  maxAttempts: number;
  /** Before retry n the client waits a random time in [0, min(maxDelayMs, baseDelayMs·2ⁿ⁻¹)] ("full jitter"), unless the server said Retry-After. Default 200 ms. */
  baseDelayMs: number;
  /** Default 20 s. */
  maxDelayMs: number;
  /** Caps the server's Retry-After (a longer one is waited this long, then the call is retried). Default 60 s. */
  maxRetryAfterMs: number;
  /**
   * The client's retry quota, a token bucket shared by all its calls: a retry takes 5 tokens
   * (10 after a timeout or a connection error); a success puts back what its retries took, or 1
   * when it needed none. An empty bucket stops retries until calls succeed again. Default 500;
   * negative: no quota.
   */
  quotaCapacity: number;
}

/** The policy of a client without `retry`, and the value of each field it leaves out. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
  quotaCapacity: 500,
});

const RETRY_COST = 5;
const TIMEOUT_COST = 10;
const SUCCESS_GAIN = 1;

/** What the client reads of an answer: error bodies are cut at 64 KiB; a success answer over 8 MiB does not decode. */
export const MAX_ANSWER_BYTES = 8 << 20;
export const MAX_ERROR_BYTES = 64 << 10;

/** Where the client logs retries (info) and failed calls (debug). Never the API key. */
export interface Logger {
  info?(message: string, fields: Record<string, unknown>): void;
  debug?(message: string, fields: Record<string, unknown>): void;
}

/** Options of a Client. */
export interface ClientOptions {
  /** The project's API key; default: the BOTIX_API_KEY environment variable. */
  apiKey?: string;
  /** Scheme and host, e.g. https://api.example.com; default: BOTIX_API_URL, else http://127.0.0.1:8080. */
  baseUrl?: string;
  /** Retry policy; absent fields keep their default. */
  retry?: Partial<RetryPolicy>;
  /** Bounds each HTTP attempt, reading the answer included (default 30 s; 0 or less: none). */
  attemptTimeoutMs?: number;
  /** A product token appended to the User-Agent, e.g. "my-crm/2.3". */
  userAgent?: string;
  logger?: Logger;
  /** Replaces globalThis.fetch (tests, instrumentation). Redirects are never followed either way. */
  fetch?: typeof fetch;
  /** Waits ms or until signal aborts (tests replace it to count delays instead of waiting). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A random number in [0, 1) for the backoff's jitter (default Math.random). */
  random?: () => number;
  /** The clock for an HTTP-date Retry-After (default Date.now). */
  now?: () => number;
}

/** Options of one call. */
export interface CallOptions {
  /**
   * The Idempotency-Key of a mutating call instead of a fresh UUIDv4: for an operation that
   * outlives the process (a job id kept in your database), or err.reissue(). A UUIDv4 or a ULID.
   */
  idempotencyKey?: string;
  /** Ends the call (and its waits) when aborted: kind "deadline". */
  signal?: AbortSignal;
}

/** The HTTP answer a result came from. */
export interface ResponseInfo {
  status: number;
  requestId: string;
  /** The key a mutating call sent on every attempt ("" for a GET). */
  idempotencyKey: string;
  /** The API answered with the stored result of an earlier request with the same key (Idempotent-Replayed: true). */
  replayed: boolean;
  /** How many HTTP attempts the call took. */
  attempts: number;
}

/** A result: the API's JSON object with a non-enumerable `response` (left out of JSON.stringify). */
export type WithResponse<T> = T & { readonly response: ResponseInfo };

const UUID_V4 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
// A ULID: 26 Crockford base32 characters, the first at most 7 (128 bits).
const ULID = /^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$/;

/** Whether the API accepts key as an Idempotency-Key: a UUIDv4 or a ULID. */
export function validIdempotencyKey(key: string): boolean {
  return UUID_V4.test(key) || ULID.test(key);
}

/** One logical operation: every attempt sends the same method, path, body and key. */
export interface Operation {
  method: string;
  /** The path after /public/v1, parameters filled in and escaped. */
  path: string;
  query?: URLSearchParams;
  body?: unknown;
  /** A mutating call without a key (the Changelog feed is read like this: one attempt, no JSON). */
  raw?: boolean;
}

interface Answer {
  ok: true;
  status: number;
  headers: Headers;
  body: Uint8Array;
  truncated: boolean;
}
interface Failure {
  ok: false;
  failure: Exclude<AttemptFailure, "api">;
  error: unknown;
}

/** The retry token bucket of a client. */
class Quota {
  private tokens: number;
  constructor(private readonly capacity: number) {
    this.tokens = capacity;
  }
  take(cost: number): boolean {
    if (this.capacity < 0) return true;
    if (this.tokens < cost) return false;
    this.tokens -= cost;
    return true;
  }
  release(spent: number): void {
    if (this.capacity < 0) return;
    this.tokens = Math.min(this.capacity, this.tokens + (spent === 0 ? SUCCESS_GAIN : spent));
  }
  get available(): number {
    return this.tokens;
  }
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Reads a Retry-After header: seconds or an HTTP date; 0 when absent, malformed or past. */
export function parseRetryAfter(v: string | null, now: number): number {
  if (!v) return 0;
  const t = v.trim();
  if (/^\d+$/.test(t)) {
    const s = Math.min(Number(t), 2 ** 31 - 1);
    return s * 1000;
  }
  if (!/[a-zA-Z]/.test(t)) return 0;
  const at = Date.parse(t);
  if (Number.isNaN(at) || at <= now) return 0;
  return at - now;
}

/** The HTTP core of the client. The resource methods are on Client (services.ts). */
export class Transport {
  readonly baseUrl: string;
  readonly policy: Readonly<RetryPolicy>;
  readonly attemptTimeoutMs: number;
  readonly userAgent: string;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #log: Logger;
  readonly #quota: Quota;

  constructor(o: ClientOptions = {}) {
    const apiKey = o.apiKey ?? process.env.BOTIX_API_KEY ?? "";
    if (!apiKey) throw new TypeError("botix: an API key is required (the apiKey option or BOTIX_API_KEY)");
    this.#apiKey = apiKey;
    const base = o.baseUrl || process.env.BOTIX_API_URL || DEFAULT_BASE_URL;
    this.baseUrl = base.replace(/\/+$/, "");
    const r = o.retry ?? {};
    const d = DEFAULT_RETRY_POLICY;
    const pos = (v: number | undefined, def: number) => (v !== undefined && v > 0 ? v : def);
    this.policy = Object.freeze({
      maxAttempts: Math.floor(pos(r.maxAttempts, d.maxAttempts)),
      baseDelayMs: pos(r.baseDelayMs, d.baseDelayMs),
      maxDelayMs: pos(r.maxDelayMs, d.maxDelayMs),
      maxRetryAfterMs: pos(r.maxRetryAfterMs, d.maxRetryAfterMs),
      quotaCapacity: r.quotaCapacity === undefined || r.quotaCapacity === 0 ? d.quotaCapacity : r.quotaCapacity,
    });
    this.attemptTimeoutMs = o.attemptTimeoutMs === undefined ? 30_000 : o.attemptTimeoutMs;
    this.userAgent = `botix-node/${VERSION} node/${process.versions.node}` + (o.userAgent ? " " + o.userAgent.trim() : "");
    this.#fetch = o.fetch ?? globalThis.fetch;
    this.#sleep = o.sleep ?? defaultSleep;
    this.#random = o.random ?? Math.random;
    this.#now = o.now ?? Date.now;
    this.#log = o.logger ?? {};
    this.#quota = new Quota(this.policy.quotaCapacity);
  }

  /** Tokens left in the retry quota (for monitoring; capacity when there is no quota). */
  get quotaAvailable(): number {
    return this.#quota.available;
  }

  /** Runs a logical operation with retries and returns the decoded answer (undefined for an empty body). */
  async call<T>(op: Operation, opts: CallOptions = {}): Promise<{ data: T; response: ResponseInfo }> {
    const mutating = op.method !== "GET";
    const key = mutating ? (opts.idempotencyKey ?? randomUUID()) : "";
    const meta: ResponseInfo = { status: 0, requestId: "", idempotencyKey: key, replayed: false, attempts: 0 };
    const base = { method: op.method, path: op.path, idempotencyKey: key };
    const fail = (E: new (f: BotixErrorFields) => BotixError, f: Partial<BotixErrorFields> & Pick<BotixErrorFields, "kind">): never => {
      const err = new E({ ...base, attempts: meta.attempts, ...f });
      this.#log.debug?.("botix: call failed", { method: op.method, path: op.path, idempotency_key: key, attempts: meta.attempts, error: err.message });
      throw err;
    };
    if (mutating && !validIdempotencyKey(key)) {
      // The key is the caller's and malformed; it is not echoed in the message either.
      fail(InvalidIdempotencyKeyError, { kind: "invalid_key" });
    }
    let body: string | undefined;
    if (op.body !== undefined) {
      try {
        body = JSON.stringify(op.body);
      } catch (e) {
        fail(CodecError, { kind: "encode", cause: e });
      }
    }
    const signal = opts.signal;
    let spent = 0;
    let last: Partial<BotixErrorFields> = {};
    for (;;) {
      if (signal?.aborted) fail(AbortedError, { kind: "deadline", ...last, cause: signal.reason });
      meta.attempts++;
      const a = await this.#attempt(op, body, key, signal);
      if (a.ok && a.status >= 200 && a.status < 300) {
        meta.status = a.status;
        meta.requestId = a.headers.get("x-request-id") ?? "";
        meta.replayed = a.headers.get("idempotent-replayed") === "true";
        this.#quota.release(spent);
        if (op.raw) return { data: new TextDecoder().decode(a.body) as T, response: meta };
        let data: T = undefined as T;
        if (a.body.length > 0) {
          try {
            if (a.truncated) throw new Error(`the answer exceeds ${MAX_ANSWER_BYTES} bytes`);
            data = JSON.parse(new TextDecoder().decode(a.body)) as T;
          } catch (e) {
            fail(CodecError, { kind: "decode", status: a.status, requestId: meta.requestId, cause: e });
          }
        }
        return { data, response: meta };
      }
      let cost = TIMEOUT_COST;
      let apiErr: Partial<BotixErrorFields> | undefined;
      if (a.ok) {
        apiErr = this.#errorOf(a);
        cost = RETRY_COST;
        meta.status = a.status;
        meta.requestId = apiErr.requestId ?? "";
        // A refusal is the answer: the caller must change the request.
        if (!retryableAnswer(a.status, apiErr.code ?? "")) fail(ApiError, { kind: "api", ...apiErr });
        last = { ...apiErr, lastFailure: "api" };
      } else {
        if (signal?.aborted) fail(AbortedError, { kind: "deadline", ...last, cause: signal.reason });
        last = { lastFailure: a.failure, cause: a.error };
      }
      if (signal?.aborted) fail(AbortedError, { kind: "deadline", ...last, cause: signal.reason });
      if (meta.attempts >= this.policy.maxAttempts) fail(GaveUpError, { kind: "gave_up", ...last });
      let delay = this.backoff(meta.attempts);
      if (apiErr?.retryAfterMs) delay = Math.min(apiErr.retryAfterMs, this.policy.maxRetryAfterMs);
      // Waiting for a first request with this key to finish is not a failure of the service: no quota.
      if (apiErr?.code !== ErrorCode.IdempotencyKeyInProgress) {
        if (!this.#quota.take(cost)) fail(RetryQuotaExceededError, { kind: "quota", ...last });
        spent += cost;
      }
      this.#log.info?.("botix: retrying", { method: op.method, path: op.path, idempotency_key: key, attempt: meta.attempts, delay_ms: delay, failure: last.lastFailure, status: last.status ?? 0 });
      try {
        await this.#sleep(delay, signal);
      } catch (e) {
        fail(AbortedError, { kind: "deadline", ...last, cause: signal?.reason ?? e });
      }
    }
  }

  /** The full-jitter delay before retry number attempt, in ms. */
  backoff(attempt: number): number {
    const { baseDelayMs, maxDelayMs } = this.policy;
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.min(attempt - 1, 30));
    if (ceiling <= 0) return 0;
    return Math.min(ceiling, Math.floor(this.#random() * (ceiling + 1)));
  }

  async #attempt(op: Operation, body: string | undefined, key: string, signal: AbortSignal | undefined): Promise<Answer | Failure> {
    const ctl = new AbortController();
    let timedOut = false;
    const timer =
      this.attemptTimeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            ctl.abort(new Error(`the attempt timed out (after ${this.attemptTimeoutMs} ms)`));
          }, this.attemptTimeoutMs)
        : undefined;
    const onAbort = () => ctl.abort(signal?.reason);
    if (signal) {
      if (signal.aborted) ctl.abort(signal.reason);
      else signal.addEventListener("abort", onAbort, { once: true });
    }
    let url = this.baseUrl + "/public/v1" + op.path;
    const q = op.query?.toString();
    if (q) url += "?" + q;
    const headers: Record<string, string> = {
      Authorization: "Bearer " + this.#apiKey,
      Accept: op.raw ? "application/atom+xml" : "application/json",
      "User-Agent": this.userAgent,
    };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (key) headers["Idempotency-Key"] = key;
    try {
      // redirect "manual": a 3xx comes back as it is (an error naming it); the
      // Authorization header never goes to another address.
      const res = await this.#fetch(url, { method: op.method, headers, body, redirect: "manual", signal: ctl.signal });
      const limit = res.status >= 300 ? MAX_ERROR_BYTES : MAX_ANSWER_BYTES;
      const { bytes, truncated } = await readLimited(res, limit);
      return { ok: true, status: res.status, headers: res.headers, body: bytes, truncated };
    } catch (e) {
      return { ok: false, failure: timedOut ? "timeout" : "transport", error: timedOut ? ctl.signal.reason : e };
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  #errorOf(a: Answer): Partial<BotixErrorFields> {
    const e: Partial<BotixErrorFields> = {
      status: a.status,
      requestId: a.headers.get("x-request-id") ?? "",
      retryAfterMs: parseRetryAfter(a.headers.get("retry-after"), this.#now()),
    };
    try {
      const env = JSON.parse(new TextDecoder().decode(a.body)) as { error?: Record<string, unknown>; message?: unknown };
      if (env && typeof env === "object" && env.error && typeof env.error === "object") {
        const x = env.error;
        e.code = typeof x.code === "string" ? x.code : "";
        e.apiMessage = typeof x.message === "string" ? x.message : "";
        e.field = typeof x.field === "string" ? x.field : "";
        if (x.details && typeof x.details === "object") {
          e.details = Object.fromEntries(Object.entries(x.details as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
        }
        if (typeof x.request_id === "string" && x.request_id) e.requestId = x.request_id;
        return e;
      }
      if (env && typeof env === "object" && typeof env.message === "string") e.apiMessage = env.message;
    } catch {
      // not JSON: the status describes the error
    }
    if (a.status >= 300 && a.status < 400) {
      e.apiMessage = `redirect not followed (the API sends none)${a.headers.get("location") ? " to " + a.headers.get("location") : ""}`;
    }
    if (!e.apiMessage) e.apiMessage = `HTTP ${a.status}`;
    return e;
  }
}

/** Reads at most limit bytes of the body; the rest is cancelled. */
async function readLimited(res: Response, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > limit) {
      chunks.push(value.subarray(0, limit - size));
      size = limit;
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  const out = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return { bytes: out, truncated };
}
