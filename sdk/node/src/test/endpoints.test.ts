// Endpoint limits: what create and update send (null removes a limit), and
// the receiver's throttle as the endpoint reports it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fakeServer, json, TEST_KEY } from "./helpers.js";
import { Client, type EndpointHealth, type EndpointThrottle, type WebhookEndpointUpdate } from "../index.js";

test("create and update send the limits as given, null as null", async () => {
  const f = await fakeServer((_s, res) => json(res, 200, { id: "we_1" }));
  try {
    const c = new Client({ apiKey: TEST_KEY, baseUrl: f.url });
    const cases: [string, () => Promise<unknown>, unknown][] = [
      ["create with limits", () => c.webhookEndpoints.create({ url: "https://x.invalid/h", events: ["*"], rate_limit: 20, max_concurrency: 4 }),
        { url: "https://x.invalid/h", events: ["*"], rate_limit: 20, max_concurrency: 4 }],
      ["update sets", () => c.webhookEndpoints.update("we_1", { rate_limit: 50 }), { rate_limit: 50 }],
      ["null removes", () => c.webhookEndpoints.update("we_1", { rate_limit: null, max_concurrency: 2 } satisfies WebhookEndpointUpdate),
        { rate_limit: null, max_concurrency: 2 }],
    ];
    for (const [name, call, want] of cases) {
      await call();
      assert.deepEqual(JSON.parse(f.seen.at(-1)!.body), want, name);
    }
  } finally {
    await f.close();
  }
});

test("the endpoint's limits and throttle come back", async () => {
  const throttle: EndpointThrottle = { effective_rate: 5.2, paused_until: "2026-12-01T10:00:30Z", throttled_by: "http_429" };
  const f = await fakeServer((_s, res) => json(res, 200, { id: "we_1", rate_limit: 20, max_concurrency: 4, throttle }));
  try {
    const e = await new Client({ apiKey: TEST_KEY, baseUrl: f.url }).webhookEndpoints.get("we_1");
    assert.deepEqual([e.rate_limit, e.max_concurrency, e.throttle], [20, 4, throttle]);
  } finally {
    await f.close();
  }
});

test("the endpoint's health comes back", async () => {
  const health: EndpointHealth = { state: "failing", cause: "http_403", since: "2026-12-01T09:00:41.907Z", failed_attempts: 4 };
  const f = await fakeServer((_s, res) => json(res, 200, { id: "we_1", health }));
  try {
    const e = await new Client({ apiKey: TEST_KEY, baseUrl: f.url }).webhookEndpoints.get("we_1");
    assert.deepEqual(e.health, health);
  } finally {
    await f.close();
  }
});
