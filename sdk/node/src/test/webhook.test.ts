import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { createRequire } from "node:module";
import { SDK_DIR } from "./helpers.js";
import { Verifier, WebhookVerificationError, verifyWebhook, type VerificationReason } from "../webhook.js";

const require = createRequire(import.meta.url);
const { Webhook } = require("standardwebhooks") as typeof import("standardwebhooks");

interface Vector {
  name: string;
  secrets: string[];
  webhook_id: string;
  webhook_timestamp: number;
  body: string;
  x_botix_signature: string;
  webhook_signature: string;
}
// The Go kit's vectors, read where they are (not a copy).
const vectors = (JSON.parse(readFileSync(join(SDK_DIR, "..", "go", "webhook", "testdata", "vectors.json"), "utf8")) as { vectors: Vector[] }).vectors;

const std = (v: Vector, sig = v.webhook_signature) => ({ "webhook-id": v.webhook_id, "webhook-timestamp": String(v.webhook_timestamp), "webhook-signature": sig });
const at = (v: Vector) => v.webhook_timestamp * 1000;

function reason(f: () => void): VerificationReason | "ok" {
  try {
    f();
    return "ok";
  } catch (e) {
    assert.ok(e instanceof WebhookVerificationError, String(e));
    return e.reason;
  }
}

test("the shared vectors verify, with every secret alone and all together", async (t) => {
  assert.equal(vectors.length, 3);
  for (const v of vectors) {
    await t.test(v.name, () => {
      for (const secrets of [v.secrets, ...v.secrets.map((s) => [s])]) {
        assert.equal(reason(() => verifyWebhook({ secrets }, std(v), v.body, at(v))), "ok", "webhook-signature");
        assert.equal(reason(() => verifyWebhook({ secrets }, std(v), Buffer.from(v.body), at(v))), "ok", "bytes");
        assert.equal(reason(() => verifyWebhook({ secrets, allowLegacy: true }, { "X-Botix-Signature": v.x_botix_signature }, v.body, at(v))), "ok", "legacy");
      }
      // Either entry of a rotation's header, alone, verifies with its secret.
      const entries = v.webhook_signature.split(" ");
      entries.forEach((entry, i) => assert.equal(reason(() => verifyWebhook({ secrets: [v.secrets[i]!] }, std(v, entry), v.body, at(v))), "ok"));
      // The vector's signatures are what an independent HMAC gives.
      for (const [i, s] of v.secrets.entries()) {
        const k = Buffer.from(s.slice(6), "base64");
        assert.equal(createHmac("sha256", k).update(v.body).digest("hex"), v.x_botix_signature.split(",")[i]);
      }
    });
  }
});

test("refusals: stale, tampered, wrong secret, legacy-only without opt-in, bad timestamp, bad secret", async (t) => {
  const v = vectors[1]!;
  const other = "whsec_" + Buffer.alloc(32, 7).toString("base64");
  const cases: { name: string; want: VerificationReason; run: () => void }[] = [
    { name: "stale: 5 min + 1 s late", want: "stale", run: () => verifyWebhook({ secrets: v.secrets }, std(v), v.body, at(v) + 301_000) },
    { name: "stale: early", want: "stale", run: () => verifyWebhook({ secrets: v.secrets }, std(v), v.body, at(v) - 301_000) },
    { name: "tolerance option", want: "stale", run: () => verifyWebhook({ secrets: v.secrets, toleranceMs: 1000 }, std(v), v.body, at(v) + 2000) },
    { name: "tampered body", want: "bad_signature", run: () => verifyWebhook({ secrets: v.secrets }, std(v), v.body + " ", at(v)) },
    { name: "tampered id", want: "bad_signature", run: () => verifyWebhook({ secrets: v.secrets }, { ...std(v), "webhook-id": "evt_x" }, v.body, at(v)) },
    { name: "another secret", want: "bad_signature", run: () => verifyWebhook({ secrets: [other] }, std(v), v.body, at(v)) },
    { name: "no v1 entry", want: "bad_signature", run: () => verifyWebhook({ secrets: v.secrets }, std(v, v.webhook_signature.replace(/v1,/g, "v2,")), v.body, at(v)) },
    { name: "legacy only, not allowed", want: "untimed_signature", run: () => verifyWebhook({ secrets: v.secrets }, { "x-botix-signature": v.x_botix_signature }, v.body, at(v)) },
    { name: "legacy only, wrong", want: "bad_signature", run: () => verifyWebhook({ secrets: [other], allowLegacy: true }, { "x-botix-signature": v.x_botix_signature }, v.body, at(v)) },
    {
      name: "a bad webhook-signature is not excused by a good legacy one",
      want: "bad_signature",
      run: () => verifyWebhook({ secrets: v.secrets, allowLegacy: true }, { ...std(v, "v1,AAAA"), "x-botix-signature": v.x_botix_signature }, v.body, at(v)),
    },
    {
      name: "a stale webhook-signature is refused even with allowLegacy",
      want: "stale",
      run: () => verifyWebhook({ secrets: v.secrets, allowLegacy: true }, { ...std(v), "x-botix-signature": v.x_botix_signature }, v.body, at(v) + 3600_000),
    },
    { name: "no signature", want: "no_signature", run: () => verifyWebhook({ secrets: v.secrets }, {}, v.body, at(v)) },
    { name: "bad timestamp", want: "bad_timestamp", run: () => verifyWebhook({ secrets: v.secrets }, { ...std(v), "webhook-timestamp": "soon" }, v.body, at(v)) },
    { name: "bad secret", want: "bad_secret", run: () => verifyWebhook({ secrets: ["nope"] }, std(v), v.body, at(v)) },
    { name: "secret not base64", want: "bad_secret", run: () => verifyWebhook({ secrets: ["whsec_***"] }, std(v), v.body, at(v)) },
  ];
  for (const tc of cases) await t.test(tc.name, () => assert.equal(reason(tc.run), tc.want));
  // A rotation's webhook-signature verifies although X-Botix-Signature names secrets this receiver lacks.
  assert.equal(reason(() => verifyWebhook({ secrets: [v.secrets[1]!] }, { ...std(v), "x-botix-signature": "00" }, v.body, at(v))), "ok");
  // fetch's Headers work too.
  assert.equal(reason(() => new Verifier({ secrets: v.secrets }).verify(new Headers(std(v)), v.body, at(v))), "ok");
});

test("cross-check with the Standard Webhooks reference library", async (t) => {
  await t.test("the library signs the vectors' entries", () => {
    for (const v of vectors) {
      const want = v.webhook_signature.split(" ");
      v.secrets.forEach((s, i) => assert.equal(new Webhook(s).sign(v.webhook_id, new Date(at(v)), v.body), want[i]));
    }
  });
  await t.test("what the library signs now, we verify; what we accept, the library accepts", () => {
    const secret = "whsec_" + Buffer.from("a secret of thirty-two bytes!!!!").toString("base64");
    const wh = new Webhook(secret);
    for (const body of ['{"id":"evt_1"}', '{"text":"Привет, <Иван> & co"}', "{}"]) {
      const now = new Date();
      const headers = { "webhook-id": "evt_01JDQ7X3ZV8N5W2K4R6T9Y1B3H", "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": wh.sign("evt_01JDQ7X3ZV8N5W2K4R6T9Y1B3H", now, body) };
      assert.equal(reason(() => verifyWebhook({ secrets: [secret] }, headers, body)), "ok");
      assert.doesNotThrow(() => wh.verify(body, headers));
      const tampered = body + "x";
      assert.equal(reason(() => verifyWebhook({ secrets: [secret] }, headers, tampered)), "bad_signature");
      assert.throws(() => wh.verify(tampered, headers));
    }
  });
});
