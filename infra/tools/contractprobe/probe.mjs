// The third-party contract run (issue 21): for every operation of
// sdk/openapi.yaml under /public/v1, requests generated with
// json-schema-faker — schema-valid ones, and schema-invalid ones made by
// mutating a valid one — sent through a Stoplight Prism validating proxy in
// front of the local runtime. Prism reports request and response violations
// in the sl-violations header. The run counts
//   response violations   Prism's response-side violations of any exchange
//   accepted-but-forbidden a request the document forbids (by construction
//                          or by Prism's request-side verdict) answered 2xx
//   refused-but-allowed    a request the document allows answered 400
//                          INVALID_JSON / INVALID_PARAMETER or 422
//                          VALIDATION_FAILED
// and exits 1 unless all three are 0 and at least --min exchanges ran.
// Rules the server enforces that JSON Schema cannot state are EXCEPTIONS
// below, by name: the generator obeys them in valid requests (counted), and
// a probe per exception checks the server does refuse the request they
// forbid.
//
// Run by infra/tools/contractprobe (make bench), which starts the runtime,
// the resources whose ids it uses and Prism, and passes:
//   --document openapi.json  sdk/openapi.yaml as JSON
//   --fixtures fixtures.json {contact, endpoint, inspector, event, delivery, receiver}
//   --proxy URL --key API_KEY [--per-op N] [--min N] [--seed N]
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { generate } from 'json-schema-faker';

// Ajv (with its formats) comes with Prism, pinned by package-lock.json: it
// confirms what is valid or invalid by construction, with the document's
// own schemas.
const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

const { values: opt } = parseArgs({
  options: {
    document: { type: 'string' }, fixtures: { type: 'string' }, proxy: { type: 'string' }, key: { type: 'string' },
    'per-op': { type: 'string', default: '40' }, min: { type: 'string', default: '2000' }, seed: { type: 'string', default: '21' },
    concurrency: { type: 'string', default: '4' },
  },
});
for (const k of ['document', 'fixtures', 'proxy', 'key']) {
  if (!opt[k]) { console.error(`probe: --${k} is required`); process.exit(2); }
}
const doc = JSON.parse(readFileSync(opt.document, 'utf8'));
const fx = JSON.parse(readFileSync(opt.fixtures, 'utf8'));
const PER_OP = Number(opt['per-op']);
const MIN = Number(opt.min);
let seed = Number(opt.seed);

// ---- the document ------------------------------------------------------

// deref inlines local $refs (OpenAPI 3.1 allows keywords beside a $ref:
// they are kept).
function deref(node, seen = []) {
  if (Array.isArray(node)) return node.map((n) => deref(n, seen));
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') {
    const ref = node.$ref;
    if (seen.includes(ref)) throw new Error(`cyclic $ref ${ref}`);
    const target = ref.replace(/^#\//, '').split('/').reduce((o, p) => o[p.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    const { $ref, ...rest } = node;
    return { ...deref(target, [...seen, ref]), ...deref(rest, seen) };
  }
  const out = {};
  for (const [k, v] of Object.entries(node)) out[k] = deref(v, seen);
  return out;
}

// multipleOfPrecision: Ajv computes multipleOf in binary floating point,
// where 19.99 / 0.0001 is 199899.99999999997: without a tolerance it
// refuses 19.99 under multipleOf 0.0001, which JSON Schema (exact values)
// allows. See MULTIPLE_OF below for Prism, which uses Ajv without one.
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true, multipleOfPrecision: 8 });
addFormats(ajv);
const validators = new Map();
// isValid is Ajv's verdict with multipleOf left out, and multipleOf checked
// exactly on the JSON text a request carries (exactMultiples): Ajv's binary
// floating point cannot tell, near the price maximum of 10^12, a multiple of
// 0.0001 from a neighbour, even with multipleOfPrecision.
function isValid(schema, value) {
  let v = validators.get(schema);
  if (!v) { v = ajv.compile(stripMultipleOf(schema)); validators.set(schema, v); }
  return v(value) && exactMultiples(schema, value);
}
function stripMultipleOf(s) {
  if (Array.isArray(s)) return s.map(stripMultipleOf);
  if (!s || typeof s !== 'object') return s;
  const out = {};
  for (const [k, v] of Object.entries(s)) if (k !== 'multipleOf' || typeof v !== 'number') out[k] = stripMultipleOf(v);
  return out;
}
function decimalsOf(text) {
  const m = /^-?[0-9]+(?:\.([0-9]+))?(?:[eE]([-+]?[0-9]+))?$/.exec(text);
  if (!m) return Infinity;
  return Math.max(0, (m[1] || '').length - Number(m[2] || 0));
}
function exactMultiples(s, v) {
  if (!s || typeof s !== 'object') return true;
  if (typeof v === 'number' && typeof s.multipleOf === 'number') {
    const d = decimalsOf(String(s.multipleOf));
    if (decimalsOf(JSON.stringify(v)) > d) return false;
    // Both scaled to integers by 10^d, as text: exact.
    const scale = (t) => { const [i, f = ''] = t.split('.'); return BigInt(i + f.padEnd(d, '0')); };
    const fixed = (x) => Number(x).toFixed(d);
    return scale(fixed(v)) % scale(fixed(s.multipleOf)) === 0n;
  }
  if (Array.isArray(v) && s.items) return v.every((x) => exactMultiples(s.items, x));
  if (v && typeof v === 'object' && s.properties) return Object.entries(s.properties).every(([k, ps]) => !(k in v) || exactMultiples(ps, v[k]));
  return true;
}

const operations = [];
for (const [path, item] of Object.entries(doc.paths)) {
  if (!path.startsWith('/public/v1/')) continue;
  for (const method of ['get', 'post', 'patch', 'delete']) {
    const op = item[method];
    if (!op) continue;
    const params = deref([...(item.parameters || []), ...(op.parameters || [])]);
    const body = op.requestBody ? deref(op.requestBody) : null;
    operations.push({
      id: op.operationId, method: method.toUpperCase(), path, params,
      query: params.filter((p) => p.in === 'query'), pathParams: params.filter((p) => p.in === 'path'),
      body: body ? { required: !!body.required, schema: body.content['application/json'].schema } : null,
      secured: op.security === undefined || op.security.length > 0,
    });
  }
}
// Deletes go last, so that the resources they remove are not needed after.
operations.sort((a, b) => (a.method === 'DELETE') - (b.method === 'DELETE'));

// ---- exceptions: server rules JSON Schema cannot state ------------------

const EXCEPTIONS = {
  'pagination-mode': {
    why: 'cursor and cursor_limit only in cursor mode, offset and limit only with pagination=offset: a rule across parameters, and OpenAPI parameter schemas are independent (stated in the parameters\' descriptions)',
    probe: (op) => op.query.some((p) => p.name === 'cursor_limit') && { query: [['pagination', 'offset'], ['cursor_limit', '5']] },
    expect: [400, 'INVALID_PARAMETER'],
  },
  'until-after-since': {
    why: 'until must not be before since: a rule across two query parameters (stated in until\'s description)',
    probe: (op) => op.query.some((p) => p.name === 'until') && op.query.some((p) => p.name === 'since') &&
      { query: [['since', iso(-2 * HOUR)], ['until', iso(-3 * HOUR)]] },
    expect: [400, 'INVALID_PARAMETER'],
  },
  'time-relative': {
    why: 'recover\'s since must not be in the future, and a stats window must end within the counters\' 14 days: bounds relative to the server\'s clock, which a schema cannot name',
    probe: (op) => op.id === 'recoverWebhookEndpoint' && { body: { since: iso(DAY) } },
    expect: [422, 'VALIDATION_FAILED'],
  },
  'sku-unique-in-import': {
    why: 'the skus of one import are distinct: uniqueness of one property across array items, which uniqueItems (whole items) cannot state (stated in the sku\'s description)',
    probe: (op) => op.id === 'importCatalog' && { body: { items: [{ sku: 'DUP', name: 'a', price: 1 }, { sku: 'DUP', name: 'b', price: 2 }] } },
    expect: [422, 'VALIDATION_FAILED'],
  },
  'endpoint-url-address-guard': {
    why: 'endpoint URLs on private, link-local (and, outside the local runtime, loopback) addresses are refused, also after DNS: the address, not the text, decides; valid URLs here all point at the loopback receiver so that no delivery leaves the machine',
    probe: (op) => op.id === 'createWebhookEndpoint' && { body: { url: 'http://10.0.0.1/hook', events: ['webhook.test'] } },
    expect: [422, 'VALIDATION_FAILED'],
  },
};
let mutationKinds = 0;
const exceptionCounts = Object.fromEntries(Object.keys(EXCEPTIONS).map((k) => [k, { shaped: 0, probes: 0, refused: 0 }]));

// ---- generation ----------------------------------------------------------

const HOUR = 3600e3, DAY = 24 * HOUR;
function iso(offsetMs) { return new Date(Date.now() + offsetMs).toISOString(); }
let rngState = seed >>> 0;
function rand() { // mulberry32, seeded like the faker
  rngState = (rngState + 0x6d2b79f5) >>> 0;
  let t = rngState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

// Date-times within the last days (the lists and windows read recent data;
// see the time-relative exception); URLs at the loopback receiver.
const formats = {
  'date-time': (r) => new Date(Date.now() - Math.floor(r.next() * 10 * DAY) - HOUR).toISOString(),
  uri: (r) => `${fx.receiver}/hook/${r.int(0, 999999)}`,
};

// fake generates a value of schema; json-schema-faker gives up on some
// seeds (minProperties over optional properties): the next seed is tried.
async function fake(schema) {
  for (let tries = 0; ; tries++) {
    try {
      return decimalMultiples(schema, await generate(schema, { seed: seed++, optionalsProbability: 0.5, formats, maxDefaultItems: 3, maxItems: 25 }));
    } catch (e) {
      stats.generatorMisses++;
      if (tries >= 20) throw e;
    }
  }
}

// json-schema-faker and Ajv (so Prism) compute multipleOf in binary
// floating point: for a price near 10^12 they generate and accept
// 266429208684.71262, which is no multiple of 0.0001 as the JSON text says
// it (the server reads the text: at most 4 decimals). Generated numbers are
// rounded to multipleOf's decimals, so that the text is exactly a multiple.
function decimalMultiples(s, v) {
  if (!s || typeof s !== 'object') return v;
  if (typeof v === 'number' && typeof s.multipleOf === 'number') {
    const d = (String(s.multipleOf).split('.')[1] || '').length;
    return Number((Math.round(v / s.multipleOf) * s.multipleOf).toFixed(d));
  }
  if (Array.isArray(v) && s.items) return v.map((x) => decimalMultiples(s.items, x));
  if (v && typeof v === 'object' && s.properties) {
    for (const [k, ps] of Object.entries(s.properties)) if (k in v) v[k] = decimalMultiples(ps, v[k]);
  }
  return v;
}

// The ids of real resources, by what a route or field names; created
// endpoints are harvested for the routes that change or delete them.
const created = { endpoint: [] };
const idPatterns = {
  contact: doc.components.schemas.ContactID, endpoint: doc.components.schemas.WebhookEndpointID,
  delivery: doc.components.schemas.DeliveryID, inspector: doc.components.schemas.InspectorID, event: doc.components.schemas.EventID,
};
function resourceOf(path) {
  if (path.startsWith('/public/v1/contacts/')) return 'contact';
  if (path.startsWith('/public/v1/webhook-endpoints/')) return 'endpoint';
  if (path.startsWith('/public/v1/webhook-deliveries/')) return 'delivery';
  if (path.startsWith('/public/v1/inspectors/')) return 'inspector';
  if (path.startsWith('/public/v1/events/')) return 'event';
  return null;
}
async function realOrGenerated(kind, op) {
  if (kind === 'endpoint' && (op.method === 'DELETE' || op.method === 'PATCH') && created.endpoint.length && rand() < 0.8) {
    return op.method === 'DELETE' ? created.endpoint.pop() : pick(created.endpoint);
  }
  if (kind === 'endpoint' && (op.method === 'DELETE' || op.method === 'PATCH')) return fake(idPatterns.endpoint);
  if (fx[kind] && rand() < 0.75) return fx[kind];
  return fake(idPatterns[kind]);
}
const fieldResource = { contact_id: 'contact', inspector_id: 'inspector', endpoint_id: 'endpoint', event_id: 'event' };

async function validRequest(op) {
  const req = { op, path: {}, query: [], body: undefined, shaped: [] };
  for (const p of op.pathParams) {
    const kind = resourceOf(op.path);
    req.path[p.name] = kind ? await realOrGenerated(kind, op) : await fake(p.schema);
  }
  // The pagination mode decides which paging parameters may appear.
  const offsetMode = op.query.some((p) => p.name === 'pagination') && rand() < 0.25;
  for (const p of op.query) {
    if (p.name === 'cursor') continue; // a cursor is issued by the server, not generated
    // Offset mode: pagination=offset, maybe offset and limit, no
    // cursor_limit. Cursor mode: maybe pagination=cursor and cursor_limit,
    // no offset or limit.
    if (p.name === 'pagination') {
      if (offsetMode) req.query.push(['pagination', 'offset']);
      else if (rand() < 0.3) req.query.push(['pagination', 'cursor']);
      continue;
    }
    if (p.name === 'cursor_limit' && offsetMode) continue;
    if ((p.name === 'offset' || p.name === 'limit') && !offsetMode) continue;
    if (rand() < 0.5) continue;
    let v = fieldResource[p.name] && fx[fieldResource[p.name]] && rand() < 0.7 ? fx[fieldResource[p.name]] : await fake(p.schema);
    req.query.push([p.name, String(v)]);
  }
  if (op.query.some((p) => p.name === 'pagination')) req.shaped.push('pagination-mode');
  const since = req.query.find(([k]) => k === 'since'), until = req.query.find(([k]) => k === 'until');
  if (since && until) {
    req.shaped.push('until-after-since');
    if (until[1] < since[1]) [since[1], until[1]] = [until[1], since[1]];
  }
  if (since || until) req.shaped.push('time-relative');
  if (op.body) {
    for (let tries = 0; tries < 10; tries++) {
      const b = await fake(op.body.schema);
      for (const [f, kind] of Object.entries(fieldResource)) {
        if (b && typeof b === 'object' && f in b && fx[kind] && rand() < 0.8) b[f] = fx[kind];
      }
      if (b && typeof b === 'object' && 'since' in b && op.id === 'recoverWebhookEndpoint') req.shaped.push('time-relative');
      if (op.id === 'importCatalog' && Array.isArray(b?.items)) {
        req.shaped.push('sku-unique-in-import');
        const seen = new Set();
        b.items.forEach((it, i) => { if (it && typeof it.sku === 'string' && seen.has(it.sku)) it.sku = `${it.sku.slice(0, 56)}.${i}`; seen.add(it?.sku); });
      }
      if (b && typeof b === 'object' && 'url' in b) req.shaped.push('endpoint-url-address-guard');
      if (isValid(op.body.schema, b)) { req.body = b; break; }
      stats.generatorMisses++;
    }
    if (req.body === undefined) return null;
  }
  return req;
}

// ---- mutations: a valid request made invalid ------------------------------

const clone = (x) => structuredClone(x);
function typeOf(s) { return Array.isArray(s.type) ? s.type : s.type ? [s.type] : []; }
// wrongValue is v in another JSON type: a number or boolean as the string
// a careless client sends ("1.5"), a string as a number, a container as a
// scalar.
function wrongValue(s, v) {
  const t = typeOf(s);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return /^-?[0-9]+(\.[0-9]+)?$/.test(v) ? Number(v) : 12345;
  if (t.includes('object')) return 'not-an-object';
  if (t.includes('array')) return { not: 'an array' };
  if (t.length || s.enum || s.const !== undefined) return { wrong: true };
  return undefined;
}
function outOfBounds(s, v) {
  const out = [];
  if (typeof v === 'string') {
    if (s.maxLength !== undefined) out.push(['too long', 'x'.repeat(s.maxLength + 1)]);
    if (s.minLength) out.push(['too short', '']);
    if (s.pattern) out.push(['pattern', v + ' !']);
    if (s.enum) out.push(['enum', 'not-in-enum']);
    if (s.format === 'date-time') out.push(['format', 'yesterday']);
    if (s.format === 'email') out.push(['format', 'not an email']);
  }
  if (typeof v === 'number') {
    if (s.maximum !== undefined) out.push(['above maximum', s.maximum + 1]);
    if (s.exclusiveMaximum !== undefined) out.push(['at exclusive maximum', s.exclusiveMaximum]);
    if (s.minimum !== undefined) out.push(['below minimum', s.minimum - 1]);
    if (s.multipleOf !== undefined) out.push(['not a multiple', s.multipleOf / 3]);
  }
  if (Array.isArray(v)) {
    if (s.maxItems !== undefined && v.length) out.push(['too many items', Array.from({ length: s.maxItems + 1 }, (_, i) => (typeof v[0] === 'string' ? v[0] + i : v[0]))]);
    if (s.minItems) out.push(['empty array', []]);
    if (s.uniqueItems && v.length) out.push(['duplicate items', [v[0], v[0]]]);
  }
  return out;
}

// Each mutation of a body: [name, body], at every object (nested items too).
function bodyMutations(schema, body) {
  const out = [];
  // change(path, f): a copy of body whose value at path is f(the old value).
  const change = (path, f) => {
    const c = clone(body);
    if (!path.length) return f(c);
    let o = c;
    for (const k of path.slice(0, -1)) o = o[k];
    const last = path[path.length - 1];
    const v = f(o[last]);
    if (v === DROP) delete o[last]; else o[last] = v;
    return c;
  };
  const name = (path) => ['body', ...path].join('.');
  const walk = (s, v, path) => {
    if (!s || typeof s !== 'object' || !v || typeof v !== 'object' || Array.isArray(v)) return;
    for (const r of s.required || []) out.push([`${name([...path, r])}: required field dropped`, change([...path, r], () => DROP)]);
    if (s.additionalProperties === false) out.push([`${name(path)}: unknown property`, change([...path, 'zz_unknown'], () => 1)]);
    if (s.patternProperties && s.additionalProperties === false) out.push([`${name(path)}: property name off pattern`, change([...path, 'bad name!'], () => 'x')]);
    for (const [k, ps] of Object.entries(s.properties || {})) {
      if (!(k in v)) continue;
      const at = [...path, k];
      const w = wrongValue(ps, v[k]);
      if (w !== undefined) out.push([`${name(at)}: wrong type`, change(at, () => w)]);
      if (!typeOf(ps).includes('null') && ps.const === undefined) out.push([`${name(at)}: null`, change(at, () => null)]);
      for (const [what, bad] of outOfBounds(ps, v[k])) out.push([`${name(at)}: ${what}`, change(at, () => bad)]);
      if (Array.isArray(v[k]) && v[k].length && ps.items) {
        for (const [what, bad] of outOfBounds(ps.items, v[k][0])) out.push([`${name([...at, 0])}: ${what}`, change([...at, 0], () => bad)]);
        const w0 = wrongValue(ps.items, v[k][0]);
        if (w0 !== undefined) out.push([`${name([...at, 0])}: wrong type`, change([...at, 0], () => w0)]);
        walk(ps.items, v[k][0], [...at, 0]);
      } else {
        walk(ps, v[k], at);
      }
    }
  };
  walk(schema, body, []);
  out.push(['body: not an object', []]);
  return out.filter(([, b]) => !isValid(schema, b));
}
const DROP = Symbol('drop');

// An unknown parameter is refused on every authenticated operation (the
// README: "a typo must not silently widen a list"; a route that takes none
// refuses any, so a filter it cannot apply does not look honoured). The
// public documents and the capture URL ignore queries.
function queryMutations(op, req) {
  const out = op.query.length || op.secured ? [['query: unknown parameter', [...req.query, ['zz_unknown', '1']]]] : [];
  for (const p of op.query) {
    out.push([`query.${p.name}: empty`, [...req.query.filter(([k]) => k !== p.name), [p.name, '']]]);
    const s = p.schema || {};
    const bad = [];
    if (s.type === 'integer') bad.push(['wrong type', 'abc'], ['not an integer', '1.5']);
    if (s.maximum !== undefined) bad.push(['above maximum', String(s.maximum + 1)]);
    if (s.minimum !== undefined) bad.push(['below minimum', String(s.minimum - 1)]);
    if (s.enum) bad.push(['enum', 'not-in-enum']);
    if (s.pattern) bad.push(['pattern', 'bad value!']);
    if (s.format === 'date-time') bad.push(['format', 'yesterday']);
    for (const [name, v] of bad) out.push([`query.${p.name}: ${name}`, [...req.query.filter(([k]) => k !== p.name), [p.name, v]]]);
  }
  return out;
}

function pathMutations(op, req) {
  const out = [];
  for (const p of op.pathParams) {
    if (p.schema && p.schema.pattern) out.push([`path.${p.name}: pattern`, { ...req.path, [p.name]: 'x'.repeat(65) }]);
  }
  return out;
}

// ---- sending ---------------------------------------------------------------

const stats = { exchanges: 0, valid: 0, invalid: 0, responseViolations: 0, acceptedForbidden: 0, refusedAllowed: 0, generatorMisses: 0, prismRequestVerdicts: 0, exceptionsStated: 0, multipleOfOverruled: 0, statuses: {} };
const problems = [];
const validByOp = {};
const REFUSALS = new Set(['400 INVALID_JSON', '400 INVALID_PARAMETER', '422 VALIDATION_FAILED']);

function urlOf(req) {
  let p = req.op.path;
  for (const [k, v] of Object.entries(req.path)) p = p.replace(`{${k}}`, encodeURIComponent(v));
  const qs = req.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return opt.proxy + p + (qs ? '?' + qs : '');
}

async function send(req) {
  const headers = { Authorization: `Bearer ${opt.key}` };
  if (req.op.method !== 'GET') headers['Idempotency-Key'] = randomUUID();
  let body;
  if (req.body !== undefined) { headers['Content-Type'] = 'application/json'; body = JSON.stringify(req.body); }
  const url = urlOf(req);
  const res = await fetch(url, { method: req.op.method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let code = '';
  try { code = JSON.parse(text)?.error?.code || ''; } catch { /* not JSON */ }
  let violations = [];
  const raw = res.headers.get('sl-violations');
  if (raw) {
    // Prism cuts a header over 8 KB ("Too many violations! " and the start
    // of the JSON): the whole entries in it are read one by one.
    try { violations = JSON.parse(raw); } catch {
      violations = (raw.match(/\{"location":\[[^\]]*\],"severity":"[A-Za-z]+","code":"[^"]*","message":"(?:[^"\\]|\\.)*"\}/g) || []).map((e) => JSON.parse(e));
      if (!violations.length) violations = [{ location: ['response'], severity: 'Error', message: 'unparsable sl-violations: ' + raw.slice(0, 200) }];
    }
  }
  stats.exchanges++;
  stats.statuses[res.status] = (stats.statuses[res.status] || 0) + 1;
  return { status: res.status, code, text, violations, url };
}

function record(req, res, verdict) {
  const where = `${req.op.method} ${res.url.replace(opt.proxy, '')}${req.body !== undefined ? ' ' + JSON.stringify(req.body).slice(0, 300) : ''}`;
  const respV = res.violations.filter((v) => v.location?.[0] === 'response');
  // Prism's warnings (a deprecated parameter) are no verdict on the request.
  let reqV = res.violations.filter((v) => v.location?.[0] === 'request' && v.severity === 'Error');
  // MULTIPLE_OF: Prism runs Ajv without multipleOfPrecision, so it calls
  // 19.99 no multiple of 0.0001 (binary floating point). A generated valid
  // request's numbers are exact decimal multiples (decimalMultiples), so
  // that verdict is overruled there, and counted.
  if (!verdict.invalid) {
    const overruled = reqV.filter((v) => /must be multiple of/.test(v.message));
    if (overruled.length) { stats.multipleOfOverruled++; reqV = reqV.filter((v) => !overruled.includes(v)); }
  }
  if (respV.length) {
    stats.responseViolations += respV.length;
    problems.push(`response violation: ${where} -> ${res.status} ${res.text.slice(0, 200)}: ${respV.map((v) => `${v.location.join('.')} ${v.message}`).join('; ')}`);
  }
  if (reqV.length) stats.prismRequestVerdicts++;
  const forbidden = verdict.invalid || reqV.length > 0;
  if (forbidden && res.status >= 200 && res.status < 300) {
    stats.acceptedForbidden++;
    problems.push(`accepted but forbidden (${verdict.invalid || reqV.map((v) => `${v.location.join('.')} ${v.message}`).join('; ')}): ${where} -> ${res.status}`);
  }
  if (verdict.exception && reqV.length) {
    stats.exceptionsStated++;
    problems.push(`exception ${verdict.exception} is a rule the document states (Prism judged the probe invalid): drop the exception`);
  }
  const expected = verdict.exception && `${res.status} ${res.code}` === EXCEPTIONS[verdict.exception].expect.join(' ');
  if (!forbidden && !expected && REFUSALS.has(`${res.status} ${res.code}`)) {
    stats.refusedAllowed++;
    problems.push(`refused but allowed: ${where} -> ${res.status} ${res.text.slice(0, 300)}`);
  }
  if (verdict.invalid) stats.invalid++; else { stats.valid++; validByOp[req.op.id] = (validByOp[req.op.id] || 0) + 1; }
}

async function pool(tasks, n) {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < tasks.length) { const t = tasks[i++]; await t(); }
  }));
}

// ---- the run ----------------------------------------------------------------

for (const op of operations) {
  const tasks = [];
  const sentKinds = new Set();
  for (let n = 0; n < PER_OP; n++) {
    const req = await validRequest(op);
    if (!req) continue;
    for (const e of new Set(req.shaped)) exceptionCounts[e].shaped++;
    tasks.push(async () => {
      const res = await send(req);
      record(req, res, {});
      if (op.id === 'createWebhookEndpoint' && res.status === 201) created.endpoint.push(JSON.parse(res.text).id);
    });
    // One or two mutations of each valid request, of its body, query or path.
    const muts = [
      ...(op.body ? bodyMutations(op.body.schema, req.body).map(([name, b]) => ({ ...req, body: b, name })) : []),
      ...queryMutations(op, req).map(([name, q]) => ({ ...req, query: q, name })),
      ...pathMutations(op, req).map(([name, p]) => ({ ...req, path: p, name })),
    ];
    if (op.body && op.body.required) muts.push({ ...req, body: undefined, name: 'body: missing' });
    // Mutations of a kind this operation has not had yet come first, so
    // that every kind is sent; then any.
    for (let m = 0; m < 2 && muts.length; m++) {
      const fresh = muts.filter((x) => !sentKinds.has(x.name));
      const from = fresh.length ? fresh : muts;
      const mut = from[Math.floor(rand() * from.length)];
      muts.splice(muts.indexOf(mut), 1);
      sentKinds.add(mut.name);
      tasks.push(async () => { const res = await send(mut); record(mut, res, { invalid: mut.name }); });
    }
  }
  await pool(tasks, Number(opt.concurrency));
  mutationKinds += sentKinds.size;
  if (process.env.PROBE_DEBUG) console.error(op.id, [...sentKinds].join(' | '));
  // Each exception's probe: a request that only the exception forbids.
  for (const [name, ex] of Object.entries(EXCEPTIONS)) {
    const p = ex.probe(op);
    if (!p) continue;
    const base = await validRequest(op);
    if (!base) continue;
    const req = { ...base, query: p.query ? [...base.query.filter(([k]) => !p.query.some(([q]) => q === k)), ...p.query] : base.query, body: p.body ?? base.body };
    if (name === 'pagination-mode') req.query = req.query.filter(([k]) => !['offset', 'limit'].includes(k));
    const res = await send(req);
    // Prism must find nothing wrong with the request: else the rule is one
    // the document states, and it is not an exception.
    record(req, res, { exception: name });
    exceptionCounts[name].probes++;
    if (res.status === ex.expect[0] && res.code === ex.expect[1]) {
      exceptionCounts[name].refused++;
    } else {
      problems.push(`exception ${name} not enforced: ${req.op.method} ${res.url.replace(opt.proxy, '')} ${JSON.stringify(req.body) ?? ''} -> ${res.status} ${res.text.slice(0, 200)}`);
      if (res.status >= 200 && res.status < 300 && name === 'endpoint-url-address-guard') {
        // Never leave an endpoint on a private address registered.
        const id = JSON.parse(res.text).id;
        await fetch(`${opt.proxy}/public/v1/webhook-endpoints/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${opt.key}`, 'Idempotency-Key': randomUUID() } });
      }
    }
  }
}

// ---- the report ---------------------------------------------------------------

const untested = operations.map((o) => o.id).filter((id) => !validByOp[id]);
const exceptionFailures = Object.values(exceptionCounts).reduce((n, c) => n + (c.probes - c.refused), 0) + stats.exceptionsStated;
console.log('\n### Contract run: generated requests through Stoplight Prism (validating proxy)\n');
console.log('| what | count |');
console.log('| --- | ---: |');
console.log(`| operations under /public/v1 | ${operations.length} |`);
console.log(`| exchanges | ${stats.exchanges} |`);
console.log(`| schema-valid requests | ${stats.valid} |`);
console.log(`| schema-invalid requests (mutated) | ${stats.invalid} |`);
console.log(`| kinds of mutation sent (summed over operations) | ${mutationKinds} |`);
console.log(`| **response violations** | **${stats.responseViolations}** |`);
console.log(`| **accepted-but-forbidden** | **${stats.acceptedForbidden}** |`);
console.log(`| **refused-but-allowed** | **${stats.refusedAllowed}** |`);
console.log(`| exception probes not refused | ${exceptionFailures} |`);
console.log(`| requests Prism judged invalid | ${stats.prismRequestVerdicts} |`);
console.log(`| valid requests whose multipleOf verdict from Prism was overruled (binary floating point) | ${stats.multipleOfOverruled} |`);
console.log(`| **operations without a valid request** | **${untested.length}**${untested.length ? ' (' + untested.join(', ') + ')' : ''} |`);
console.log(`| generated values json-schema-faker gave up on or the schema refused (regenerated) | ${stats.generatorMisses} |`);
console.log(`| statuses | ${Object.entries(stats.statuses).map(([s, n]) => `${s}: ${n}`).join(', ')} |`);
console.log('\n| exception (a rule JSON Schema cannot state) | valid requests it shaped | probes refused / sent | why |');
console.log('| --- | ---: | ---: | --- |');
for (const [name, ex] of Object.entries(EXCEPTIONS)) {
  const c = exceptionCounts[name];
  console.log(`| ${name} | ${c.shaped} | ${c.refused} / ${c.probes} | ${ex.why} |`);
}
if (problems.length) {
  console.error(`\n${problems.length} problems (first 40):`);
  for (const p of problems.slice(0, 40)) console.error('  ' + p);
}
const failed = stats.responseViolations || stats.acceptedForbidden || stats.refusedAllowed || exceptionFailures || untested.length;
if (stats.exchanges < MIN) console.error(`\ncontract run: only ${stats.exchanges} exchanges ran, fewer than ${MIN}: a run that tested too little does not pass`);
if (failed) console.error('\ncontract run: FAILED (every count above in bold must be 0, and every exception probe refused)');
process.exit(failed || stats.exchanges < MIN ? 1 : 0);
