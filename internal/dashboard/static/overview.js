// The overview: delivery charts and each endpoint's health, worst first,
// refreshed by itself (live.js).
import { endpointsList, get } from './api.js';
import { ago, count, duration, el, fmtTime, zone } from './dom.js';
import { chart, successRate } from './chart.js';
import { healthBadge, healthCause, byHealth } from './health.js';
import { live } from './live.js';
import { current, link, load, render, view } from './page.js';
import { DELIVERY_STATUSES, HEALTH_EVENT_TYPES, STATUS_DEAD, STATUS_DELIVERED } from './vocabulary.js';

// SLOW_MS: the overview reads its slow-changing parts — each endpoint's
// dead count (14 days), the latest health events and the backlog — at most this often,
// and every 5 s refresh reads only the endpoints and their stats: 3 + n
// calls a refresh instead of 7 + 2n (n endpoints shown). An endpoint new
// since the last read is read at once.
const SLOW_MS = 30000;

export function overview() {
  const token = render('Overview');
  const body = el('div', { class: 'overview' }, el('p', { class: 'muted loading' }, 'Loading…'));
  const updates = live(token, paint);
  view().append(updates.line, body);
  let slow = { at: 0, health: {}, deadCounts: new Map(), backlog: { byEndpoint: new Map(), capped: false } };
  async function paint() {
    const [eps, hourly, daily] = await Promise.all([
      endpointsList(true), get('/webhook-deliveries/stats?granularity=hour'), get('/webhook-deliveries/stats?granularity=day')]);
    const shown = byHealth(eps).slice(0, 50);
    const stale = Date.now() - slow.at >= SLOW_MS || shown.some(ep => !slow.deadCounts.has(ep.id));
    const [perEndpoint, fresh] = await Promise.all([
      Promise.all(shown.map(ep => get('/webhook-deliveries/stats?granularity=hour&endpoint_id=' + ep.id).catch(() => null))),
      stale ? Promise.all([latestHealth(), Promise.all(shown.map(ep => deadCount(ep))), backlog()]) : null]);
    if (!current(token)) return;
    if (fresh) slow = { at: Date.now(), health: fresh[0], deadCounts: new Map(shown.map((ep, i) => [ep.id, fresh[1][i]])), backlog: fresh[2] };
    const health = slow.health;
    const dead = shown.map(ep => slow.deadCounts.get(ep.id));
    body.replaceChildren(
      el('div', { class: 'grid charts' },
        el('div', { class: 'card' }, chart(`Attempts per hour (${zone(new Date())}), last 24 h`, hourly, 'hour')),
        el('div', { class: 'card' }, chart('Attempts per day (UTC), last 14 days', daily, 'day'))),
      el('h2', {}, 'Endpoints'),
      eps.length === 0
        ? el('p', {}, 'No webhook endpoints yet. ', link('/endpoints', 'Add one'), '.')
        : endpointHealth(shown, perEndpoint, dead, health, slow.backlog));
  }
  load(token, async () => { await paint(); updates.start(); });
}

// WAITING are the statuses of a delivery not done yet (every status but
// delivered and dead); BACKLOG_PAGES how many pages of 200 of each the
// overview reads to count each endpoint's backlog (beyond, it says "+").
const WAITING = DELIVERY_STATUSES.filter(st => st !== STATUS_DELIVERED && st !== STATUS_DEAD);
const BACKLOG_PAGES = 5;

// backlog counts the project's waiting deliveries by endpoint, with the
// oldest one's creation: { byEndpoint: Map(id -> { n, oldest }), capped }.
// Unreadable, it counts nothing.
async function backlog() {
  const byEndpoint = new Map();
  let capped = false;
  try {
    for (const status of WAITING) {
      let cursor = '';
      for (let i = 0; i < BACKLOG_PAGES; i++) {
        const page = await get('/webhook-deliveries?cursor_limit=200&status=' + status + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
        for (const d of page.data) {
          const b = byEndpoint.get(d.endpoint_id) || { n: 0, oldest: d.created_at };
          b.n++;
          if (d.created_at < b.oldest) b.oldest = d.created_at;
          byEndpoint.set(d.endpoint_id, b);
        }
        cursor = page.has_more ? page.next_cursor : '';
        if (!cursor) break;
      }
      if (cursor) capped = true;
    }
  } catch {
    return { byEndpoint: new Map(), capped: false };
  }
  return { byEndpoint, capped };
}

// waiting shows an endpoint's backlog: how many deliveries wait, since
// when, and when they drain at the pace of the last hour or so (the
// delivered attempts of the hour buckets that started within the last
// two hours), or that none was delivered in that time.
export function waiting(b, capped, stats) {
  if (!b) return el('span', { class: 'muted' }, 'none');
  const recent = ((stats && stats.buckets) || []).filter(x => Date.now() - Date.parse(x.start) < 2 * 3600e3);
  const from = recent.length ? Math.min(...recent.map(x => Date.parse(x.start))) : Date.now();
  const delivered = recent.reduce((n, x) => n + x[STATUS_DELIVERED], 0);
  const many = `${b.n}${capped ? '+' : ''} waiting`;
  const pace = delivered > 0
    ? `drains in about ${duration(b.n / (delivered / Math.max(1, Date.now() - from)))} at the last hours' pace`
    : 'not draining: none delivered in the last hours';
  return [el('div', { class: 'backlog-count' }, many, ', oldest from ', ago(b.oldest)), el('div', { class: 'muted backlog-pace' }, pace)];
}

// deadCount is an endpoint's dead deliveries (14 days): the first page of
// them, "100+" beyond it. Unreadable, it shows nothing.
async function deadCount(ep) {
  try {
    const page = await get('/webhook-deliveries?cursor_limit=100&status=' + STATUS_DEAD + '&endpoint_id=' + ep.id);
    return page.data.length + (page.has_more ? '+' : '');
  } catch {
    return null;
  }
}

// latestHealth returns the newest health event of each endpoint, by
// endpoint id: the first page of each health type (newest first). A type
// that cannot be read shows nothing rather than failing the overview.
async function latestHealth() {
  const pages = await Promise.all(HEALTH_EVENT_TYPES.map(t =>
    get('/events?cursor_limit=100&type=' + encodeURIComponent(t)).then(p => p.data, () => [])));
  const latest = {};
  for (const ev of pages.flat()) {
    const id = ev.data && ev.data.endpoint_id;
    if (id && (!latest[id] || ev.created_at > latest[id].created_at)) latest[id] = ev;
  }
  return latest;
}

// healthEvent shows a health event as text: its kind (the type after its
// "webhook_endpoint." family), when, and the cause.
function healthEvent(ev) {
  if (!ev) return el('span', { class: 'muted' }, '—');
  const d = ev.data || {};
  const cause = d.disabled_reason || (d.disable_at ? ['to be disabled from ', fmtTime(d.disable_at)] : d.last_error_class);
  return el('span', { class: 'health-event' }, ev.type.slice(ev.type.indexOf('.') + 1).replaceAll('_', ' '), ' ', fmtTime(ev.created_at),
    cause ? el('div', { class: 'muted' }, cause) : null);
}

// responseTime shows how fast an endpoint's receiver answered: the
// bounds half and 95 % of its answers came in under (the counters keep a
// histogram, so "≤"), or that it answered nothing.
export function responseTime(totals) {
  const l = totals && totals.latency;
  if (!l) return '—';
  if (!l.answered) return el('span', { class: 'muted' }, 'no answers');
  const ms = v => (v < 1000 ? `${v} ms` : `${v / 1000} s`);
  return [el('div', {}, `p50 ≤ ${ms(l.p50_ms)}`), el('div', {}, `p95 ≤ ${ms(l.p95_ms)}`),
    el('div', { class: 'muted' }, count(l.answered, 'answer', 'answers'))];
}

export const HEALTH_HEADERS = ['Endpoint', 'Health', 'Waiting', 'Dead deliveries (14 d)', 'Last success', 'Deliveries (24 h)', 'Attempts delivered (24 h)', 'Response time (24 h)', 'Latest health event', 'Links'];

function endpointHealth(eps, stats, dead, health, backlogs) {
  const totals = stats.map(st => (st ? st.totals : null));
  const rows = eps.map((ep, i) => {
    const h = ep.health || {};
    const cells = [
      el('td', { class: 'wrap' }, ep.url, el('div', { class: 'muted mono' }, ep.id), ep.description ? el('div', { class: 'muted' }, ep.description) : null),
      el('td', { class: 'health' }, healthBadge(h), healthCause(h)),
      el('td', { class: 'backlog' }, waiting(backlogs.byEndpoint.get(ep.id), backlogs.capped, stats[i])),
      el('td', { class: 'num dead-count' }, dead[i] === null ? '—' : String(dead[i])),
      el('td', {}, ago(ep.last_success_at)),
      el('td', { class: 'num' }, totals[i] ? String(totals[i].deliveries) : '—'),
      el('td', { class: 'num' }, successRate(totals[i], STATUS_DELIVERED)),
      el('td', { class: 'num latency' }, responseTime(totals[i])),
      el('td', {}, healthEvent(health[ep.id])),
      el('td', { class: 'links' },
        dead[i] && dead[i] !== '0' ? [link('/dead-letter?endpoint_id=' + ep.id, 'Dead letters'), ' '] : null,
        link('/deliveries?endpoint_id=' + ep.id, 'Deliveries'))];
    cells.forEach((c, k) => { c.dataset.label = HEALTH_HEADERS[k]; });
    return el('tr', { 'data-id': ep.id, 'data-health': h.state || '' }, cells);
  });
  return el('div', { class: 'table-wrap' }, el('table', { id: 'health', class: 'stack' },
    el('thead', {}, el('tr', {}, HEALTH_HEADERS.map(h => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows)));
}
