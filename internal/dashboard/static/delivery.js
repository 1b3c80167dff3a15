// One delivery: its facts, its attempts, its payload, and the two fixes
// (retry now, redirect to an inspector).
import { endpointLabel, endpointsList, get, mutate, sleep } from './api.js';
import { confirmDialog } from './confirm.js';
import { append, badge, duration, el, errorBox, fmtTime, noticeBox } from './dom.js';
import { limitsSet, slowedTo } from './endpoint-limits.js';
import { button, current, link, load, render, view } from './page.js';
import { may, session } from './session.js';
import { STATUS_DELIVERED } from './vocabulary.js';

export function detail(id) {
  const token = render('Delivery');
  const head = el('div', {});
  const actions = el('div', { class: 'actions' });
  const result = el('div', { id: 'action-result' });
  const attempts = el('div', {});
  const payload = el('div', {});
  const captured = el('div', { id: 'captured' });

  let shownAttempts = 0;
  let shown = null;
  function paint(d, eps) {
    shown = d;
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
    attempts.replaceChildren(timeline(d.attempts || [], late(d, eps)));
    let pretty;
    try { pretty = JSON.stringify(d.payload, null, 2); } catch { pretty = String(d.payload); }
    payload.replaceChildren(scrollable('pre', { id: 'payload' }, 'Payload', pretty));
  }

  // refreshUntil follows the delivery until it has more than n attempts
  // and returns it (null when the view was left or it took too long).
  async function refreshUntil(n) {
    for (let i = 0; i < 30 && current(token); i++) {
      await sleep(1000);
      const d = await get('/webhook-deliveries/' + encodeURIComponent(id));
      if (!current(token)) return null;
      paint(d, await endpointsList(false));
      if ((d.attempts || []).length > n) return d;
    }
    return null;
  }

  load(token, async () => {
    const [d, eps] = await Promise.all([get('/webhook-deliveries/' + encodeURIComponent(id)), endpointsList(false)]);
    if (!current(token)) return;
    document.title = d.id + ' · BOTIX webhooks';
    paint(d, eps);
    // Shown filled, at once: headings shown before the facts arrive
    // would be pushed down by them (a layout shift).
    view().append(head, actions, result, el('h2', {}, 'Attempts'), attempts, captured, el('h2', {}, 'Payload'), payload);
    append(actions, [
      may('retry', button('Retry now', null, async () => {
        if (shown && shown.status === STATUS_DELIVERED &&
          !await confirmDialog('This delivery was delivered: the receiver took it. Retry sends it again (the same webhook-id, which a receiver de-duplicates on).', 'Send it again')) return;
        const before = shownAttempts;
        const r = await mutate('POST', '/webhook-deliveries/' + encodeURIComponent(id) + '/retry');
        result.replaceChildren(el('div', { class: 'pending-box', role: 'status' }, 'Retry queued: a manual attempt is on its way.'));
        const d = await refreshUntil(before);
        if (!current(token)) return;
        const last = d && d.attempts[d.attempts.length - 1];
        if (!last) {
          result.replaceChildren(noticeBox('Retry queued; no new attempt yet: the view shows it when it comes.', r.requestId));
        } else if (last.status_code >= 200 && last.status_code < 300) {
          result.replaceChildren(noticeBox(`The manual attempt was delivered (HTTP ${last.status_code}).`, r.requestId));
        } else {
          const box = errorBox({ message: `The manual attempt failed: ${last.status_code ? 'HTTP ' + last.status_code : 'no answer'}${last.error_class ? ' (' + last.error_class + ')' : ''}. The delivery is ${d.status}.`, requestId: r.requestId });
          result.replaceChildren(box);
        }
      })),
      // A redirect makes an inspector: a change only the key may make.
      may('write', button('Redirect to inspector', 'secondary', async () => {
        const insp = await inspector();
        const before = insp.seen;
        const r = await mutate('POST', '/webhook-deliveries/' + encodeURIComponent(id) + '/redirect', { inspector_id: insp.id });
        result.replaceChildren(noticeBox('Redirect queued to inspector ' + insp.id + '.', r.requestId));
        await showCaptures(token, captured, insp, before);
      }))]);
  });
}

// scrollable is a box that scrolls what it holds (pre scrolls past its
// max-height): focusable, so the keyboard scrolls it too, and named as a
// region for the screen reader that lands on it.
function scrollable(tag, attrs, name, ...children) {
  return el(tag, { ...attrs, tabindex: 0, role: 'region', 'aria-label': name }, ...children);
}

function fact(name, ...value) {
  return [el('dt', {}, name), el('dd', {}, ...value)];
}

// LATE_MS: a scheduled attempt that started this long after it was due
// says what can hold an endpoint's deliveries back.
const LATE_MS = 60000;

// late returns, for a delivery's attempts, what to say of each one that
// started LATE_MS or more after it was due (null for the others). The
// first attempt of round 1 was due when the delivery was created; a later
// scheduled attempt at the next_attempt_at its predecessor in the round
// set. Manual and redirect attempts, and a redriven round's first, have
// no due time. The log does not record why an attempt waited, so the page
// names what holds this endpoint's deliveries back now (its limits, the
// receiver's slow-down) or, with none, a backlog.
export function late(d, eps) {
  const ep = (eps || []).find(e => e.id === d.endpoint_id) || {};
  const t = ep.throttle || {};
  const causes = [
    ...(t.paused_until ? [['the receiver paused it (', t.throttled_by, ') until ', fmtTime(t.paused_until)]] : []),
    ...(t.effective_rate ? [['the receiver slowed it to ' + slowedTo(t)]] : []),
    ...limitsSet(ep).map(l => ['its ' + l]),
  ];
  const why = causes.length
    ? ['What holds this endpoint\'s deliveries back now: ', ...causes.flatMap((c, i) => (i ? ['; ', ...c] : c)), '. A 429 or 503 with Retry-After pauses every delivery to it, and its limits queue them.']
    : ['This endpoint has no limits and is not slowed down now: it waited behind other deliveries (a backlog), or behind a pause or slow-down that has ended (a 429 or 503 with Retry-After pauses every delivery to an endpoint).'];
  const due = new Map();
  let prev = null; // the round's previous attempt
  for (const a of d.attempts || []) {
    if (a.kind === 'scheduled') {
      const at = a.round === 1 && a.attempt === 1 ? d.created_at : prev && prev.round === a.round && prev.next_attempt_at;
      if (at) due.set(a, at);
    }
    if (a.kind === 'scheduled' || a.kind === 'redrive') prev = a;
  }
  return a => {
    const at = due.get(a);
    const wait = at ? Date.parse(a.started_at) - Date.parse(at) : 0;
    if (!(wait >= LATE_MS)) return null;
    return el('div', { class: 'late' }, `Started ${duration(wait)} after it was due (`, fmtTime(at), '). ', ...why);
  };
}

function timeline(attempts, lateness) {
  if (attempts.length === 0) return el('p', { class: 'muted' }, 'No attempt yet.');
  return el('ol', { class: 'timeline', id: 'attempts' }, attempts.map(a => {
    // A 429 is the receiver asking to slow down: the attempt is taken
    // again after its Retry-After, not counted as a failure (amber).
    const outcome = a.status_code >= 200 && a.status_code < 300 ? 'ok' : a.status_code === 429 ? 'slow' : 'fail';
    return el('li', { class: outcome, 'data-kind': a.kind, title: outcome === 'slow' ? 'the receiver asked to slow down: not a failure' : null },
      el('div', { class: 'attempt-head' },
        el('strong', {}, `#${a.attempt} ${a.kind}`),
        fmtTime(a.started_at),
        el('span', {}, `${a.duration_ms} ms`),
        el('span', {}, a.status_code ? 'HTTP ' + a.status_code : 'no answer'),
        a.error_class ? el('code', {}, a.error_class) : null,
        el('code', { class: 'muted', title: 'the X-Botix-Request-Id header this attempt was sent with (new for every attempt; the webhook-id header is the event id)' }, a.request_id)),
      el('div', { class: 'muted wrap' }, a.url),
      a.error ? el('div', {}, a.error) : null,
      a.next_attempt_at ? el('div', { class: 'muted' }, 'next attempt ', fmtTime(a.next_attempt_at)) : null,
      lateness(a),
      a.response_body ? el('details', {}, el('summary', {}, 'Response body (first 4 KB)'), scrollable('pre', { class: 'response-body' }, 'Response body of attempt #' + a.attempt, a.response_body)) : null);
  }));
}

// inspector reuses this tab's inspector while it lives, else creates one.
async function inspector() {
  const saved = session.inspector;
  if (saved && new Date(saved.expires_at) - Date.now() > 10 * 60 * 1000) {
    try {
      const page = await get('/inspectors/' + saved.id + '/requests?cursor_limit=100');
      return { ...saved, seen: page.data.length };
    } catch (err) {
      if (err.status !== 404) throw err;
    }
  }
  const r = await mutate('POST', '/inspectors');
  session.inspector = { id: r.data.id, url: r.data.url, expires_at: r.data.expires_at };
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
            el('details', {}, el('summary', {}, 'Headers'), scrollable('pre', {}, 'Captured headers', Object.entries(q.headers || {}).map(([k, v]) => `${k}: ${v}`).join('\n'))),
            scrollable('pre', { class: 'captured-body' }, 'Captured body', q.body)))));
      return;
    }
    await sleep(1000);
  }
}
