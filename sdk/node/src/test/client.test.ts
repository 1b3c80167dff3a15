import { test } from "node:test";
import assert from "node:assert/strict";
import { apiError, fakeServer, json, recordingSleep, TEST_KEY } from "./helpers.js";
import { BotixError, Client, type ClientOptions, DEFAULT_RETRY_POLICY, parseRetryAfter, validIdempotencyKey, VERSION } from "../index.js";

const CONTACT = { id: "ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C", phone: "+79990000000", name: "A", tags: [], created_at: "2026-11-29T08:00:00.000Z" };

function mk(url: string, o: ClientOptions = {}) {
  const rec = recordingSleep();
  const c = new Client({ apiKey: TEST_KEY, baseUrl: url, sleep: rec.sleep, ...o });
  return { c, delays: rec.delays };
}

async function caught(p: Promise<unknown>): Promise<BotixError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof BotixError, `not a BotixError: ${e}`);
    return e;
  }
  assert.fail("the call succeeded");
}

test("retried answers: same key on every attempt, attempts counted", async (t) => {
  const cases: { name: string; fail: (res: import("node:http").ServerResponse) => void }[] = [
    { name: "503", fail: (res) => apiError(res, 503, "SERVICE_UNAVAILABLE") },
    { name: "500 not an envelope", fail: (res) => void res.writeHead(500).end("boom") },
    { name: "502 proxy page", fail: (res) => void res.writeHead(502, { "Content-Type": "text/html" }).end("<html>bad gateway</html>") },
    { name: "429 without code", fail: (res) => json(res, 429, { message: "Too Many Requests" }) },
    { name: "409 IN_PROGRESS", fail: (res) => apiError(res, 409, "IDEMPOTENCY_KEY_IN_PROGRESS") },
    { name: "connection reset", fail: (res) => res.socket?.destroy() },
  ];
  for (const tc of cases) {
    await t.test(tc.name, async () => {
      const f = await fakeServer((_, res, n) => (n <= 2 ? tc.fail(res) : json(res, 201, CONTACT, { "Idempotent-Replayed": "true" })));
      try {
        const { c, delays } = mk(f.url);
        const r = await c.contacts.create({ phone: "+79990000000", name: "A" });
        assert.equal(r.response.attempts, 3);
        assert.equal(r.response.replayed, true);
        assert.equal(f.seen.length, 3);
        const keys = new Set(f.seen.map((s) => s.headers["idempotency-key"]));
        assert.equal(keys.size, 1);
        assert.ok(validIdempotencyKey(String([...keys][0])));
        assert.equal(r.response.idempotencyKey, [...keys][0]);
        assert.equal(delays.length, 2);
        assert.equal(r.id, CONTACT.id);
        assert.deepEqual(JSON.parse(JSON.stringify(r)), CONTACT, "response is not serialised with the contact");
      } finally {
        await f.close();
      }
    });
  }
});

test("refused answers are not retried and not reissuable", async (t) => {
  const cases = [
    { status: 400, code: "INVALID_JSON" },
    { status: 401, code: "UNAUTHORIZED" },
    { status: 404, code: "NOT_FOUND" },
    { status: 409, code: "IDEMPOTENCY_KEY_REUSE_CONFLICT" },
    { status: 409, code: "CONTACT_ALREADY_EXISTS" },
    { status: 422, code: "VALIDATION_FAILED" },
  ];
  for (const tc of cases) {
    await t.test(`${tc.status} ${tc.code}`, async () => {
      const f = await fakeServer((_, res) => apiError(res, tc.status, tc.code, { field: "phone", details: { phone: "bad" } }, { "Retry-After": "7" }));
      try {
        const { c, delays } = mk(f.url);
        const e = await caught(c.contacts.create({ phone: "+79990000000", name: "A" }));
        assert.equal(e.kind, "api");
        assert.equal(e.name, "ApiError");
        assert.equal(e.status, tc.status);
        assert.equal(e.code, tc.code);
        assert.equal(e.field, "phone");
        assert.deepEqual(e.details, { phone: "bad" });
        assert.equal(e.requestId, "req_err");
        assert.equal(e.retryAfterMs, 7000);
        assert.equal(e.attempts, 1);
        assert.equal(e.reissuable, false);
        assert.equal(e.idempotencyKey, f.seen[0]!.headers["idempotency-key"]);
        assert.equal(f.seen.length, 1);
        assert.equal(delays.length, 0);
      } finally {
        await f.close();
      }
    });
  }
});

test("gave up after maxAttempts, with the last answer and a key to reissue", async (t) => {
  for (const maxAttempts of [1, 2, 5]) {
    await t.test(`maxAttempts ${maxAttempts}`, async () => {
      const f = await fakeServer((_, res) => apiError(res, 503, "SERVICE_UNAVAILABLE"));
      try {
        const { c, delays } = mk(f.url, { retry: { maxAttempts } });
        const e = await caught(c.contacts.create({ phone: "+79990000000", name: "A" }));
        assert.equal(e.kind, "gave_up");
        assert.equal(e.attempts, maxAttempts);
        assert.equal(f.seen.length, maxAttempts);
        assert.equal(delays.length, maxAttempts - 1);
        assert.equal(e.status, 503);
        assert.equal(e.code, "SERVICE_UNAVAILABLE");
        assert.equal(e.lastFailure, "api");
        assert.equal(e.reissuable, true);
        assert.deepEqual(e.reissue(), { idempotencyKey: f.seen[0]!.headers["idempotency-key"] });
        // Re-issuing sends the same key again.
        await caught(c.contacts.create({ phone: "+79990000000", name: "A" }, e.reissue()));
        assert.equal(f.seen.at(-1)!.headers["idempotency-key"], e.idempotencyKey);
      } finally {
        await f.close();
      }
    });
  }
});

test("zero, absent and negative options mean the defaults", () => {
  for (const retry of [undefined, {}, { maxAttempts: 0, baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0, quotaCapacity: 0 }, { maxAttempts: -1, baseDelayMs: -5 }]) {
    const c = new Client({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:1", ...(retry ? { retry } : {}) });
    assert.deepEqual({ ...c.transport.policy }, { ...DEFAULT_RETRY_POLICY }, JSON.stringify(retry));
  }
  const c = new Client({ apiKey: TEST_KEY, baseUrl: "http://127.0.0.1:1", retry: { maxDelayMs: 1000 } });
  assert.equal(c.transport.policy.maxDelayMs, 1000);
  assert.equal(c.transport.policy.maxAttempts, 5);
});

test("full-jitter backoff stays within [0, min(max, base·2ⁿ⁻¹)]", async (t) => {
  const cases = [
    { name: "top of the range", random: () => 0.999999999, want: [200, 400, 800, 1600] },
    { name: "bottom of the range", random: () => 0, want: [0, 0, 0, 0] },
  ];
  for (const tc of cases) {
    await t.test(tc.name, async () => {
      const f = await fakeServer((_, res) => apiError(res, 503, "SERVICE_UNAVAILABLE"));
      try {
        const { c, delays } = mk(f.url, { random: tc.random });
        await caught(c.contacts.count());
        assert.deepEqual(delays, tc.want);
      } finally {
        await f.close();
      }
    });
  }
  await t.test("capped by maxDelay, never above the ceiling", () => {
    const c = new Client({ apiKey: TEST_KEY, baseUrl: "http://x", retry: { baseDelayMs: 100, maxDelayMs: 1000 }, random: () => 0.999999999 });
    assert.deepEqual([1, 2, 3, 4, 5, 6, 40].map((n) => c.transport.backoff(n)), [100, 200, 400, 800, 1000, 1000, 1000]);
    let r = 0;
    const c2 = new Client({ apiKey: TEST_KEY, baseUrl: "http://x", retry: { baseDelayMs: 100, maxDelayMs: 1000 }, random: () => (r = (r + 0.137) % 1) });
    for (let n = 1; n < 200; n++) {
      const d = c2.transport.backoff((n % 8) + 1);
      assert.ok(d >= 0 && d <= Math.min(1000, 100 * 2 ** (n % 8)), `${d}`);
    }
  });
});

test("Retry-After honoured, both forms, capped", async (t) => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  const cases = [
    { name: "seconds", header: "3", cap: undefined, want: 3000 },
    { name: "HTTP date", header: new Date(now + 5000).toUTCString(), cap: undefined, want: 5000 },
    { name: "capped at the default 60 s", header: "3600", cap: undefined, want: 60_000 },
    { name: "capped by the client", header: "3600", cap: 1000, want: 1000 },
    { name: "past date: backoff", header: new Date(now - 5000).toUTCString(), cap: undefined, want: 200 },
    { name: "malformed: backoff", header: "soon", cap: undefined, want: 200 },
  ];
  for (const tc of cases) {
    await t.test(tc.name, async () => {
      const f = await fakeServer((_, res, n) => (n === 1 ? apiError(res, 429, "", {}, { "Retry-After": tc.header }) : json(res, 200, { total: 1 })));
      try {
        const { c, delays } = mk(f.url, { now: () => now, random: () => 0.999999999, ...(tc.cap ? { retry: { maxRetryAfterMs: tc.cap } } : {}) });
        const r = await c.contacts.count();
        assert.equal(r.response.attempts, 2);
        assert.deepEqual(delays, [tc.want]);
      } finally {
        await f.close();
      }
    });
  }
  assert.equal(parseRetryAfter("0", now), 0);
  assert.equal(parseRetryAfter(null, now), 0);
  assert.equal(parseRetryAfter("-3", now), 0);
});

test("retry quota: spent by retries, refilled by successes, stops retrying when empty", async () => {
  let healthy = false;
  const f = await fakeServer((_, res) => (healthy ? json(res, 200, { total: 0 }) : apiError(res, 503, "SERVICE_UNAVAILABLE")));
  try {
    const { c } = mk(f.url, { retry: { quotaCapacity: 20, maxAttempts: 4 } });
    const q = () => c.transport.quotaAvailable;
    let e = await caught(c.contacts.count()); // 3 retries x 5
    assert.equal(e.kind, "gave_up");
    assert.equal(e.attempts, 4);
    assert.equal(q(), 5);
    e = await caught(c.contacts.count()); // 1 retry, then the bucket is empty
    assert.equal(e.kind, "quota");
    assert.equal(e.name, "RetryQuotaExceededError");
    assert.equal(e.attempts, 2);
    assert.equal(e.status, 503);
    assert.equal(e.reissuable, true);
    assert.equal(q(), 0);
    e = await caught(c.contacts.count()); // no retry at all
    assert.equal(e.kind, "quota");
    assert.equal(e.attempts, 1);
    assert.equal(f.seen.length, 7);
    healthy = true;
    for (let i = 1; i <= 25; i++) {
      const r = await c.contacts.count();
      assert.equal(r.response.attempts, 1);
      assert.equal(q(), Math.min(20, i), "a success without retries returns 1 token");
    }
    healthy = false;
    const f2 = f.seen.length;
    e = await caught(c.contacts.count());
    assert.equal(e.kind, "gave_up", "the quota is back");
    assert.equal(f.seen.length - f2, 4);
  } finally {
    await f.close();
  }
});

test("retry quota: a success returns what its retries took; IN_PROGRESS costs nothing; negative capacity is no quota", async (t) => {
  await t.test("refund", async () => {
    let n = 0;
    const f = await fakeServer((_, res) => (++n % 3 !== 0 ? apiError(res, 503, "SERVICE_UNAVAILABLE") : json(res, 200, { total: 0 })));
    try {
      const { c } = mk(f.url, { retry: { quotaCapacity: 12 } });
      await c.contacts.count(); // two retries take 10, the success returns 10
      assert.equal(c.transport.quotaAvailable, 12);
    } finally {
      await f.close();
    }
  });
  await t.test("in progress", async () => {
    const f = await fakeServer((_, res, n) => (n <= 4 ? apiError(res, 409, "IDEMPOTENCY_KEY_IN_PROGRESS", {}, { "Retry-After": "1" }) : json(res, 201, CONTACT)));
    try {
      const { c, delays } = mk(f.url, { retry: { quotaCapacity: 5 } });
      const r = await c.contacts.create({ phone: "+79990000000", name: "A" });
      assert.equal(r.response.attempts, 5);
      assert.deepEqual(delays, [1000, 1000, 1000, 1000]);
      assert.equal(c.transport.quotaAvailable, 5);
    } finally {
      await f.close();
    }
  });
  await t.test("no quota", async () => {
    const f = await fakeServer((_, res) => apiError(res, 503, "SERVICE_UNAVAILABLE"));
    try {
      const { c } = mk(f.url, { retry: { quotaCapacity: -1, maxAttempts: 3 } });
      for (let i = 0; i < 10; i++) assert.equal((await caught(c.contacts.count())).kind, "gave_up");
      assert.equal(f.seen.length, 30);
    } finally {
      await f.close();
    }
  });
});

test("attempt timeout and transport errors are retried and cost 10 tokens", async (t) => {
  await t.test("timeout", async () => {
    const f = await fakeServer((_, res, n) => {
      if (n === 1) return; // never answers: the attempt times out
      json(res, 201, CONTACT);
    });
    try {
      const { c } = mk(f.url, { attemptTimeoutMs: 200, retry: { quotaCapacity: 30 } });
      const r = await c.contacts.create({ phone: "+79990000000", name: "A" });
      assert.equal(r.response.attempts, 2);
      assert.equal(f.seen[0]!.headers["idempotency-key"], f.seen[1]!.headers["idempotency-key"]);
      assert.equal(c.transport.quotaAvailable, 30);
    } finally {
      await f.close();
    }
  });
  await t.test("timeout, given up", async () => {
    const f = await fakeServer(() => {});
    try {
      const { c } = mk(f.url, { attemptTimeoutMs: 100, retry: { maxAttempts: 2, quotaCapacity: 30 } });
      const e = await caught(c.contacts.create({ phone: "+79990000000", name: "A" }));
      assert.equal(e.kind, "gave_up");
      assert.equal(e.lastFailure, "timeout");
      assert.equal(e.status, 0);
      assert.equal(e.reissuable, true);
      assert.equal(c.transport.quotaAvailable, 20, "a retry after a timeout takes 10");
    } finally {
      await f.close();
    }
  });
  await t.test("connection refused", async () => {
    const f = await fakeServer(() => {});
    const url = f.url;
    await f.close();
    const { c } = mk(url, { retry: { maxAttempts: 3, quotaCapacity: 100 } });
    const e = await caught(c.contacts.create({ phone: "+79990000000", name: "A" }));
    assert.equal(e.kind, "gave_up");
    assert.equal(e.lastFailure, "transport");
    assert.equal(e.attempts, 3);
    assert.equal(c.transport.quotaAvailable, 80);
  });
});

test("redirects are never followed; the API key never goes elsewhere", async (t) => {
  for (const status of [301, 302, 303, 307, 308]) {
    await t.test(String(status), async () => {
      const other = await fakeServer((_, res) => json(res, 200, { total: 1 }));
      const f = await fakeServer((_, res) => {
        res.writeHead(status, { Location: other.url + "/public/v1/contacts/count" });
        res.end();
      });
      try {
        const { c } = mk(f.url);
        const e = await caught(c.contacts.count());
        assert.equal(e.kind, "api");
        assert.equal(e.status, status);
        assert.equal(e.attempts, 1);
        assert.equal(e.reissuable, false);
        assert.match(e.message, new RegExp(`HTTP ${status}`));
        assert.match(e.message, /redirect/);
        assert.equal(other.seen.length, 0);
      } finally {
        await f.close();
        await other.close();
      }
    });
  }
});

test("answers are read within bounds", async (t) => {
  await t.test("an error envelope past 64 KiB is cut: the status describes it", async () => {
    const big = { error: { code: "VALIDATION_FAILED", message: "x".repeat(70 << 10), request_id: "req_big" } };
    const small = { error: { code: "VALIDATION_FAILED", message: "x".repeat(60 << 10), request_id: "req_small" } };
    const f = await fakeServer((_, res, n) => json(res, 422, n === 1 ? big : small));
    try {
      const { c } = mk(f.url);
      const e1 = await caught(c.contacts.count());
      assert.equal(e1.code, "", "a cut envelope does not decode");
      assert.equal(e1.status, 422);
      const e2 = await caught(c.contacts.count());
      assert.equal(e2.code, "VALIDATION_FAILED");
      assert.equal(e2.requestId, "req_small");
    } finally {
      await f.close();
    }
  });
  await t.test("a success past 8 MiB does not decode and is not reissuable", async () => {
    const f = await fakeServer((_, res, n) => json(res, 200, { total: 1, pad: "y".repeat(n === 1 ? 9 << 20 : 7 << 20) }));
    try {
      const { c } = mk(f.url);
      const e = await caught(c.contacts.count());
      assert.equal(e.kind, "decode");
      assert.equal(e.reissuable, false);
      assert.equal(e.attempts, 1);
      const r = await c.contacts.count();
      assert.equal(r.total, 1);
    } finally {
      await f.close();
    }
  });
});

test("Idempotency-Key: one fresh UUIDv4 per mutating call, the caller's validated, none on a GET", async (t) => {
  const f = await fakeServer((s, res) => (s.method === "GET" ? json(res, 200, { total: 0 }) : json(res, 201, CONTACT)));
  try {
    const { c } = mk(f.url);
    await c.contacts.create({ phone: "+79990000000", name: "A" });
    await c.contacts.create({ phone: "+79990000000", name: "A" });
    await c.contacts.count();
    const [a, b, g] = f.seen;
    assert.match(String(a!.headers["idempotency-key"]), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(a!.headers["idempotency-key"], b!.headers["idempotency-key"]);
    assert.equal(g!.headers["idempotency-key"], undefined);
    assert.equal(a!.headers["authorization"], `Bearer ${TEST_KEY}`);
    assert.equal(a!.headers["content-type"], "application/json");
    assert.ok(String(a!.headers["user-agent"]).startsWith(`botix-node/${VERSION} `));
    for (const key of ["01JDQ7X3ZV8N5W2K4R6T9Y1B3C", "6f1c2a3b-1d2e-4f5a-8b6c-7d8e9f0a1b2c"]) {
      const r = await c.contacts.create({ phone: "+79990000000", name: "A" }, { idempotencyKey: key });
      assert.equal(r.response.idempotencyKey, key);
      assert.equal(f.seen.at(-1)!.headers["idempotency-key"], key);
    }
    const before = f.seen.length;
    for (const [name, key] of [
      ["not a key", "not-a-key"],
      ["a UUIDv1", "6f1c2a3b-1d2e-1f5a-8b6c-7d8e9f0a1b2c"],
      ["a ULID past 128 bits", "81JDQ7X3ZV8N5W2K4R6T9Y1B3C"],
      ["a ULID with I", "01JDQ7X3ZV8N5W2K4R6T9Y1B3I"],
      ["empty", ""],
    ] as const) {
      await t.test(name, async () => {
        const e = await caught(c.contacts.create({ phone: "+79990000000", name: "A" }, { idempotencyKey: key }));
        assert.equal(e.kind, "invalid_key");
        assert.equal(e.attempts, 0);
        assert.equal(e.reissuable, false);
      });
    }
    assert.equal(f.seen.length, before, "nothing was sent");
  } finally {
    await f.close();
  }
});

test("the API key is in no error message and no log line", async () => {
  const lines: string[] = [];
  const logger = { info: (m: string, f: object) => void lines.push(m + JSON.stringify(f)), debug: (m: string, f: object) => void lines.push(m + JSON.stringify(f)) };
  const f = await fakeServer((_, res) => apiError(res, 503, "SERVICE_UNAVAILABLE"));
  try {
    const { c } = mk(f.url, { logger, retry: { maxAttempts: 3 } });
    const e = await caught(c.contacts.create({ phone: "+79990000000", name: "A" }));
    const all = [e.message, String(e.stack), JSON.stringify(e), ...lines].join("\n");
    assert.ok(lines.length >= 3, "retries and the failure are logged");
    assert.ok(!all.includes(TEST_KEY));
    assert.ok(!all.includes("secretsecret"));
  } finally {
    await f.close();
  }
});

test("the caller's AbortSignal ends the call: kind deadline", async () => {
  const f = await fakeServer((_, res) => apiError(res, 503, "SERVICE_UNAVAILABLE"));
  try {
    const ctl = new AbortController();
    const c = new Client({
      apiKey: TEST_KEY,
      baseUrl: f.url,
      sleep: async () => {
        ctl.abort(new Error("stop"));
        throw new Error("aborted");
      },
    });
    const e = await caught(c.contacts.create({ phone: "+79990000000", name: "A" }, { signal: ctl.signal }));
    assert.equal(e.kind, "deadline");
    assert.equal(e.attempts, 1);
    assert.equal(e.status, 503);
    assert.equal(e.reissuable, true);
    const e2 = await caught(c.contacts.count({ signal: ctl.signal }));
    assert.equal(e2.kind, "deadline");
    assert.equal(e2.attempts, 0);
    assert.equal(f.seen.length, 1);
  } finally {
    await f.close();
  }
});

test("base URL: the constructor's, else BOTIX_API_URL, else the local default", () => {
  const saved = process.env.BOTIX_API_URL;
  try {
    process.env.BOTIX_API_URL = "http://env.example:1/";
    assert.equal(new Client({ apiKey: TEST_KEY }).transport.baseUrl, "http://env.example:1");
    assert.equal(new Client({ apiKey: TEST_KEY, baseUrl: "http://given:2" }).transport.baseUrl, "http://given:2");
    delete process.env.BOTIX_API_URL;
    assert.equal(new Client({ apiKey: TEST_KEY }).transport.baseUrl, "http://127.0.0.1:8080");
  } finally {
    if (saved === undefined) delete process.env.BOTIX_API_URL;
    else process.env.BOTIX_API_URL = saved;
  }
});
