// The README's examples are the files in examples/ (verbatim), and they run.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { execFile, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";
import { apiError, fakeServer, json, SDK_DIR, TEST_KEY } from "./helpers.js";

const run = promisify(execFile);

test("every README block marked include is its file, verbatim", () => {
  const readme = readFileSync(join(SDK_DIR, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/<!-- include: ([^ ]+) -->\n```[a-z]*\n([\s\S]*?)```\n/g)];
  assert.deepEqual(blocks.map((b) => b[1]).sort(), ["examples/quickstart.mjs", "examples/receiver.mjs", "examples/typed.ts"]);
  for (const [, file, code] of blocks) assert.equal(code, readFileSync(join(SDK_DIR, file!), "utf8"), file);
});

test("examples/quickstart.mjs runs: a retried create, a walk resumed, a typed validation error", async () => {
  const contacts: { id: string; phone: string; name: string; tags: string[]; created_at: string }[] = [];
  const keys = new Map<string, string>();
  const f = await fakeServer((s, res, n) => {
    if (s.method === "POST" && s.path === "/public/v1/contacts") {
      const body = JSON.parse(s.body);
      if (body.phone === "12") return apiError(res, 422, "VALIDATION_FAILED", { field: "phone", details: { phone: "must be E.164" } });
      if (n === 1) return apiError(res, 503, "SERVICE_UNAVAILABLE"); // retried with the same key
      const key = String(s.headers["idempotency-key"]);
      if (keys.has(key)) return json(res, 201, contacts.find((c) => c.id === keys.get(key)), { "Idempotent-Replayed": "true" });
      const c = { id: `ct_01JDQ7X3ZV8N5W2K4R6T9Y1B${String(contacts.length).padStart(2, "0")}`, ...body, created_at: "" };
      contacts.unshift(c);
      keys.set(key, c.id);
      return json(res, 201, c);
    }
    if (s.method === "GET" && s.path === "/public/v1/contacts") return json(res, 200, { data: contacts.filter((c) => c.tags.includes(s.query.get("tag") ?? "")), has_more: false, next_cursor: null });
    json(res, 404, { error: { code: "NOT_FOUND", message: "no" } });
  });
  try {
    const { stdout } = await run(process.execPath, [join(SDK_DIR, "examples", "quickstart.mjs")], { env: { ...process.env, BOTIX_API_URL: f.url, BOTIX_API_KEY: TEST_KEY } });
    assert.match(stdout, /created ct_\w+ in 2 attempt\(s\), replayed=false/);
    assert.match(stdout, /walked 1 contacts tagged readme, resumed from p1\./);
    assert.match(stdout, /refused: 422 VALIDATION_FAILED field=phone \(must be E\.164\) reissuable=false/);
    assert.equal(contacts.length, 1);
  } finally {
    await f.close();
  }
});

test("examples/receiver.mjs runs: a signed delivery is processed once", async () => {
  const secret = "whsec_" + Buffer.alloc(32, 5).toString("base64");
  const child = spawn(process.execPath, [join(SDK_DIR, "examples", "receiver.mjs")], { env: { ...process.env, PORT: "0", BOTIX_WEBHOOK_SECRETS: secret }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /listening on (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const body = JSON.stringify({ id: "evt_readme", type: "webhook.test", data: {} });
    const ts = Math.floor(Date.now() / 1000);
    const sig = createHmac("sha256", Buffer.alloc(32, 5)).update(`evt_readme.${ts}.${body}`).digest("base64");
    const headers = { "webhook-id": "evt_readme", "webhook-timestamp": String(ts), "webhook-signature": `v1,${sig}` };
    assert.equal((await fetch(url, { method: "POST", body, headers })).status, 200);
    assert.equal((await fetch(url, { method: "POST", body, headers })).status, 200);
    assert.equal((await fetch(url, { method: "POST", body: body + " ", headers })).status, 401);
    assert.equal((out.match(/processed evt_readme webhook\.test/g) ?? []).length, 1);
  } finally {
    child.kill();
  }
});

test("examples/typed.ts type-checks against the built declarations", async () => {
  await run(join(SDK_DIR, "node_modules", ".bin", "tsc"), ["-p", join(SDK_DIR, "tsconfig.examples.json")], { cwd: SDK_DIR });
});
