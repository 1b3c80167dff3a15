// BOTIX webhook dashboard: a client of the public API and nothing else.
// It sends the project's API key like any integrator; everything a receiver
// or a payload controls is put on the page as text (DOM text nodes and
// attribute values), never parsed as HTML.
'use strict';

const API = '/public/v1';
const BASE = '/dashboard';
const KEY_STORE = 'botix.dashboard.key';
const INSPECTOR_STORE = 'botix.dashboard.inspector';
const STATUSES = ['pending', 'retrying', 'delivered', 'dead'];
const OUTCOMES = ['delivered', 'retrying', 'dead'];
const EVENT_TYPES = (document.querySelector('meta[name="botix-event-types"]').content || '').split(' ').filter(Boolean);
const PAGE_SIZE = 50;
const MAX_PAGE = 200;

// The key arrives in the fragment (never sent to a server) or through the
// login form, lives in sessionStorage only, and leaves the address bar at once.
// A fragment is used only when it is exactly "#key=" and a key of the API's
// shape (internal/auth: "bx_" and 16-128 letters, digits, "_" or "-");
// anything else is cleared unread, so a mangled link neither signs in with
// a piece of a key nor leaves one in the address bar and the history. A key
// other than the one this tab is signed in with is not taken silently (a
// link can carry somebody else's project): pendingKey holds it until the
// owner answers the question route asks.
const KEY_SHAPE = /^bx_[A-Za-z0-9_-]{16,128}$/;
let pendingKey = (function takeKeyFromFragment() {
  if (location.href.indexOf('#') < 0) return '';
  const m = /^#key=(.*)$/.exec(location.hash);
  history.replaceState(null, '', location.pathname + location.search);
  if (!m || !KEY_SHAPE.test(m[1])) return '';
  const signedIn = sessionStorage.getItem(KEY_STORE) || '';
  if (!signedIn || signedIn === m[1]) {
    sessionStorage.setItem(KEY_STORE, m[1]);
    return '';
  }
  return m[1];
})();

// ---------------------------------------------------------------- DOM

// el builds an element. Children that are not nodes become text nodes, so
// no string ever reaches the HTML parser.
function el(tag, attrs, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
    else if (k === 'class') n.className = v;
    else n.setAttribute(k, v === true ? '' : String(v));
  }
  append(n, children);
  return n;
}

function emptied(n) {
  n.replaceChildren();
  return n;
}

function append(n, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    n.append(c instanceof Node ? c : String(c));
  }
  return n;
}

const svgNS = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, ...children) {
  const n = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
  return append(n, children);
}

function link(path, ...children) {
  return el('a', { href: BASE + path, 'data-nav': true }, ...children);
}

function badge(status) {
  return el('span', { class: 'badge s-' + status }, status);
}

function pad(n) { return String(n).padStart(2, '0'); }

// fmtTime shows a time in the browser's zone; the exact RFC 3339 value is
// the element's title.
function fmtTime(iso) {
  if (!iso) return el('span', { class: 'muted' }, '—');
  const d = new Date(iso);
  if (isNaN(d)) return el('span', {}, iso);
  const text = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return el('time', { datetime: iso, title: iso }, text);
}

function ago(iso) {
  if (!iso) return el('span', { class: 'muted' }, 'never');
  const s = Math.round((Date.now() - new Date(iso)) / 1000);
  const text = s < 90 ? `${Math.max(s, 0)} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : s < 129600 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86400)} days ago`;
  return el('time', { datetime: iso, title: iso }, text);
}

// toLocalInput and fromLocalInput convert between RFC 3339 (the API's and
// the page URL's form) and a datetime-local field's value.
function toLocalInput(iso) {
  const d = new Date(iso);
  if (!iso || isNaN(d)) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(v) {
  if (!v) return '';
  const d = new Date(v);
  return isNaN(d) ? '' : d.toISOString().replace('.000Z', 'Z');
}

function view() { return document.getElementById('view'); }

// render replaces the view and returns a token: async work started for a
// view checks current(token) before touching the page, so a slow answer
// never paints over the view the user moved to.
let generation = 0;
function render(title, ...children) {
  generation++;
  document.title = title + ' · BOTIX webhooks';
  const v = view();
  v.replaceChildren(el('h1', {}, title), ...children.flat());
  return generation;
}
function current(token) { return token === generation; }

function flash(kind, ...children) {
  document.getElementById('flash').replaceChildren(el('div', { class: kind }, ...children));
}
function clearFlash() { document.getElementById('flash').replaceChildren(); }

// errorBox shows an API error as the envelope gives it: message and request id.
function errorBox(err) {
  const box = el('div', { class: 'error', role: 'alert' }, err.message || String(err));
  if (err.code) box.prepend(el('strong', {}, err.code + ': '));
  if (err.requestId) box.append(el('span', { class: 'rid' }, 'request_id: ', el('code', {}, err.requestId)));
  return box;
}

function noticeBox(text, requestId) {
  const box = el('div', { class: 'notice', role: 'status' }, text);
  if (requestId) box.append(el('span', { class: 'rid' }, 'request_id: ', el('code', {}, requestId)));
  return box;
}

// ---------------------------------------------------------------- API

class APIError extends Error {
  constructor(status, envelope, requestId, retryAfter, fallback) {
    const e = envelope || {};
    super(e.message || fallback || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || '';
    this.requestId = e.request_id || requestId || '';
    this.field = e.field || '';
    this.details = e.details || {};
    this.retryAfter = retryAfter;
  }
}

const session = {
  get key() { return sessionStorage.getItem(KEY_STORE) || ''; },
  set key(k) { if (k) sessionStorage.setItem(KEY_STORE, k); else sessionStorage.removeItem(KEY_STORE); },
};

// call makes one HTTP request to the API. A 401 ends the session: the
// login form comes back with the API's message.
async function call(method, path, body, idempotencyKey) {
  const headers = { Authorization: 'Bearer ' + session.key };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  let res;
  try {
    res = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  } catch (e) {
    throw new APIError(0, null, '', 0, 'the API could not be reached (' + e.message + ')');
  }
  const requestId = res.headers.get('X-Request-Id') || '';
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (res.ok) {
    return { status: res.status, data, requestId, replayed: res.headers.get('Idempotent-Replayed') === 'true' };
  }
  const retryAfter = Number(res.headers.get('Retry-After')) || 0;
  const err = new APIError(res.status, data && data.error, requestId, retryAfter, data && data.message);
  if (res.status === 401) {
    logout('The API refused the key: ' + err.message + (err.requestId ? ' (request_id ' + err.requestId + ')' : ''));
    err.loggedOut = true;
  }
  throw err;
}

async function get(path) { return (await call('GET', path)).data; }

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

const sleep = ms => new Promise(r => setTimeout(r, ms));

// mutate is one logical operation (one button click): one fresh
// Idempotency-Key, sent again unchanged when the request is retried after
// a network error, a 5xx, a 429 or a first request still in progress.
async function mutate(method, path, body, attempts = 4) {
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

// busy runs an operation with its control disabled and hands a failure
// (409, 5xx, a network error) to show: never a silent no-op.
async function busy(control, run, show) {
  control.disabled = true;
  try {
    await run();
  } catch (err) {
    if (!err.loggedOut) show(err);
  } finally {
    control.disabled = false;
  }
}

// button runs a click's operation busy, its failure in the flash area.
function button(label, cls, run) {
  const b = el('button', { type: 'button', class: cls || null }, label);
  b.addEventListener('click', () => {
    clearFlash();
    busy(b, () => run(b), err => flash('error', errorBox(err)));
  });
  return b;
}

// ---------------------------------------------------------------- session

function logout(message) {
  session.key = '';
  sessionStorage.removeItem(INSPECTOR_STORE);
  history.pushState(null, '', BASE + '/');
  renderLogin(message);
}

// askKeySwitch asks whether to replace the signed-in key with the one a
// link brought; declining keeps the session as it was.
function askKeySwitch() {
  const offered = pendingKey;
  const answer = switchTo => {
    pendingKey = '';
    if (switchTo) {
      session.key = offered;
      sessionStorage.removeItem(INSPECTOR_STORE); // the inspector belongs to the other project
      endpointCache = null;
    }
    route();
  };
  document.getElementById('nav').hidden = true;
  document.getElementById('who').hidden = true;
  clearFlash();
  const keep = el('button', { type: 'button', id: 'key-keep', onclick: () => answer(false) }, 'Keep key …' + session.key.slice(-4));
  render('Switch API key?', el('div', { class: 'card', id: 'key-switch', role: 'alertdialog', 'aria-labelledby': 'key-switch-text' },
    el('p', { id: 'key-switch-text' },
      'The link you opened signs in with the key …' + offered.slice(-4) + ', but this tab is signed in with the key …' + session.key.slice(-4) +
      '. A link can carry the key of another project: switch only if you meant to open it.'),
    el('div', { class: 'actions' },
      keep,
      el('button', { type: 'button', id: 'key-switch-accept', class: 'secondary', onclick: () => answer(true) }, 'Switch to key …' + offered.slice(-4)))));
  keep.focus();
}

function renderLogin(message) {
  document.getElementById('nav').hidden = true;
  document.getElementById('who').hidden = true;
  clearFlash();
  const input = el('input', { id: 'api-key', name: 'key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'bx_...' });
  const form = el('form', { class: 'card' },
    el('label', { for: 'api-key' }, 'Project API key', input),
    el('p', { class: 'muted' }, 'The key stays in this browser tab (sessionStorage) and is sent only to the API, as a Bearer token.'),
    el('button', { type: 'submit' }, 'Open dashboard'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    session.key = input.value.trim();
    route();
  });
  render('Sign in', el('div', { class: 'login' }, message ? errorBox({ message }) : null, form));
  input.focus();
}

// ---------------------------------------------------------------- routing

function go(path) {
  history.pushState(null, '', BASE + path);
  route();
}

function route() {
  if (pendingKey) return askKeySwitch();
  const key = session.key;
  if (!key) return renderLogin();
  document.getElementById('nav').hidden = false;
  document.getElementById('who').hidden = false;
  document.getElementById('who-key').textContent = 'key …' + key.slice(-4);
  clearFlash();
  const parts = location.pathname.slice(BASE.length).split('/').filter(Boolean);
  const name = parts[0] || 'overview';
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.view === name) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  const views = { overview, deliveries: parts[1] ? () => detail(parts[1]) : deliveries, 'dead-letter': deadLetter, endpoints };
  const show = views[name] || (() => render('Not found', el('p', {}, 'There is no such page. ', link('/', 'Go to the overview'))));
  show();
  view().focus({ preventScroll: true });
}

document.addEventListener('click', e => {
  const a = e.target.closest('a[data-nav]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  go(a.getAttribute('href').slice(BASE.length) || '/');
});
window.addEventListener('popstate', route);
document.getElementById('logout').addEventListener('click', () => logout(''));

// A view's loader: shows the error in the view when the first read fails.
async function load(token, fn) {
  try {
    await fn();
  } catch (err) {
    if (err.loggedOut || !current(token)) return;
    view().append(errorBox(err));
  }
}

let endpointCache = null;
async function endpointsList(fresh) {
  if (fresh || !endpointCache) endpointCache = await listAll('/webhook-endpoints');
  return endpointCache;
}
function endpointLabel(list, id) {
  const ep = list.find(e => e.id === id);
  return ep ? ep.url : id;
}

// ---------------------------------------------------------------- overview

function overview() {
  const token = render('Overview');
  const body = el('div', {}, el('p', { class: 'muted' }, 'Loading…'));
  view().append(body);
  load(token, async () => {
    const [eps, hourly, daily, health] = await Promise.all([
      endpointsList(true), get('/webhook-deliveries/stats?granularity=hour'), get('/webhook-deliveries/stats?granularity=day'), latestHealth()]);
    const perEndpoint = await Promise.all(eps.slice(0, 50).map(ep =>
      get('/webhook-deliveries/stats?granularity=hour&endpoint_id=' + ep.id).then(s => s.totals, () => null)));
    if (!current(token)) return;
    body.replaceChildren(
      el('div', { class: 'grid' },
        el('div', { class: 'card' }, chart('Deliveries per hour, last 24 h', hourly, 'hour')),
        el('div', { class: 'card' }, chart('Deliveries per day (UTC), last 14 days', daily, 'day'))),
      el('h2', {}, 'Endpoints'),
      eps.length === 0
        ? el('p', {}, 'No webhook endpoints yet. ', link('/endpoints', 'Add one'), '.')
        : endpointHealth(eps, perEndpoint, health));
  });
}

function successRate(t) {
  if (!t) return '—';
  const all = t.delivered + t.retrying + t.dead;
  return all === 0 ? 'no attempts' : `${(100 * t.delivered / all).toFixed(1)} % of ${all}`;
}

// HEALTH_TYPES are the health event types: what the deliver function
// tells the owner about an endpoint (webhook_endpoint.failing, ...).
const HEALTH_PREFIX = 'webhook_endpoint.';
const HEALTH_TYPES = EVENT_TYPES.filter(t => t.startsWith(HEALTH_PREFIX));

// latestHealth returns the newest health event of each endpoint, by
// endpoint id: the first page of each health type (newest first). A type
// that cannot be read shows nothing rather than failing the overview.
async function latestHealth() {
  const pages = await Promise.all(HEALTH_TYPES.map(t =>
    get('/events?cursor_limit=100&type=' + encodeURIComponent(t)).then(p => p.data, () => [])));
  const latest = {};
  for (const ev of pages.flat()) {
    const id = ev.data && ev.data.endpoint_id;
    if (id && (!latest[id] || ev.created_at > latest[id].created_at)) latest[id] = ev;
  }
  return latest;
}

// healthEvent shows a health event as text: its kind, when, and the cause.
function healthEvent(ev) {
  if (!ev) return el('span', { class: 'muted' }, '—');
  const d = ev.data || {};
  const cause = d.disabled_reason || (d.disable_at ? ['to be disabled from ', fmtTime(d.disable_at)] : d.last_error_class);
  return el('span', { class: 'health-event' }, ev.type.slice(HEALTH_PREFIX.length).replace('_', ' '), ' ', fmtTime(ev.created_at),
    cause ? el('div', { class: 'muted' }, cause) : null);
}

function endpointHealth(eps, totals, health) {
  const rows = eps.map((ep, i) => el('tr', {},
    el('td', { class: 'wrap' }, ep.url, el('div', { class: 'muted mono' }, ep.id), ep.description ? el('div', { class: 'muted' }, ep.description) : null),
    el('td', {}, badge(ep.enabled ? 'enabled' : 'disabled'), ep.disabled_reason ? el('div', { class: 'muted' }, ep.disabled_reason) : null),
    el('td', {}, ago(ep.last_success_at)),
    el('td', {}, ep.failing_since ? fmtTime(ep.failing_since) : el('span', { class: 'muted' }, '—')),
    el('td', { class: 'num' }, String(ep.consecutive_failures || 0)),
    el('td', { class: 'num' }, successRate(totals[i])),
    el('td', {}, healthEvent(health[ep.id])),
    el('td', {}, link('/deliveries?endpoint_id=' + ep.id, 'Deliveries'))));
  return el('div', { class: 'table-wrap' }, el('table', { id: 'health' },
    el('thead', {}, el('tr', {}, ['Endpoint', 'State', 'Last success', 'Failing since', 'Consecutive failures', 'Success rate (24 h)', 'Latest health event', ''].map(h => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows)));
}

// chart draws stats buckets as stacked bars (delivered, retrying, dead),
// with the totals as the caption and each bar's counts as its tooltip.
function chart(title, stats, unit) {
  const W = 720, H = 190, top = 10, bottom = 24, left = 34, right = 6;
  const buckets = stats.buckets;
  const max = Math.max(1, ...buckets.map(b => b.delivered + b.retrying + b.dead));
  const scale = (H - top - bottom) / max;
  const step = (W - left - right) / buckets.length;
  const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}: ${stats.totals.delivered} delivered, ${stats.totals.retrying} retrying, ${stats.totals.dead} dead` });
  for (const v of new Set([0, Math.round(max / 2), max])) {
    const y = H - bottom - v * scale;
    s.append(svg('line', { x1: left, x2: W - right, y1: y, y2: y, class: 'gridline' }),
      svg('text', { x: left - 4, y: y + 4, 'text-anchor': 'end', class: 'axis' }, String(v)));
  }
  buckets.forEach((b, i) => {
    const x = left + i * step + step * 0.12;
    let y = H - bottom;
    const g = svg('g', {}, svg('title', {}, `${b.start}: ${b.delivered} delivered, ${b.retrying} retrying, ${b.dead} dead`));
    for (const o of OUTCOMES) {
      const h = b[o] * scale;
      if (h > 0) {
        y -= h;
        g.append(svg('rect', { x, y, width: step * 0.76, height: h, class: 'bar-' + o }));
      }
    }
    s.append(g);
    const every = unit === 'hour' ? 6 : 3;
    if (i % every === 0) {
      const d = new Date(b.start);
      // An hour bucket starts on a UTC hour: in local time, with its minutes
      // (half-hour zones). A day bucket is a UTC day: labelled by its UTC date.
      const label = unit === 'hour' ? `${pad(d.getHours())}:${pad(d.getMinutes())}` : `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
      s.append(svg('text', { x: x + step * 0.38, y: H - 6, 'text-anchor': 'middle', class: 'axis' }, label));
    }
  });
  const t = stats.totals;
  return el('figure', { class: 'chart' },
    el('figcaption', {}, `${title}: ${t.delivered} delivered, ${t.retrying} retrying, ${t.dead} dead`),
    s,
    el('div', { class: 'legend', 'aria-hidden': 'true' }, OUTCOMES.map(o => el('span', { class: 'l-' + o }, o))));
}

// ---------------------------------------------------------------- deliveries

const FILTERS = ['event_id', 'status', 'event_type', 'endpoint_id', 'since', 'until', 'limit'];

// EVENT_ID is what the API accepts as event_id (sdk/openapi.yaml EventID),
// with the blanks a copy from a log brings (trimmed on Apply): a typo is
// caught in the form, not answered with a 400.
const EVENT_ID = '\\s*evt_[0-9A-HJKMNP-TV-Z]{26}\\s*';

function deliveryQuery(params, cursor) {
  const q = new URLSearchParams();
  for (const f of FILTERS) {
    if (f !== 'limit' && params.get(f)) q.set(f, params.get(f));
  }
  const limit = Math.min(MAX_PAGE, Math.max(1, Number(params.get('limit')) || PAGE_SIZE));
  q.set('cursor_limit', String(limit));
  if (cursor) q.set('cursor', cursor);
  return '/webhook-deliveries?' + q;
}

function select(id, label, options, value) {
  return el('label', { for: id }, label,
    el('select', { id, name: id }, options.map(([v, text]) => el('option', { value: v, selected: v === value }, text))));
}

// The filter form writes its state into the page URL's query: a link or a
// reload shows the same view.
function filterForm(params, eps) {
  const since = el('input', { id: 'since', name: 'since', type: 'datetime-local', value: toLocalInput(params.get('since')) });
  const until = el('input', { id: 'until', name: 'until', type: 'datetime-local', value: toLocalInput(params.get('until')) });
  // A support ticket starts from the webhook-id a receiver logged: the
  // event id, which finds that event's deliveries to every endpoint.
  const eventID = el('input', { id: 'event_id', name: 'event_id', type: 'search', value: params.get('event_id') || '',
    pattern: EVENT_ID, placeholder: 'evt_…', spellcheck: 'false', autocomplete: 'off', title: 'An event id: the webhook-id header of a webhook (evt_ and 26 characters)' });
  const form = el('form', { class: 'card inline', id: 'filters', role: 'search' },
    el('label', { for: 'event_id' }, 'Event id', eventID),
    select('status', 'Status', [['', 'any'], ...STATUSES.map(s => [s, s])], params.get('status') || ''),
    select('event_type', 'Event type', [['', 'any'], ...EVENT_TYPES.map(t => [t, t])], params.get('event_type') || ''),
    select('endpoint_id', 'Endpoint', [['', 'any'], ...eps.map(e => [e.id, e.url])], params.get('endpoint_id') || ''),
    el('label', { for: 'since' }, 'Since', since),
    el('label', { for: 'until' }, 'Until', until),
    select('limit', 'Per page', [50, 100, 200].map(n => [String(n), String(n)]), String(params.get('limit') || PAGE_SIZE)),
    el('button', { type: 'submit' }, 'Apply'),
    link('/deliveries', 'Clear'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const f of FILTERS) {
      let v = form.elements[f].value.trim();
      if (f === 'since' || f === 'until') v = fromLocalInput(v);
      if (f === 'limit' && v === String(PAGE_SIZE)) v = '';
      if (v) q.set(f, v);
    }
    go('/deliveries' + (q.toString() ? '?' + q : ''));
  });
  return form;
}

function deliveryRow(d, eps, extra) {
  return el('tr', {},
    el('td', {}, fmtTime(d.created_at)),
    el('td', {}, d.event_type),
    el('td', { class: 'wrap hide-phone' }, endpointLabel(eps, d.endpoint_id)),
    el('td', {}, badge(d.status)),
    el('td', { class: 'num' }, String(d.attempts_count)),
    el('td', {}, d.last_status_code ? 'HTTP ' + d.last_status_code : '', d.last_error_class ? el('div', { class: 'muted mono' }, d.last_error_class) : null),
    el('td', { class: 'mono' }, link('/deliveries/' + d.id, d.id)),
    extra ? extra(d) : null);
}

// pagedTable renders a cursor list with "Load more", recording how long
// rendering each page took (body data-render-ms: a figure, not a limit).
function pagedTable(token, headers, path, row) {
  const tbody = el('tbody', {});
  const table = el('div', { class: 'table-wrap' }, el('table', { id: 'deliveries' },
    el('thead', {}, el('tr', {}, headers.map(h => el('th', { scope: 'col', class: h === 'Endpoint' ? 'hide-phone' : null }, h)))), tbody));
  const status = el('p', { class: 'muted', 'aria-live': 'polite' }, 'Loading…');
  const more = button('Load more', 'secondary', () => page());
  more.hidden = true;
  let cursor = '';
  let shown = 0;
  async function page() {
    const res = await get(path(cursor));
    if (!current(token)) return;
    const t0 = performance.now();
    const frag = document.createDocumentFragment();
    for (const d of res.data) frag.append(row(d));
    tbody.append(frag);
    void tbody.offsetHeight; // layout included in the figure
    const ms = performance.now() - t0;
    shown += res.data.length;
    document.body.dataset.renderMs = ms.toFixed(1);
    document.body.dataset.rows = String(res.data.length);
    console.info(`dashboard: rendered ${res.data.length} rows in ${ms.toFixed(1)} ms`);
    cursor = res.has_more ? res.next_cursor : '';
    more.hidden = !cursor;
    status.textContent = shown === 0 ? 'Nothing matches.' : `${shown} shown${cursor ? '' : ', no more'}.`;
  }
  return { node: el('div', {}, table, status, el('div', { class: 'actions' }, more)), first: page };
}

const DELIVERY_HEADERS = ['Created', 'Event', 'Endpoint', 'Status', 'Attempts', 'Last answer', 'Delivery'];

function deliveries() {
  const params = new URLSearchParams(location.search);
  const token = render('Deliveries');
  load(token, async () => {
    const eps = await endpointsList(false);
    if (!current(token)) return;
    const list = pagedTable(token, DELIVERY_HEADERS, c => deliveryQuery(params, c), d => deliveryRow(d, eps));
    view().append(filterForm(params, eps), list.node);
    await list.first();
  });
}

// ---------------------------------------------------------------- detail

function detail(id) {
  const token = render('Delivery');
  const head = el('div', {});
  const actions = el('div', { class: 'actions' });
  const result = el('div', { id: 'action-result' });
  const attempts = el('div', {});
  const payload = el('div', {});
  const captured = el('div', { id: 'captured' });
  view().append(head, actions, result, el('h2', {}, 'Attempts'), attempts, captured, el('h2', {}, 'Payload'), payload);

  let shownAttempts = 0;
  function paint(d, eps) {
    shownAttempts = (d.attempts || []).length;
    head.replaceChildren(el('div', { class: 'card' }, el('dl', { class: 'facts' },
      fact('Delivery', el('code', {}, d.id)),
      fact('Status', badge(d.status)),
      fact('Event', d.event_type, ' ', el('code', {}, d.event_id), ' ', link('/deliveries?event_id=' + encodeURIComponent(d.event_id), 'All its deliveries')),
      fact('Endpoint', endpointLabel(eps, d.endpoint_id), ' ', el('code', {}, d.endpoint_id)),
      fact('Round', String(d.round)),
      fact('Attempts', String(d.attempts_count)),
      fact('Created', fmtTime(d.created_at)),
      d.delivered_at ? fact('Delivered', fmtTime(d.delivered_at)) : null,
      d.next_attempt_at ? fact('Next attempt', fmtTime(d.next_attempt_at)) : null,
      d.dead_reason ? fact('Dead because', d.dead_reason) : null)));
    attempts.replaceChildren(timeline(d.attempts || []));
    let pretty;
    try { pretty = JSON.stringify(d.payload, null, 2); } catch (e) { pretty = String(d.payload); }
    payload.replaceChildren(el('pre', { id: 'payload' }, pretty));
  }

  async function refreshUntil(n) {
    for (let i = 0; i < 20 && current(token); i++) {
      await sleep(1000);
      const d = await get('/webhook-deliveries/' + encodeURIComponent(id));
      if (!current(token)) return;
      paint(d, await endpointsList(false));
      if ((d.attempts || []).length > n) return;
    }
  }

  load(token, async () => {
    const [d, eps] = await Promise.all([get('/webhook-deliveries/' + encodeURIComponent(id)), endpointsList(false)]);
    if (!current(token)) return;
    document.title = d.id + ' · BOTIX webhooks';
    paint(d, eps);
    actions.replaceChildren(
      button('Retry now', null, async () => {
        const before = shownAttempts;
        const r = await mutate('POST', '/webhook-deliveries/' + encodeURIComponent(id) + '/retry');
        result.replaceChildren(noticeBox('Retry queued: a manual attempt is on its way.', r.requestId));
        await refreshUntil(before);
      }),
      button('Redirect to inspector', 'secondary', async () => {
        const insp = await inspector();
        const before = insp.seen;
        const r = await mutate('POST', '/webhook-deliveries/' + encodeURIComponent(id) + '/redirect', { inspector_id: insp.id });
        result.replaceChildren(noticeBox('Redirect queued to inspector ' + insp.id + '.', r.requestId));
        await showCaptures(token, captured, insp, before);
      }));
  });
}

function fact(name, ...value) {
  return [el('dt', {}, name), el('dd', {}, ...value)];
}

function timeline(attempts) {
  if (attempts.length === 0) return el('p', { class: 'muted' }, 'No attempt yet.');
  return el('ol', { class: 'timeline', id: 'attempts' }, attempts.map(a => {
    const ok = a.status_code >= 200 && a.status_code < 300;
    return el('li', { class: ok ? 'ok' : 'fail', 'data-kind': a.kind },
      el('div', { class: 'attempt-head' },
        el('strong', {}, `#${a.attempt} ${a.kind}`),
        fmtTime(a.started_at),
        el('span', {}, `${a.duration_ms} ms`),
        el('span', {}, a.status_code ? 'HTTP ' + a.status_code : 'no answer'),
        a.error_class ? el('code', {}, a.error_class) : null,
        el('code', { class: 'muted', title: 'the webhook-id / X-Botix-Request-Id of this attempt' }, a.request_id)),
      el('div', { class: 'muted wrap' }, a.url),
      a.error ? el('div', {}, a.error) : null,
      a.next_attempt_at ? el('div', { class: 'muted' }, 'next attempt ', fmtTime(a.next_attempt_at)) : null,
      a.response_body ? el('details', {}, el('summary', {}, 'Response body (first 4 KB)'), el('pre', { class: 'response-body' }, a.response_body)) : null);
  }));
}

// inspector reuses this tab's inspector while it lives, else creates one.
async function inspector() {
  let saved = null;
  try { saved = JSON.parse(sessionStorage.getItem(INSPECTOR_STORE) || 'null'); } catch (e) { saved = null; }
  if (saved && new Date(saved.expires_at) - Date.now() > 10 * 60 * 1000) {
    try {
      const page = await get('/inspectors/' + saved.id + '/requests?cursor_limit=100');
      return { ...saved, seen: page.data.length };
    } catch (err) {
      if (err.status !== 404) throw err;
    }
  }
  const r = await mutate('POST', '/inspectors');
  sessionStorage.setItem(INSPECTOR_STORE, JSON.stringify({ id: r.data.id, url: r.data.url, expires_at: r.data.expires_at }));
  return { ...r.data, seen: 0 };
}

async function showCaptures(token, box, insp, before) {
  box.replaceChildren(el('h2', {}, 'Inspector ' + insp.id), el('p', { class: 'muted wrap' }, insp.url), el('p', { class: 'muted' }, 'Waiting for the request…'));
  for (let i = 0; i < 20 && current(token); i++) {
    const page = await get('/inspectors/' + insp.id + '/requests?cursor_limit=100');
    if (page.data.length > before || i === 19) {
      if (!current(token)) return;
      box.replaceChildren(el('h2', {}, 'Inspector ' + insp.id), el('p', { class: 'muted wrap' }, insp.url),
        page.data.length === 0 ? el('p', { class: 'muted' }, 'Nothing captured yet.') :
          el('ol', { class: 'timeline' }, page.data.map(q => el('li', { class: 'ok' },
            el('div', { class: 'attempt-head' }, el('strong', {}, q.method + ' ' + q.path), fmtTime(q.received_at), el('code', { class: 'muted' }, q.id)),
            el('details', {}, el('summary', {}, 'Headers'), el('pre', {}, Object.entries(q.headers || {}).map(([k, v]) => `${k}: ${v}`).join('\n'))),
            el('pre', { class: 'captured-body' }, q.body)))));
      return;
    }
    await sleep(1000);
  }
}

// ---------------------------------------------------------------- dead letter

function deadLetter() {
  const token = render('Dead letter');
  load(token, async () => {
    const eps = await endpointsList(true);
    if (!current(token)) return;
    const rowResult = d => el('td', {}, button('Retry', 'secondary', async b => {
      const r = await mutate('POST', '/webhook-deliveries/' + d.id + '/retry');
      b.replaceWith(el('span', { class: 'notice', title: r.requestId }, 'queued'));
    }));
    const list = pagedTable(token, [...DELIVERY_HEADERS, 'Reason', ''],
      c => deliveryQuery(new URLSearchParams({ status: 'dead' }), c),
      d => { const tr = deliveryRow(d, eps, rowResult); tr.insertBefore(el('td', {}, d.dead_reason || ''), tr.lastChild); return tr; });
    view().append(el('p', { class: 'muted' }, 'Deliveries that will not be retried on their own. Fix the receiver, then retry one or recover all of an endpoint since a time.'),
      recoverForm(eps), list.node);
    await list.first();
  });
}

function recoverForm(eps) {
  const since = el('input', { id: 'recover-since', name: 'since', type: 'datetime-local', required: true, value: toLocalInput(new Date(Date.now() - 24 * 3600 * 1000).toISOString()) });
  const out = el('div', { id: 'recover-result' });
  const form = el('form', { class: 'card inline', id: 'recover' },
    select('recover-endpoint', 'Endpoint', eps.map(e => [e.id, e.url]), eps[0] && eps[0].id),
    el('label', { for: 'recover-since' }, 'Failed or dead since', since),
    el('button', { type: 'submit' }, 'Recover since…'),
    out);
  form.addEventListener('submit', e => {
    e.preventDefault();
    busy(form.querySelector('button[type=submit]'), async () => {
      const sinceISO = fromLocalInput(since.value);
      if (!sinceISO) throw new Error('choose a time to recover from');
      const epID = form.elements['recover-endpoint'].value;
      if (!epID) throw new Error('there is no endpoint to recover');
      const r = await mutate('POST', '/webhook-endpoints/' + epID + '/recover', { since: sinceISO });
      const more = r.data.has_more ? ' More remain: the recovery continues by itself, a step at a time at the pace the endpoint can take; follow it on the endpoint’s card under Endpoints.' : '';
      const skipped = r.data.skipped ? ` ${r.data.skipped} re-sent by a recovery in the last 15 minutes were left alone.` : '';
      out.replaceChildren(noticeBox(`Recovery ${r.data.recovery_id} ${r.data.status}: ${r.data.queued} failed or dead deliveries since ${r.data.since} queued to be sent again (${r.data.deliveries} by this recovery in all).${skipped}${more}`, r.requestId));
    }, err => out.replaceChildren(errorBox(err)));
  });
  if (eps.length === 0) return el('p', { class: 'muted' }, 'No endpoints, nothing to recover.');
  return form;
}

// ---------------------------------------------------------------- endpoint limits

// LIMITS are an endpoint's two bounds: the API field, the form's label, and
// how a card states a value. Their ranges are the API's to check: it answers
// a value out of range with a VALIDATION_ERROR naming the field.
const LIMITS = [
  { field: 'rate_limit', label: 'Rate limit (deliveries per second, empty: none)', shown: n => `rate limit ${n}/s` },
  { field: 'max_concurrency', label: 'Max in flight (requests at once, empty: none)', shown: n => `max ${n} in flight` },
];

// clock shows a time of day in the browser's zone (the RFC 3339 value is
// the title).
function clock(iso) {
  const d = new Date(iso);
  if (isNaN(d)) return el('span', {}, iso);
  return el('time', { datetime: iso, title: iso }, `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`);
}

// flowFacts is an endpoint card's flow control: the owner's limits, and
// the slow-down the receiver asked for while it lasts.
function flowFacts(ep) {
  const set = LIMITS.filter(l => ep[l.field]).map(l => l.shown(ep[l.field]));
  const t = ep.throttle;
  return el('div', { class: 'flow' },
    el('div', { class: 'muted limits' }, 'Limits: ', set.length ? set.join(', ') : 'no limits'),
    t && t.paused_until ? el('div', { class: 'throttle' }, 'paused by the receiver until ', clock(t.paused_until), ` (${t.throttled_by})`) : null,
    t && t.effective_rate ? el('div', { class: 'throttle' }, `slowed to ${Number(t.effective_rate.toFixed(2))}/s by the receiver`) : null);
}

// limitFields are a form's inputs for both limits, each with the API's
// problem beside it. ep (absent in the create form) fills them in.
function limitFields(prefix, ep) {
  const rows = LIMITS.map(l => {
    const id = prefix + '-' + l.field;
    const input = el('input', { id, name: l.field, type: 'number', inputmode: 'numeric', step: 1, placeholder: 'no limit', value: ep && ep[l.field], 'aria-describedby': id + '-error' });
    const error = el('span', { class: 'field-error', id: id + '-error' });
    return { field: l.field, input, error, label: el('label', { for: id }, l.label, input, error) };
  });
  return {
    node: el('div', { class: 'inline form' }, rows.map(r => r.label)),
    // values are the limits as the API takes them: a number, null for none.
    values() {
      return Object.fromEntries(rows.map(r => [r.field, r.input.value.trim() === '' ? null : Number(r.input.value)]));
    },
    // showErrors puts an API error's field problems at their fields (and
    // clears the others).
    showErrors(err) {
      for (const r of rows) {
        const problem = (err && err.details && err.details[r.field]) || (err && err.field === r.field ? err.message : '');
        r.error.textContent = problem || '';
        if (problem) r.input.setAttribute('aria-invalid', 'true'); else r.input.removeAttribute('aria-invalid');
      }
    },
  };
}

// ---------------------------------------------------------------- endpoints

function eventsFieldset(prefix, chosen) {
  const all = chosen.includes('*');
  return el('fieldset', { class: 'events' }, el('legend', {}, 'Events'),
    ['*', ...EVENT_TYPES].map(t => el('label', { class: 'check' },
      el('input', { type: 'checkbox', name: 'events', value: t, id: prefix + '-ev-' + t, checked: t === '*' ? all : !all && chosen.includes(t) }),
      t === '*' ? 'all events (*)' : t)));
}

function checkedEvents(form) {
  const v = Array.from(form.querySelectorAll('input[name=events]:checked'), i => i.value);
  return v.includes('*') ? ['*'] : v;
}

// secretPanel shows a signing secret the one time the API returns it.
function secretPanel(title, secret, note) {
  const code = el('code', { id: 'secret-value' }, secret);
  const copy = button('Copy', 'secondary', async b => {
    try {
      await navigator.clipboard.writeText(secret);
      b.textContent = 'Copied';
    } catch (e) {
      const r = document.createRange();
      r.selectNodeContents(code);
      getSelection().removeAllRanges();
      getSelection().addRange(r);
      b.textContent = 'Selected: press Ctrl+C';
    }
  });
  return el('div', { class: 'warning', role: 'alert', id: 'secret' },
    el('strong', {}, title), el('div', { class: 'secret' }, code, copy),
    el('p', {}, 'This is the only time the secret is shown. Store it in your receiver’s configuration now; the API keeps no readable copy for you.', note ? ' ' + note : ''));
}

function endpoints() {
  const token = render('Endpoints');
  const top = el('div', {});
  const listBox = el('div', { id: 'endpoint-list' });
  view().append(top, createForm(top, () => paintList()), el('h2', {}, 'Registered'), listBox);
  async function paintList() {
    const eps = await endpointsList(true);
    if (!current(token)) return;
    listBox.replaceChildren(...(eps.length === 0 ? [el('p', { class: 'muted' }, 'None yet.')] : eps.map(ep => endpointCard(ep, top, paintList))));
  }
  load(token, paintList);
}

function createForm(top, done) {
  const url = el('input', { id: 'new-url', name: 'url', type: 'url', required: true, placeholder: 'https://example.com/webhooks/botix' });
  const desc = el('input', { id: 'new-description', name: 'description', class: 'wide', maxlength: 500 });
  const limits = limitFields('new');
  const form = el('form', { class: 'card', id: 'create-endpoint' },
    el('h2', {}, 'Add an endpoint'),
    el('div', { class: 'inline form' }, el('label', { for: 'new-url' }, 'URL', url), el('label', { for: 'new-description' }, 'Description (optional)', desc)),
    limits.node,
    eventsFieldset('new', ['*']),
    el('div', { class: 'actions' }, el('button', { type: 'submit' }, 'Create endpoint')));
  form.addEventListener('submit', e => {
    e.preventDefault();
    busy(form.querySelector('button[type=submit]'), async () => {
      const body = { url: url.value.trim(), events: checkedEvents(form) };
      if (desc.value.trim()) body.description = desc.value.trim();
      for (const [field, v] of Object.entries(limits.values())) if (v !== null) body[field] = v;
      const r = await mutate('POST', '/webhook-endpoints', body);
      limits.showErrors(null);
      top.replaceChildren(secretPanel('Signing secret of ' + r.data.id, r.data.secret));
      form.reset();
      await done();
    }, err => { limits.showErrors(err); top.replaceChildren(errorBox(err)); });
  });
  return form;
}

// recoveryLine tells an endpoint's latest recovery (GET of the endpoint)
// as it stands, as text and time nodes.
function recoveryLine(r) {
  const counts = `${r.queued} queued to be sent again` + (r.skipped ? `, ${r.skipped} left alone (re-sent by a recovery shortly before)` : '');
  if (r.status === 'running') {
    return [`Recovery ${r.id} running: ${counts} so far, failed or dead since `, fmtTime(r.since), '; it continues by itself',
      ...(r.next_step_at ? [', next step at ', fmtTime(r.next_step_at)] : []), '.'];
  }
  return [`Last recovery ${r.id} completed: ${counts}, failed or dead since `, fmtTime(r.since), ' (finished ', fmtTime(r.updated_at), ').'];
}

function endpointCard(ep, top, refresh) {
  const card = el('div', { class: 'card endpoint', 'data-id': ep.id });
  const out = el('div', {});
  const recovery = el('div', { class: 'muted recovery' });
  const path = '/webhook-endpoints/' + ep.id;
  get(path).then(full => { if (full.recovery) recovery.replaceChildren(...recoveryLine(full.recovery)); }, () => {});
  // append skips an absent line; replaceChildren would show it as "null".
  const show = () => append(emptied(card), [
    el('div', { class: 'attempt-head' }, el('strong', { class: 'wrap' }, ep.url), badge(ep.enabled ? 'enabled' : 'disabled'), el('code', { class: 'muted' }, ep.id)),
    ep.description ? el('div', {}, ep.description) : null,
    ep.disabled_reason ? el('div', { class: 'muted' }, 'Disabled: ', ep.disabled_reason) : null,
    el('div', { class: 'muted' }, 'Events: ', ep.events.join(', ')),
    flowFacts(ep),
    recovery,
    el('div', { class: 'actions' },
      button('Edit', 'secondary', async () => edit()),
      button(ep.enabled ? 'Disable' : 'Enable', 'secondary', async () => {
        await mutate('PATCH', path, { enabled: !ep.enabled });
        await refresh();
      }),
      button('Rotate secret', 'secondary', async () => {
        const r = await mutate('POST', path + '/rotate-secret');
        top.replaceChildren(secretPanel('New signing secret of ' + ep.id, r.data.secret,
          r.data.previous_secret_expires_at ? 'The previous secret keeps signing too, in both signature headers, until ' + r.data.previous_secret_expires_at + ': a receiver holding either secret verifies until then. After it, webhooks are signed with the new secret only: give your receiver the new secret before.' : ''));
        top.scrollIntoView();
      }),
      button('Send test event', 'secondary', async () => {
        const r = await mutate('POST', path + '/test');
        out.replaceChildren(noticeBox('A webhook.test event is on its way (' + (r.data.event_id || 'queued') + ').', r.requestId));
      }),
      button('Delete', 'danger', async b => {
        if (b.dataset.confirm !== 'yes') {
          b.dataset.confirm = 'yes';
          b.textContent = 'Confirm delete';
          return;
        }
        await mutate('DELETE', path);
        await refresh();
      })),
    out]);
  const edit = () => {
    const url = el('input', { id: ep.id + '-url', type: 'url', required: true, value: ep.url });
    const desc = el('input', { id: ep.id + '-description', class: 'wide', maxlength: 500, value: ep.description || '' });
    const limits = limitFields(ep.id, ep);
    const form = el('form', {},
      el('div', { class: 'inline form' }, el('label', { for: ep.id + '-url' }, 'URL', url), el('label', { for: ep.id + '-description' }, 'Description', desc)),
      limits.node,
      eventsFieldset(ep.id, ep.events),
      el('div', { class: 'actions' }, el('button', { type: 'submit' }, 'Save'), el('button', { type: 'button', class: 'secondary', onclick: show }, 'Cancel')), out);
    form.addEventListener('submit', e => {
      e.preventDefault();
      busy(form.querySelector('button[type=submit]'), async () => {
        await mutate('PATCH', path, { url: url.value.trim(), description: desc.value.trim(), events: checkedEvents(form), ...limits.values() });
        await refresh();
      }, err => { limits.showErrors(err); out.replaceChildren(errorBox(err)); });
    });
    card.replaceChildren(el('strong', {}, 'Edit ' + ep.id), form);
    url.focus();
  };
  show();
  return card;
}

route();
