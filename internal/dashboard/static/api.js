// The public API, called as any integrator calls it: the project's key as
// a Bearer token, one Idempotency-Key per operation, errors as the
// envelope gives them.
import { isSessionToken, session } from './session.js';

const API = '/public/v1';

export class APIError extends Error {
  constructor(status, envelope, requestId, retryAfter, fallback, cause) {
    const e = envelope || {};
    super(e.message || fallback || `HTTP ${status}`, cause ? { cause } : undefined);
    this.status = status;
    this.code = e.code || '';
    this.requestId = e.request_id || requestId || '';
    this.field = e.field || '';
    this.details = e.details || {};
    this.retryAfter = retryAfter;
  }
}

// unauthorized is told the message of a 401 (app.js ends the session).
let unauthorized = () => {};
export function onUnauthorized(fn) { unauthorized = fn; }

// call makes one HTTP request to the API. A 401 ends the session: the
// login form comes back with the API's message.
async function call(method, path, body, idempotencyKey) {
  const used = session.key;
  const headers = { Authorization: 'Bearer ' + used };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  let res;
  try {
    res = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch (e) {
    throw new APIError(0, null, '', 0, 'the API could not be reached (' + e.message + ')', e);
  }
  const requestId = res.headers.get('X-Request-Id') || '';
  const text = await res.text();
  let data;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (res.ok) {
    return { status: res.status, data, requestId, replayed: res.headers.get('Idempotent-Replayed') === 'true' };
  }
  const retryAfter = Number(res.headers.get('Retry-After')) || 0;
  const err = new APIError(res.status, data && data.error, requestId, retryAfter, data && data.message);
  if (res.status === 401) {
    // Calls made together all get the 401: the first one ends the session,
    // the others (for a credential the tab no longer holds) say nothing more,
    // nor does a call a timer made after the session ended (no credential):
    // the login form keeps its message, such as a session's expiry.
    const what = isSessionToken(used) ? 'the dashboard session (expired or revoked)' : 'the key';
    if (used && session.key === used) unauthorized('The API refused ' + what + ': ' + err.message + (err.requestId ? ' (request_id ' + err.requestId + ')' : ''));
    err.loggedOut = true;
  }
  throw err;
}

export async function get(path) { return (await call('GET', path)).data; }

function uuid4() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, x => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function retryable(err) {
  return err.status === 0 || err.status === 429 || err.status >= 500 || err.code === 'IDEMPOTENCY_KEY_IN_PROGRESS';
}

export const sleep = ms => new Promise(r => setTimeout(r, ms));

// mutate is one logical operation (one button click): one fresh
// Idempotency-Key, sent again unchanged when the request is retried after
// a network error, a 5xx, a 429 or a first request still in progress.
export async function mutate(method, path, body, attempts = 4) {
  const key = uuid4();
  for (let i = 1; ; i++) {
    try {
      return await call(method, path, body, key);
    } catch (err) {
      if (i >= attempts || !retryable(err)) throw err;
      await sleep(err.retryAfter ? err.retryAfter * 1000 : 300 * 2 ** i * Math.random() + 200);
    }
  }
}

// listAll follows cursors up to max items (dashboard lists of endpoints).
async function listAll(path, max = 500) {
  const out = [];
  let cursor = '';
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page = await get(path + sep + 'cursor_limit=100' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
    out.push(...page.data);
    cursor = page.has_more ? page.next_cursor : '';
  } while (cursor && out.length < max);
  return out;
}

// endpointsList is the project's endpoints, read again when fresh (or
// never read since the key changed: forgetEndpoints).
let endpointCache = null;
export async function endpointsList(fresh) {
  if (fresh || !endpointCache) endpointCache = await listAll('/webhook-endpoints');
  return endpointCache;
}
export function forgetEndpoints() { endpointCache = null; }

export function endpointLabel(list, id) {
  const ep = list.find(e => e.id === id);
  return ep ? ep.url : id;
}
