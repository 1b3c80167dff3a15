// The overview: delivery charts and each endpoint's health, worst first,
// refreshed by itself (live.js).
import { endpointsList, get } from './api.js';
import { ago, el, fmtTime, zone } from './dom.js';
import { chart, successRate } from './chart.js';
import { healthBadge, healthCause, byHealth } from './health.js';
import { live } from './live.js';
import { current, link, load, render, view } from './page.js';
import { HEALTH_EVENT_TYPES, STATUS_DEAD, STATUS_DELIVERED } from './vocabulary.js';

// SLOW_MS: the overview reads its slow-changing parts — each endpoint's
// dead count (14 days) and the latest health events — at most this often,
// and every 5 s refresh reads only the endpoints and their stats: 3 + n
// calls a refresh instead of 7 + 2n (n endpoints shown). An endpoint new
// since the last read is read at once.
const SLOW_MS = 30000;

export function overview() {
  const token = render('Overview');
  const body = el('div', { class: 'overview' }, el('p', { class: 'muted loading' }, 'Loading…'));
  const updates = live(token, paint);
  view().append(updates.line, body);
  let slow = { at: 0, health: {}, dead: new Map() };
  async function paint() {
    const [eps, hourly, daily] = await Promise.all([
      endpointsList(true), get('/webhook-deliveries/stats?granularity=hour'), get('/webhook-deliveries/stats?granularity=day')]);
    const shown = byHealth(eps).slice(0, 50);
    const stale = Date.now() - slow.at >= SLOW_MS || shown.some(ep => !slow.dead.has(ep.id));
    const [perEndpoint, fresh] = await Promise.all([
      Promise.all(shown.map(ep => get('/webhook-deliveries/stats?granularity=hour&endpoint_id=' + ep.id).then(s => s.totals, () => null))),
      stale ? Promise.all([latestHealth(), Promise.all(shown.map(ep => deadCount(ep)))]) : null]);
    if (!current(token)) return;
    if (fresh) slow = { at: Date.now(), health: fresh[0], dead: new Map(shown.map((ep, i) => [ep.id, fresh[1][i]])) };
    const health = slow.health;
    const dead = shown.map(ep => slow.dead.get(ep.id));
    body.replaceChildren(
      el('div', { class: 'grid charts' },
        el('div', { class: 'card' }, chart(`Attempts per hour (${zone(new Date())}), last 24 h`, hourly, 'hour')),
        el('div', { class: 'card' }, chart('Attempts per day (UTC), last 14 days', daily, 'day'))),
      el('h2', {}, 'Endpoints'),
      eps.length === 0
        ? el('p', {}, 'No webhook endpoints yet. ', link('/endpoints', 'Add one'), '.')
        : endpointHealth(shown, perEndpoint, dead, health));
  }
  load(token, async () => { await paint(); updates.start(); });
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

export const HEALTH_HEADERS = ['Endpoint', 'Health', 'Dead deliveries (14 d)', 'Last success', 'Deliveries (24 h)', 'Attempts delivered (24 h)', 'Latest health event', 'Links'];

function endpointHealth(eps, totals, dead, health) {
  const rows = eps.map((ep, i) => {
    const h = ep.health || {};
    const cells = [
      el('td', { class: 'wrap' }, ep.url, el('div', { class: 'muted mono' }, ep.id), ep.description ? el('div', { class: 'muted' }, ep.description) : null),
      el('td', { class: 'health' }, healthBadge(h), healthCause(h)),
      el('td', { class: 'num dead-count' }, dead[i] === null ? '—' : String(dead[i])),
      el('td', {}, ago(ep.last_success_at)),
      el('td', { class: 'num' }, totals[i] ? String(totals[i].deliveries) : '—'),
      el('td', { class: 'num' }, successRate(totals[i], STATUS_DELIVERED)),
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
