// The endpoints: register one, and each one's card to edit, disable,
// rotate its secret, test it or delete it.
import { endpointsList, get, mutate } from './api.js';
import { confirmDialog } from './confirm.js';
import { append, badURL, el, emptied, errorBox, fieldErrors, noticeBox } from './dom.js';
import { flowFacts, limitFields } from './endpoint-limits.js';
import { byHealth, healthBadge, healthCause, progressLine } from './health.js';
import { live } from './live.js';
import { busy, button, copyButton, current, load, render, view } from './page.js';
import { may } from './session.js';
import { EVENT_TYPES } from './vocabulary.js';

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
  const copy = copyButton('Copy', secret, code);
  return el('div', { class: 'warning', role: 'alert', id: 'secret' },
    el('strong', {}, title), el('div', { class: 'secret' }, code, copy),
    el('p', {}, 'This is the only time the secret is shown. Store it in your receiver’s configuration now; the API keeps no readable copy for you.', note ? ' ' + note : ''));
}

export function endpoints() {
  const token = render('Endpoints');
  const top = el('div', {});
  const listBox = el('div', { id: 'endpoint-list' });
  // cards are the shown endpoints' cards by id, each with its live parts.
  let cards = new Map();
  // refresh keeps the cards' health and recovery current (live.js); a card
  // being edited is left as it is.
  const updates = live(token, async () => {
    const eps = await endpointsList(true);
    if (!current(token)) return;
    if (eps.length !== cards.size || eps.some(ep => !cards.has(ep.id))) return paintList();
    await Promise.all(eps.map(ep => cards.get(ep.id).update(ep)));
  });
  append(view(), [top, may('write', createForm(top, () => paintList())), el('h2', {}, 'Registered'), updates.line, listBox]);
  async function paintList() {
    const eps = byHealth(await endpointsList(true));
    if (!current(token)) return;
    cards = new Map(eps.map(ep => [ep.id, endpointCard(ep, top, paintList)]));
    listBox.replaceChildren(...(eps.length === 0 ? [el('p', { class: 'muted' }, 'None yet.')] : [...cards.values()].map(c => c.card)));
  }
  load(token, async () => { await paintList(); updates.start(); });
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
      if (fieldErrors(form, null, i => i === url ? badURL(url.value) : '')) throw new Error('The URL has a problem: see its field.');
      const body = { url: url.value.trim(), events: checkedEvents(form) };
      if (desc.value.trim()) body.description = desc.value.trim();
      for (const [field, v] of Object.entries(limits.values())) if (v !== null) body[field] = v;
      const r = await mutate('POST', '/webhook-endpoints', body);
      limits.showErrors(null);
      fieldErrors(form, null);
      top.replaceChildren(secretPanel('Signing secret of ' + r.data.id, r.data.secret));
      form.reset();
      await done();
    }, err => { fieldErrors(form, err, i => i === url ? badURL(url.value) : ''); limits.showErrors(err); top.replaceChildren(errorBox(err)); });
  });
  return form;
}

function endpointCard(ep, top, refresh) {
  const card = el('div', { class: 'card endpoint', 'data-id': ep.id });
  const out = el('div', {});
  const recovery = el('div', { class: 'muted recovery' });
  const health = el('div', { class: 'health' });
  const flow = el('div', {});
  const path = '/webhook-endpoints/' + ep.id;
  let editing = false;
  // update shows the endpoint's health, flow and latest recovery as they
  // stand (fresh: the list's newer copy of ep, or null to keep it).
  const update = async fresh => {
    if (fresh) ep = fresh;
    if (editing) return;
    // append skips an absent part; replaceChildren would show it as "null".
    append(emptied(health), [healthBadge(ep.health), healthCause(ep.health)]);
    flow.replaceChildren(flowFacts(ep));
    const full = await get(path);
    if (full.recovery) recovery.replaceChildren(...progressLine(full.recovery)); else emptied(recovery);
  };
  const show = () => { editing = false; append(emptied(card), [
    el('div', { class: 'attempt-head' }, el('strong', { class: 'wrap' }, ep.url), el('code', { class: 'muted' }, ep.id)),
    health,
    ep.description ? el('div', {}, ep.description) : null,
    el('div', { class: 'muted' }, 'Events: ', ep.events.join(', ')),
    flow,
    recovery,
    may('write', el('div', { class: 'actions' },
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
        // A disabled endpoint is sent nothing: the test would die at once.
        if (!ep.enabled) {
          out.replaceChildren(el('div', { class: 'warning', role: 'status' }, 'The endpoint is disabled: a test event would not be sent to it. Enable it first, then send the test event.'));
          return;
        }
        const r = await mutate('POST', path + '/test');
        out.replaceChildren(noticeBox('A webhook.test event is on its way (' + (r.data.event_id || 'queued') + '): follow it under Deliveries.', r.requestId));
      }),
      button('Delete', 'danger', async () => {
        if (!await confirmDialog(`Delete the endpoint ${ep.url} (${ep.id})? It is sent nothing more; its deliveries stay in the log.`, 'Delete endpoint')) return;
        await mutate('DELETE', path);
        await refresh();
      }))),
    out]); update(null).catch(() => {}); };
  const edit = () => {
    editing = true;
    const url = el('input', { id: ep.id + '-url', name: 'url', type: 'url', required: true, value: ep.url });
    const desc = el('input', { id: ep.id + '-description', name: 'description', class: 'wide', maxlength: 500, value: ep.description || '' });
    const limits = limitFields(ep.id, ep);
    const form = el('form', {},
      el('div', { class: 'inline form' }, el('label', { for: ep.id + '-url' }, 'URL', url), el('label', { for: ep.id + '-description' }, 'Description', desc)),
      limits.node,
      eventsFieldset(ep.id, ep.events),
      el('div', { class: 'actions' }, el('button', { type: 'submit' }, 'Save'), el('button', { type: 'button', class: 'secondary', onclick: show }, 'Cancel')), out);
    form.addEventListener('submit', e => {
      e.preventDefault();
      busy(form.querySelector('button[type=submit]'), async () => {
        if (fieldErrors(form, null, i => i === url ? badURL(url.value) : '')) throw new Error('The URL has a problem: see its field.');
        await mutate('PATCH', path, { url: url.value.trim(), description: desc.value.trim(), events: checkedEvents(form), ...limits.values() });
        await refresh();
      }, err => { fieldErrors(form, err, i => i === url ? badURL(url.value) : ''); limits.showErrors(err); out.replaceChildren(errorBox(err)); });
    });
    card.replaceChildren(el('strong', {}, 'Edit ' + ep.id), form);
    url.focus();
  };
  show();
  return { card, update };
}
