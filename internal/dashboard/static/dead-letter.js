// The dead letter: deliveries that will not be retried on their own,
// filtered by endpoint, reason, event type and time (in the page URL's
// query), one retry at a time or a recovery of an endpoint since a time,
// whose progress the view follows. The rows follow their deliveries as
// they change (dead → queued → delivered or dead again): live.js.
import { endpointsList, get, mutate } from './api.js';
import { append, count, el, errorBox, fmtTime, noticeBox, select, timeInput, timeValue, zone } from './dom.js';
import { DELIVERY_HEADERS, deliveryRow, labelCells } from './deliveries.js';
import { byHealth, progressLine, recoverySettled } from './health.js';
import { live } from './live.js';
import { busy, button, current, go, link, load, render, view } from './page.js';
import { may } from './session.js';
import { EVENT_TYPES, RECOVERY_RUNNING, RECOVERY_STALL_MS, STATUS_DEAD, STATUS_DELIVERED } from './vocabulary.js';

// FILTERS are the view's filters: all but reason are the API's; reason
// ("contains", case-insensitive) is applied by the page to what it read.
const FILTERS = ['endpoint_id', 'reason', 'event_type', 'since', 'until'];
const HEADERS = [...DELIVERY_HEADERS, 'Reason', 'Retry'];
const PAGE = 100;

function apiQuery(params, extra) {
  const q = new URLSearchParams(extra);
  for (const f of FILTERS) if (f !== 'reason' && params.get(f)) q.set(f, params.get(f));
  return '/webhook-deliveries?' + q;
}

export function deadLetter() {
  const params = new URLSearchParams(location.search);
  const token = render('Dead letter');
  const reason = (params.get('reason') || '').toLowerCase();
  load(token, async () => {
    const eps = await endpointsList(true);
    if (!current(token)) return;
    const tbody = el('tbody', {});
    const status = el('p', { class: 'muted loading', id: 'dead-status', 'aria-live': 'polite' }, 'Loading…');
    const rows = new Map(); // delivery id -> { tr, d, retried: attempts count at the retry, or -1 }
    const recovery = { node: el('div', { id: 'recover-progress' }), follow: null };
    let cursor = '';
    const more = button('Load more', 'secondary', () => page());
    more.hidden = true;

    const paintRow = (entry, d) => {
      entry.d = d;
      const retry = el('td', { class: 'retry' }, retryCell(entry));
      const tr = deliveryRow(d, eps, () => [el('td', { class: 'wrap reason' }, d.dead_reason || ''), retry]);
      tr.dataset.id = d.id;
      tr.dataset.status = d.status;
      labelCells(tr, HEADERS);
      if (entry.tr) entry.tr.replaceWith(tr);
      entry.tr = tr;
      return tr;
    };
    // retryCell is a dead row's Retry, or what became of the retry: queued
    // while the delivery is on its way, then delivered or dead again
    // (never a lasting "queued" the new attempt contradicts).
    const retryCell = entry => {
      const d = entry.d;
      if (entry.retried >= 0) {
        if (d.status === STATUS_DELIVERED) return el('span', { class: 'notice' }, 'retried: delivered');
        if (d.status === STATUS_DEAD && d.attempts_count > entry.retried) {
          return [el('span', { class: 'error' }, 'retried: failed again', d.last_error_class ? ' (' + d.last_error_class + ')' : ''), retryButton(entry)];
        }
        return el('span', { class: 'on-way' }, 'retry queued, on its way');
      }
      return d.status === STATUS_DEAD ? retryButton(entry) : el('span', { class: 'muted' }, d.status === STATUS_DELIVERED ? STATUS_DELIVERED : 'on its way');
    };
    const retryButton = entry => may('retry', button('Retry', 'secondary', async () => {
      await mutate('POST', '/webhook-deliveries/' + entry.d.id + '/retry');
      entry.retried = entry.d.attempts_count;
      paintRow(entry, { ...entry.d, status: 'queued' });
    }));

    const matches = d => !reason || (d.dead_reason || '').toLowerCase().includes(reason);
    async function page() {
      const res = await get(apiQuery(params, { status: STATUS_DEAD, cursor_limit: String(PAGE), ...(cursor ? { cursor } : {}) }));
      if (!current(token)) return;
      for (const d of res.data.filter(matches)) {
        if (!rows.has(d.id)) {
          const entry = { retried: -1 };
          rows.set(d.id, entry);
          tbody.append(paintRow(entry, d));
        }
      }
      cursor = res.has_more ? res.next_cursor : '';
      more.hidden = !cursor;
      tellCount();
    }
    const tellCount = () => {
      status.classList.remove('loading');
      const dead = [...rows.values()].filter(e => e.d.status === STATUS_DEAD).length;
      status.textContent = rows.size === 0 ? 'Nothing matches.'
        : `${rows.size} shown, ${dead} still dead${cursor ? '' : ', no more'}.` + (reason ? ` Reason filter “${reason}” applied by the page to what it read.` : '');
    };

    // refresh follows what the view shows: the rows' deliveries (read again
    // among every status, since the oldest row), new dead ones on top, and
    // the recovery being followed.
    async function refresh() {
      const shown = [...rows.values()].map(e => e.d.created_at).sort();
      // Ten minutes before the oldest row: the API's since bounds the
      // event's time (exclusive), which comes before its deliveries.
      const since = params.get('since') || (shown[0] ? new Date(new Date(shown[0]) - 600000).toISOString() : '');
      const res = await get(apiQuery(params, { cursor_limit: '200', ...(since ? { since } : {}) }));
      if (!current(token)) return;
      for (const d of res.data) {
        const entry = rows.get(d.id);
        if (entry) {
          if (entry.d.status !== d.status || entry.d.attempts_count !== d.attempts_count) paintRow(entry, d);
        } else if (d.status === STATUS_DEAD && matches(d) && (!shown.length || d.created_at >= shown[shown.length - 1])) {
          const fresh = { retried: -1 };
          rows.set(d.id, fresh);
          tbody.prepend(paintRow(fresh, d));
        }
      }
      tellCount();
      if (recovery.follow) await recovery.follow();
    }

    const updates = live(token, refresh);
    const table = el('div', { class: 'table-wrap' }, el('table', { id: 'deliveries', class: 'stack' },
      el('thead', {}, el('tr', {}, HEADERS.map(h => el('th', { scope: 'col' }, h)))), tbody));
    append(view(), [
      el('p', { class: 'muted' }, 'Deliveries that will not be retried on their own. Fix the receiver, then retry one or recover all of an endpoint since a time.'),
      filterForm(params, eps), may('retry', recoverForm(eps, params, recovery)), recovery.node, updates.line, table, status, el('div', { class: 'actions' }, more)]);
    await page();
    updates.start();
  });
}

function filterForm(params, eps) {
  const since = timeInput('dl-since', 'since', params.get('since'));
  const until = timeInput('dl-until', 'until', params.get('until'));
  const reason = el('input', { id: 'dl-reason', name: 'reason', type: 'search', value: params.get('reason') || '', placeholder: 'e.g. 403', autocomplete: 'off' });
  const z = zone(new Date());
  const form = el('form', { class: 'card inline', id: 'dead-filters', role: 'search', 'aria-label': 'Filter dead letters' },
    select('dl-endpoint', 'Endpoint', [['', 'any'], ...byHealth(eps).map(e => [e.id, e.url])], params.get('endpoint_id') || ''),
    el('label', { for: 'dl-reason' }, 'Reason contains', reason),
    select('dl-event-type', 'Event type', [['', 'any'], ...EVENT_TYPES.map(t => [t, t])], params.get('event_type') || ''),
    el('label', { for: 'dl-since' }, `Since (${z})`, since),
    el('label', { for: 'dl-until' }, `Until (${z})`, until),
    el('button', { type: 'submit' }, 'Apply'),
    link('/dead-letter', 'Clear'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    const q = new URLSearchParams();
    const values = { endpoint_id: form.elements['dl-endpoint'].value, reason: reason.value.trim(), event_type: form.elements['dl-event-type'].value,
      since: timeValue(since), until: timeValue(until) };
    if (values.since === null || values.until === null) return;
    for (const f of FILTERS) if (values[f]) q.set(f, values[f]);
    go('/dead-letter' + (q.toString() ? '?' + q : ''));
  });
  return form;
}

// defaultEndpoint is the one to recover: the filtered endpoint, else the
// worst enabled one (a disabled endpoint cannot be recovered).
function defaultEndpoint(eps, params) {
  if (params.get('endpoint_id') && eps.some(e => e.id === params.get('endpoint_id'))) return params.get('endpoint_id');
  const ep = byHealth(eps).find(e => e.enabled) || eps[0];
  return ep && ep.id;
}

function recoverForm(eps, params, recovery) {
  if (eps.length === 0) return el('p', { class: 'muted' }, 'No endpoints, nothing to recover.');
  const since = timeInput('recover-since', 'since', new Date(Date.now() - 24 * 3600 * 1000).toISOString(), { required: true });
  const out = el('div', { id: 'recover-result' });
  const submit = el('button', { type: 'submit', 'aria-describedby': 'recover-running' }, 'Recover since…');
  const running = el('p', { class: 'muted', id: 'recover-running', hidden: true });
  const form = el('form', { class: 'card inline', id: 'recover' },
    select('recover-endpoint', 'Endpoint', byHealth(eps).map(e => [e.id, e.url + (e.health && e.health.state ? ' (' + e.health.state + ')' : '')]), defaultEndpoint(eps, params)),
    el('label', { for: 'recover-since' }, `Failed or dead since (${zone(new Date())})`, since),
    submit, running, out);
  // A recovery of the chosen endpoint that runs on its own holds Recover
  // back (a click would only say so); one overdue by RECOVERY_STALL_MS has
  // stalled, and Recover is what resumes it.
  let holding = false;
  const hold = r => {
    holding = Boolean(r && r.status === RECOVERY_RUNNING && !(r.next_step_at && Date.now() - Date.parse(r.next_step_at) > RECOVERY_STALL_MS));
    submit.disabled = holding;
    running.hidden = !holding;
    running.textContent = holding ? 'A recovery of this endpoint is running on its own (below): Recover since… is back when it completes.' : '';
  };
  // show paints the endpoint's latest recovery (a reload shows it again)
  // and follows it while it has deliveries on their way.
  const show = r => {
    hold(r);
    if (!r) { recovery.node.replaceChildren(); recovery.follow = null; return; }
    recovery.node.replaceChildren(el('div', { class: 'card recovery', 'data-id': r.id, 'data-status': r.status }, progressLine(r)));
    if (recoverySettled(r)) recovery.follow = null;
  };
  const follow = (epID, id) => async () => {
    const ep = await get('/webhook-endpoints/' + epID);
    const r = ep.recovery;
    if (form.elements['recover-endpoint'].value !== epID || (id && (!r || r.id !== id))) return;
    show(r);
  };
  const latest = epID => {
    recovery.follow = follow(epID, '');
    recovery.follow().catch(err => out.replaceChildren(errorBox(err)));
  };
  form.elements['recover-endpoint'].addEventListener('change', () => { out.replaceChildren(); latest(form.elements['recover-endpoint'].value); });
  latest(form.elements['recover-endpoint'].value);
  form.addEventListener('submit', e => {
    e.preventDefault();
    busy(submit, async () => {
      const sinceISO = timeValue(since);
      if (sinceISO === null) throw new Error('that is not a time: type it as YYYY-MM-DD HH:MM');
      if (!sinceISO) throw new Error('choose a time to recover from');
      const epID = form.elements['recover-endpoint'].value;
      if (!epID) throw new Error('there is no endpoint to recover');
      // A recovery of this endpoint that runs already is answered as it
      // stands by the API: the page says so instead of a fresh count.
      const fresh = await get('/webhook-endpoints/' + epID);
      const before = fresh.recovery;
      const r = await mutate('POST', '/webhook-endpoints/' + epID + '/recover', { since: sinceISO });
      const text = [];
      if (before && before.status === RECOVERY_RUNNING && before.id === r.data.recovery_id) {
        text.push(`Recovery ${r.data.recovery_id} was already running: this click started nothing new and sent nothing again. Its progress is below.`);
      } else {
        text.push(`Recovery ${r.data.recovery_id} started: ${r.data.queued} failed or dead deliveries queued to be sent again in its first step.`);
        if (r.data.skipped) text.push(` ${r.data.skipped} re-sent by a recovery in the last 15 minutes were left alone.`);
        if (r.data.has_more) text.push(' More remain: it continues by itself, a step at a time at the pace the endpoint can take.');
        // The API recovers a bounded window: a since further back is
        // moved forward, and the page says so.
        if (new Date(r.data.since) - new Date(sinceISO) > 1000) {
          text.push(' A recovery reaches back only so far: it starts from ', fmtTime(r.data.since), ', not from the time asked.');
        }
      }
      out.replaceChildren(noticeBox(text, r.requestId));
      // Recovering an endpoint whose last attempts failed: the owner may be
      // ahead of the receiver's fix, and the page says what would follow.
      const failed = fresh.health && fresh.health.failed_attempts;
      if (failed > 0) {
        out.append(el('div', { class: 'warning', id: 'recover-warning' },
          `This endpoint's last ${count(failed, 'attempt', 'attempts')} failed and none has succeeded since: if its receiver is not fixed yet, the recovered deliveries will fail again.`));
      }
      recovery.follow = follow(epID, r.data.recovery_id);
      await recovery.follow();
    }, err => out.replaceChildren(errorBox(err))).then(() => { submit.disabled = holding; });
  });
  return form;
}
