// The SDK against the repository's contract: a method for every public route
// of template.yaml, the server's error codes, types generated from
// sdk/openapi.yaml.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { fakeServer, json, REPO_DIR, SDK_DIR, TEST_KEY } from "./helpers.js";
import { Client, ErrorCode, ROUTES, type RouteName } from "../index.js";

/** The public routes of template.yaml: events of type Api under /public/v1. */
function templateRoutes(): string[] {
  const t = readFileSync(join(REPO_DIR, "template.yaml"), "utf8");
  const out = new Set<string>();
  for (const m of t.matchAll(/Method:\s*([A-Z]+),\s*Path:\s*(?:"(\/public\/v1\/[^"]*)"|(\/public\/v1\/[^\s},]*))/g)) {
    out.add(`${m[1]} ${(m[2] ?? m[3])!.replace(/\{[^}]+\}/g, "{}")}`);
  }
  return [...out].sort();
}

const norm = (method: string, path: string) => `${method} ${("/public/v1" + path).replace(/\{[^}]+\}/g, "{}")}`;

test("ROUTES is the public routes of template.yaml", () => {
  const routes = templateRoutes();
  assert.ok(routes.length >= 28, `${routes.length} routes found in template.yaml`);
  assert.deepEqual(Object.values(ROUTES).map(([m, p]) => norm(m, p)).sort(), routes);
});

test("every method calls its route, and every route has a method", async () => {
  const f = await fakeServer((s, res) => {
    if (s.path.endsWith(".atom")) {
      res.writeHead(200, { "Content-Type": "application/atom+xml" });
      return res.end('<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id><title>T &amp; U</title><category term="added"></category><link href="/a"></link><summary>s</summary></entry></feed>');
    }
    json(res, 200, s.method === "GET" && !/\/(count|stats|error-codes|openapi\.json)$|\/[a-z]+_[^/]+$/.test(s.path) ? { data: [], has_more: false, next_cursor: null } : { id: "x_1" });
  });
  try {
    const c = new Client({ apiKey: TEST_KEY, baseUrl: f.url });
    const calls: Record<RouteName, () => Promise<unknown>> = {
      createContact: () => c.contacts.create({ phone: "+79990000000", name: "A" }),
      listContacts: () => c.contacts.list({ tag: "t", createdAfter: new Date(0) }).toArray(),
      countContacts: () => c.contacts.count(),
      getContact: () => c.contacts.get("ct_1"),
      sendMessage: () => c.messages.send({ contact_id: "ct_1", channel: "sms", text: "hi" }),
      listMessages: () => c.messages.listPage({ contactId: "ct_1" }),
      importCatalog: () => c.catalog.import({ items: [] } as never),
      runScenario: () => c.scenarios.run("sc_1", { contact_id: "ct_1" } as never),
      createWebhookEndpoint: () => c.webhookEndpoints.create({ url: "https://example.com/h" } as never),
      listWebhookEndpoints: () => c.webhookEndpoints.list().toArray(),
      getWebhookEndpoint: () => c.webhookEndpoints.get("we_1"),
      updateWebhookEndpoint: () => c.webhookEndpoints.update("we_1", { enabled: false } as never),
      deleteWebhookEndpoint: () => c.webhookEndpoints.delete("we_1"),
      rotateWebhookSecret: () => c.webhookEndpoints.rotateSecret("we_1"),
      testWebhookEndpoint: () => c.webhookEndpoints.test("we_1"),
      recoverWebhookEndpoint: () => c.webhookEndpoints.recover("we_1", new Date(0)),
      listDeliveries: () => c.deliveries.list({ eventId: "evt_1", deliveryId: "dlv_1", requestId: "req_1" }).toArray(),
      getDeliveryStats: () => c.deliveries.stats({ granularity: "day" }),
      getDelivery: () => c.deliveries.get("dlv_1"),
      retryDelivery: () => c.deliveries.retry("dlv_1"),
      redirectDelivery: () => c.deliveries.redirect("dlv_1", "insp_1"),
      createInspector: () => c.inspectors.create(),
      listInspectorRequests: () => c.inspectors.requests("insp_1").toArray(),
      listEvents: () => c.events.list({ type: "contact.created" }).toArray(),
      getEvent: () => c.events.get("evt_1"),
      createDashboardSession: () => c.dashboardSessions.create({ scope: "read", ttl_seconds: 600 }),
      listDashboardSessions: () => c.dashboardSessions.list().toArray(),
      getCurrentDashboardSession: () => c.dashboardSessions.current(),
      deleteDashboardSession: () => c.dashboardSessions.delete("dss_1"),
      getOpenAPI: () => c.openAPI(),
      getErrorCodes: () => c.errorCodes(),
      getChangelog: async () => {
        const r = await c.changelog();
        assert.deepEqual(r.entries, [{ id: "x", title: "T & U", published: "", updated: "", categories: ["added"], link: "/a", summary: "s" }]);
      },
    };
    for (const [name, call] of Object.entries(calls) as [RouteName, () => Promise<unknown>][]) {
      const before = f.seen.length;
      await call();
      const s = f.seen[before];
      assert.ok(s, `${name} sent nothing`);
      const [method, template] = ROUTES[name];
      assert.equal(s.method, method, name);
      assert.match(s.path, new RegExp("^/public/v1" + template.replace(/\{[^}]+\}/g, "[^/]+").replace(/\./g, "\\.") + "$"), name);
      assert.equal(Boolean(s.headers["idempotency-key"]), method !== "GET", `${name}: a key exactly on mutations`);
    }
    assert.deepEqual(Object.keys(calls).sort(), Object.keys(ROUTES).sort());
    assert.deepEqual(new Set(f.seen.map((s) => `${s.method} ${s.path}`)).size >= templateRoutes().length, true);
    const params = f.seen.find((s) => s.path.endsWith("/contacts") && s.method === "GET")!.query;
    assert.equal(params.get("tag"), "t");
    assert.equal(params.get("created_after"), "1970-01-01T00:00:00.000Z");
    const dq = f.seen.find((s) => s.path.endsWith("/webhook-deliveries") && s.method === "GET")!.query;
    assert.deepEqual([dq.get("event_id"), dq.get("delivery_id"), dq.get("request_id")], ["evt_1", "dlv_1", "req_1"]);
  } finally {
    await f.close();
  }
});

test("ErrorCode is the server's code table (internal/apierr) and the document's enum", () => {
  const src = readFileSync(join(REPO_DIR, "internal", "apierr", "apierr.go"), "utf8");
  const server = [...src.matchAll(/^\s+[A-Za-z]+\s+Code = "([A-Z_]+)"/gm)].map((m) => m[1]!).sort();
  assert.ok(server.length >= 18);
  assert.deepEqual(Object.values(ErrorCode).sort(), server);
  const doc = readFileSync(join(SDK_DIR, "src", "generated", "openapi.ts"), "utf8");
  const en = /ErrorCode: ((?:"[A-Z_]+"(?: \| )?)+);/.exec(doc)![1]!;
  assert.deepEqual([...en.matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]!).sort(), server);
});

test("src/generated/openapi.ts is what openapi-typescript makes of sdk/openapi.yaml", () => {
  const dir = mkdtempSync(join(tmpdir(), "botix-gen-"));
  try {
    const out = join(dir, "openapi.ts");
    execFileSync(join(SDK_DIR, "node_modules", ".bin", "openapi-typescript"), [join(SDK_DIR, "..", "openapi.yaml"), "-o", out], { cwd: SDK_DIR, stdio: "pipe" });
    assert.equal(readFileSync(join(SDK_DIR, "src", "generated", "openapi.ts"), "utf8"), readFileSync(out, "utf8"), "run npm run generate and commit the result");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("VERSION (sent in the User-Agent) is package.json's version and the CHANGELOG's newest entry", async () => {
  const { VERSION } = await import("../index.js");
  const pkg = JSON.parse(readFileSync(join(SDK_DIR, "package.json"), "utf8")) as { version: string };
  assert.equal(VERSION, pkg.version);
  const changelog = readFileSync(join(SDK_DIR, "CHANGELOG.md"), "utf8");
  assert.equal(/^## v(\S+)/m.exec(changelog)?.[1], VERSION);
});
