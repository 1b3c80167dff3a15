// The deliveries list: filters kept in the page URL's query, a cursor
// list with "Load more".
import { endpointLabel, endpointsList, get } from './api.js';
import { append, badge, el, fmtTime, select, timeInput, timeValue, zone } from './dom.js';
import { live } from './live.js';
import { button, current, go, link, load, render, view } from './page.js';
import { DELIVERY_STATUSES, EVENT_TYPES } from './vocabulary.js';

const PAGE_SIZE = 50;
const MAX_PAGE = 200;

const FILTERS = ['event_id', 'request_id', 'status', 'event_type', 'endpoint_id', 'since', 'until', 'limit'];

// EVENT_ID is what the API accepts as event_id (ids.Pattern, which
// sdk/openapi.yaml's EventID states), with the blanks a copy from a log
// brings (trimmed on Apply): a typo is caught in the form, not answered
// with a 400. A unit test holds it to ids.Pattern.
const EVENT_ID = '\\s*evt_[0-7][0-9A-HJKMNP-TV-Z]{25}\\s*';

export function deliveryQuery(params, cursor) {
  const q = new URLSearchParams();
  for (const f of FILTERS) {
    if (f !== 'limit' && params.get(f)) q.set(f, params.get(f));
  }
  const limit = Math.min(MAX_PAGE, Math.max(1, Number(params.get('limit')) || PAGE_SIZE));
  q.set('cursor_limit', String(limit));
  if (cursor) q.set('cursor', cursor);
  return '/webhook-deliveries?' + q;
}

// The filter form writes its state into the page URL's query: a link or a
// reload shows the same view.
function filterForm(params, eps) {
  const since = timeInput('since', 'since', params.get('since'));
  const until = timeInput('until', 'until', params.get('until'));
  // A support ticket starts from the webhook-id a receiver logged: the
  // event id, which finds that event's deliveries to every endpoint.
  const eventID = el('input', { id: 'event_id', name: 'event_id', type: 'search', value: params.get('event_id') || '',
    pattern: EVENT_ID, placeholder: 'evt_…', spellcheck: 'false', autocomplete: 'off', title: 'An event id: the webhook-id header of a webhook (evt_ and 26 characters)' });
  const form = el('form', { class: 'card inline', id: 'filters', role: 'search', 'aria-label': 'Filter deliveries' },
    el('label', { for: 'event_id' }, 'Event id', eventID),
    select('status', 'Status', [['', 'any'], ...DELIVERY_STATUSES.map(s => [s, s])], params.get('status') || ''),
    select('event_type', 'Event type', [['', 'any'], ...EVENT_TYPES.map(t => [t, t])], params.get('event_type') || ''),
    select('endpoint_id', 'Endpoint', [['', 'any'], ...eps.map(e => [e.id, e.url])], params.get('endpoint_id') || ''),
    el('label', { for: 'since' }, `Since (${zone(new Date())})`, since),
    el('label', { for: 'until' }, `Until (${zone(new Date())})`, until),
    select('limit', 'Per page', [50, 100, 200].map(n => [String(n), String(n)]), String(params.get('limit') || PAGE_SIZE)),
    el('button', { type: 'submit' }, 'Apply'),
    link('/deliveries', 'Clear'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const f of FILTERS) {
      // A request id comes from the header's search box (search.js), not
      // a field here: kept while the other filters change.
      let v = form.elements[f] ? form.elements[f].value.trim() : params.get(f) || '';
      if (f === 'since' || f === 'until') v = timeValue(form.elements[f]);
      if (v === null) return;
      if (f === 'limit' && v === String(PAGE_SIZE)) v = '';
      if (v) q.set(f, v);
    }
    go('/deliveries' + (q.toString() ? '?' + q : ''));
  });
  return form;
}

export const DELIVERY_HEADERS = ['Created', 'Event', 'Endpoint', 'Status', 'Attempts', 'Last answer', 'Delivery'];

// labelCells names each cell of a row by its column (data-label): under
// the phone breakpoint a table of class stack shows each row as a card,
// every cell with its column's name (app.css).
export function labelCells(tr, headers) {
  [...tr.cells].forEach((c, i) => { if (headers[i]) c.dataset.label = headers[i]; });
  return tr;
}

export function deliveryRow(d, eps, extra) {
  return el('tr', {},
    el('td', {}, fmtTime(d.created_at)),
    el('td', {}, d.event_type),
    el('td', { class: 'wrap' }, endpointLabel(eps, d.endpoint_id)),
    el('td', {}, badge(d.status)),
    el('td', { class: 'num' }, String(d.attempts_count)),
    el('td', {}, d.last_status_code ? 'HTTP ' + d.last_status_code : '', d.last_error_class ? el('div', { class: 'muted mono' }, d.last_error_class) : null),
    el('td', { class: 'mono' }, link('/deliveries/' + d.id, d.id)),
    extra ? extra(d) : null);
}

// pagedTable renders a cursor list with "Load more", recording how long
// rendering each page took (body data-render-ms: a figure, not a limit).
export function pagedTable(token, headers, path, row) {
  const tbody = el('tbody', {});
  const table = el('div', { class: 'table-wrap' }, el('table', { id: 'deliveries', class: 'stack' },
    el('thead', {}, el('tr', {}, headers.map(h => el('th', { scope: 'col' }, h)))), tbody));
  const status = el('p', { class: 'muted loading', 'aria-live': 'polite' }, 'Loading…');
  const more = button('Load more', 'secondary', () => page());
  more.hidden = true;
  let cursor = '';
  let shown = 0;
  const rows = new Map(); // delivery id -> [its row, status and attempts it shows]
  let newest = '';
  const made = d => {
    if (d.created_at > newest) newest = d.created_at;
    const tr = labelCells(row(d), headers);
    tr.dataset.id = d.id;
    tr.dataset.status = d.status;
    rows.set(d.id, [tr, d.status + ' ' + d.attempts_count]);
    return tr;
  };
  // refresh reads the first page again: a row whose delivery changed is
  // painted again in place, a delivery newer than every row goes on top.
  async function refresh() {
    const res = await get(path(''));
    if (!current(token)) return;
    const top = newest;
    const fresh = [];
    for (const d of res.data) {
      const had = rows.get(d.id);
      if (had) {
        if (had[1] !== d.status + ' ' + d.attempts_count) had[0].replaceWith(made(d));
      } else if (d.created_at > top) {
        fresh.push(made(d));
      }
    }
    if (fresh.length) {
      tbody.prepend(...fresh);
      shown += fresh.length;
      status.textContent = `${shown} shown${cursor ? '' : ', no more'}.`;
    }
  }
  async function page() {
    const res = await get(path(cursor));
    if (!current(token)) return;
    const t0 = performance.now();
    const frag = document.createDocumentFragment();
    for (const d of res.data) if (!rows.has(d.id)) frag.append(made(d));
    const added = frag.childNodes.length;
    tbody.append(frag);
    void tbody.offsetHeight; // layout included in the figure
    const ms = performance.now() - t0;
    shown += added;
    document.body.dataset.renderMs = ms.toFixed(1);
    document.body.dataset.rows = String(res.data.length);
    console.info(`dashboard: rendered ${res.data.length} rows in ${ms.toFixed(1)} ms`);
    cursor = res.has_more ? res.next_cursor : '';
    more.hidden = !cursor;
    status.classList.remove('loading');
    status.textContent = shown === 0 ? 'Nothing matches.' : `${shown} shown${cursor ? '' : ', no more'}.`;
  }
  return { node: el('div', {}, table, status, el('div', { class: 'actions' }, more)), first: page, refresh };
}

export function deliveries() {
  const params = new URLSearchParams(location.search);
  const token = render('Deliveries');
  load(token, async () => {
    const eps = await endpointsList(false);
    if (!current(token)) return;
    const list = pagedTable(token, DELIVERY_HEADERS, c => deliveryQuery(params, c), d => deliveryRow(d, eps));
    const updates = live(token, list.refresh);
    append(view(), [filterForm(params, eps),
      params.get('request_id') ? el('p', { id: 'request-filter' }, 'The delivery whose attempt sent request id ', el('code', {}, params.get('request_id')), '.') : null,
      updates.line, list.node]);
    await list.first();
    updates.start();
  });
}
