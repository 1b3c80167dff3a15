import { BotixError, Client, ErrorCode } from "@botix/sdk";

// The base URL and the key come from BOTIX_API_URL and BOTIX_API_KEY
// (or pass { baseUrl, apiKey }). Retries are on by default: 5 attempts,
// full-jitter backoff, Retry-After honoured, a client-wide retry quota.
const client = new Client({ retry: { maxAttempts: 5 }, attemptTimeoutMs: 10_000 });

// Create: the call gets one Idempotency-Key, sent on every retry of it.
const phone = "+7999" + String(Date.now() % 1e8).padStart(8, "0");
const body = { phone, name: "Ivan", tags: ["readme"] };
let contact;
try {
  contact = await client.contacts.create(body);
} catch (err) {
  if (!(err instanceof BotixError) || !err.reissuable) throw err;
  // Every attempt failed or the answer was lost: finish the same operation
  // with its key. The API replays the stored result or creates it once.
  contact = await client.contacts.create(body, err.reissue());
}
const { attempts, replayed, requestId } = contact.response;
console.log(`created ${contact.id} in ${attempts} attempt(s), replayed=${replayed}, request ${requestId}`);

// Iterate: an async iterator over every page; stop at any item and keep
// the position as a string to resume later, in this process or another.
const walk = client.contacts.list({ limit: 50, tag: "readme" });
let seen = 0;
let saved = "";
for await (const c of walk) {
  seen++;
  if (c.id === contact.id) {
    saved = walk.position.toString();
    break;
  }
}
for await (const c of client.contacts.list({ limit: 50, tag: "readme" }, { from: saved })) seen++;
console.log(`walked ${seen} contacts tagged readme, resumed from ${saved}`);

// Errors are typed: status, code, field, details, request id, the key and
// the attempt count; reissuable says whether the same key can end differently.
try {
  await client.contacts.create({ phone: "12", name: "bad" });
} catch (err) {
  if (!(err instanceof BotixError) || err.code !== ErrorCode.ValidationFailed) throw err;
  console.log(`refused: ${err.status} ${err.code} field=${err.field} (${err.details[err.field]}) reissuable=${err.reissuable}`);
}
