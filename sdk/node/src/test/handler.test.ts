// The webhook handler's answers, over a real node:http server.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac } from "node:crypto";
import { createWebhookHandler, type Deduplicator, MemoryDeduplicator, MAX_BODY, type WebhookEvent } from "../webhook.js";

const SECRET = "whsec_" + Buffer.alloc(32, 3).toString("base64");
const KEY = Buffer.alloc(32, 3);

function signed(ev: object, o: { legacyOnly?: boolean; ts?: number; secretKey?: Buffer } = {}) {
  const body = JSON.stringify(ev);
  const id = (ev as { id: string }).id;
  const ts = o.ts ?? Math.floor(Date.now() / 1000);
  const k = o.secretKey ?? KEY;
  const headers: Record<string, string> = { "Content-Type": "application/json", "X-Botix-Signature": createHmac("sha256", k).update(body).digest("hex") };
  if (!o.legacyOnly) {
    headers["webhook-id"] = id;
    headers["webhook-timestamp"] = String(ts);
    headers["webhook-signature"] = "v1," + createHmac("sha256", k).update(`${id}.${ts}.${body}`).digest("base64");
  }
  return { body, headers };
}

async function serve(o: { dedup?: Deduplicator; process: (ev: WebhookEvent) => Promise<void> | void; allowLegacy?: boolean }) {
  const logs: string[] = [];
  const server = createServer(createWebhookHandler({ secrets: [SECRET], dedup: o.dedup ?? new MemoryDeduplicator(), process: o.process, allowLegacy: o.allowLegacy, log: (m) => void logs.push(m) }));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    logs,
    post: async (req: { body: string; headers: Record<string, string> }) => {
      const res = await fetch(url, { method: "POST", body: req.body, headers: req.headers });
      return { status: res.status, retryAfter: res.headers.get("retry-after") };
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

test("200 processed; a duplicate is 200 and not processed again", async () => {
  const processed: string[] = [];
  const s = await serve({ process: (ev) => void processed.push(ev.id) });
  try {
    const req = signed({ id: "evt_a", type: "contact.created", data: {} });
    assert.equal((await s.post(req)).status, 200);
    assert.equal((await s.post(req)).status, 200);
    assert.deepEqual(processed, ["evt_a"]);
  } finally {
    await s.close();
  }
});

test("500 when processing fails, and the retry is processed", async () => {
  let fail = true;
  const processed: string[] = [];
  const s = await serve({
    process: (ev) => {
      if (fail) {
        fail = false;
        throw new Error("db down");
      }
      processed.push(ev.id);
    },
  });
  try {
    const req = signed({ id: "evt_f", type: "t", data: {} });
    assert.equal((await s.post(req)).status, 500);
    assert.equal((await s.post(req)).status, 200);
    assert.equal((await s.post(req)).status, 200);
    assert.deepEqual(processed, ["evt_f"]);
  } finally {
    await s.close();
  }
});

test("503 without Retry-After (it would pause the whole endpoint) for a copy that arrives while the event is processing, never 200", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  let count = 0;
  const s = await serve({
    process: async () => {
      count++;
      started();
      await gate;
    },
  });
  try {
    const req = signed({ id: "evt_s", type: "t", data: {} });
    const first = s.post(req);
    await running;
    const copy = await s.post(req);
    assert.equal(copy.status, 503);
    assert.equal(copy.retryAfter, null);
    release();
    assert.equal((await first).status, 200);
    assert.equal((await s.post(req)).status, 200);
    assert.equal(count, 1);
  } finally {
    await s.close();
  }
});

test("401 for bad signatures; legacy-only only with allowLegacy", async (t) => {
  const processed: string[] = [];
  const strict = await serve({ process: (ev) => void processed.push(ev.id) });
  const legacy = await serve({ process: (ev) => void processed.push(ev.id), allowLegacy: true });
  try {
    const other = Buffer.alloc(32, 9);
    const cases = [
      { name: "another secret", s: strict, req: signed({ id: "evt_1" }, { secretKey: other }), want: 401 },
      { name: "stale", s: strict, req: signed({ id: "evt_2" }, { ts: Math.floor(Date.now() / 1000) - 3600 }), want: 401 },
      { name: "tampered", s: strict, req: { ...signed({ id: "evt_3" }), body: JSON.stringify({ id: "evt_3", x: 1 }) }, want: 401 },
      { name: "legacy only, strict", s: strict, req: signed({ id: "evt_4" }, { legacyOnly: true }), want: 401 },
      { name: "legacy only, allowed", s: legacy, req: signed({ id: "evt_5" }, { legacyOnly: true }), want: 200 },
    ];
    for (const tc of cases) await t.test(tc.name, async () => assert.equal((await tc.s.post(tc.req)).status, tc.want));
    assert.deepEqual(processed, ["evt_5"]);
    assert.ok(strict.logs.every((l) => !l.includes(SECRET)));
  } finally {
    await strict.close();
    await legacy.close();
  }
});

test("503 when the store cannot be asked; 413 past 1 MiB; 405 for GET; 400 for a non-event", async () => {
  const broken: Deduplicator = {
    begin: async () => {
      throw new Error("store down");
    },
    complete: async () => {},
    forget: async () => {},
  };
  let count = 0;
  const s = await serve({ dedup: broken, process: () => void count++ });
  try {
    assert.equal((await s.post(signed({ id: "evt_b" }))).status, 503);
    const big = signed({ id: "evt_big", pad: "x".repeat(MAX_BODY) });
    assert.equal((await s.post(big)).status, 413);
    const justUnder = signed({ id: "evt_ok", pad: "x".repeat(MAX_BODY - 40) });
    assert.ok(Buffer.byteLength(justUnder.body) <= MAX_BODY);
    assert.equal((await s.post(justUnder)).status, 503, "read and verified: the store is asked");
    assert.equal((await fetch(s.url)).status, 405);
    assert.equal((await s.post(signed({ nope: 1 }))).status, 400);
    assert.equal(count, 0);
  } finally {
    await s.close();
  }
});
