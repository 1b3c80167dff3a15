// The overview: delivery charts and each endpoint's health.
import { endpointsList, get } from './api.js';
import { ago, badge, el, fmtTime, hiddenText } from './dom.js';
import { chart, successRate } from './chart.js';
import { current, link, load, render, view } from './page.js';
import { HEALTH_EVENT_TYPES, STATUS_DELIVERED } from './vocabulary.js';

export function overview() {
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

function endpointHealth(eps, totals, health) {
  const rows = eps.map((ep, i) => el('tr', {},
    el('td', { class: 'wrap' }, ep.url, el('div', { class: 'muted mono' }, ep.id), ep.description ? el('div', { class: 'muted' }, ep.description) : null),
    el('td', {}, badge(ep.enabled ? 'enabled' : 'disabled'), ep.disabled_reason ? el('div', { class: 'muted' }, ep.disabled_reason) : null),
    el('td', {}, ago(ep.last_success_at)),
    el('td', {}, ep.failing_since ? fmtTime(ep.failing_since) : el('span', { class: 'muted' }, '—')),
    el('td', { class: 'num' }, String(ep.consecutive_failures || 0)),
    el('td', { class: 'num' }, successRate(totals[i], STATUS_DELIVERED)),
    el('td', {}, healthEvent(health[ep.id])),
    el('td', {}, link('/deliveries?endpoint_id=' + ep.id, 'Deliveries'))));
  return el('div', { class: 'table-wrap' }, el('table', { id: 'health' },
    el('thead', {}, el('tr', {}, ['Endpoint', 'State', 'Last success', 'Failing since', 'Consecutive failures', 'Success rate (24 h)', 'Latest health event', ''].map(h => el('th', { scope: 'col' }, h || hiddenText('Links'))))),
    el('tbody', {}, rows)));
}
