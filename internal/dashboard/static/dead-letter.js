// The dead letter: deliveries that will not be retried on their own, one
// retry at a time or a recovery of an endpoint since a time.
import { endpointsList, mutate } from './api.js';
import { append, el, errorBox, fromLocalInput, noticeBox, select, toLocalInput } from './dom.js';
import { DELIVERY_HEADERS, deliveryQuery, deliveryRow, pagedTable } from './deliveries.js';
import { busy, button, current, load, render, view } from './page.js';
import { may } from './session.js';
import { STATUS_DEAD } from './vocabulary.js';

export function deadLetter() {
  const token = render('Dead letter');
  load(token, async () => {
    const eps = await endpointsList(true);
    if (!current(token)) return;
    const rowResult = d => el('td', {}, may('retry', button('Retry', 'secondary', async b => {
      const r = await mutate('POST', '/webhook-deliveries/' + d.id + '/retry');
      b.replaceWith(el('span', { class: 'notice', title: r.requestId }, 'queued'));
    })));
    const list = pagedTable(token, [...DELIVERY_HEADERS, 'Reason', ''],
      c => deliveryQuery(new URLSearchParams({ status: STATUS_DEAD }), c),
      d => { const tr = deliveryRow(d, eps, rowResult); tr.insertBefore(el('td', {}, d.dead_reason || ''), tr.lastChild); return tr; });
    append(view(), [el('p', { class: 'muted' }, 'Deliveries that will not be retried on their own. Fix the receiver, then retry one or recover all of an endpoint since a time.'),
      may('retry', recoverForm(eps)), list.node]);
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
