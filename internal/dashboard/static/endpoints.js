// The endpoints: register one, and each one's card to edit, disable,
// rotate its secret, test it or delete it.
import { endpointsList, get, mutate } from './api.js';
import { append, badge, el, emptied, errorBox, fmtTime, noticeBox } from './dom.js';
import { flowFacts, limitFields } from './endpoint-limits.js';
import { busy, button, current, load, render, view } from './page.js';
import { may } from './session.js';
import { EVENT_TYPES, RECOVERY_RUNNING } from './vocabulary.js';

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
    } catch {
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

export function endpoints() {
  const token = render('Endpoints');
  const top = el('div', {});
  const listBox = el('div', { id: 'endpoint-list' });
  append(view(), [top, may('write', createForm(top, () => paintList())), el('h2', {}, 'Registered'), listBox]);
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
  if (r.status === RECOVERY_RUNNING) {
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
      }))),
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
