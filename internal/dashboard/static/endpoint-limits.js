// An endpoint's flow control: the owner's two limits, in the cards and
// the forms, and the slow-down a receiver asked for.
import { clock, el } from './dom.js';

// LIMITS are an endpoint's two bounds: the API field, the form's label, and
// how a card states a value. Their ranges are the API's to check: it answers
// a value out of range with a VALIDATION_ERROR naming the field.
const LIMITS = [
  { field: 'rate_limit', label: 'Rate limit (deliveries per second, empty: none)', shown: n => `rate limit ${n}/s` },
  { field: 'max_concurrency', label: 'Max in flight (requests at once, empty: none)', shown: n => `max ${n} in flight` },
];

// limitsSet states the limits the owner set on ep ("rate limit 5/s",
// "max 4 in flight"); slowedTo the rate a receiver's slow-down (throttle)
// holds the endpoint to.
export function limitsSet(ep) { return LIMITS.filter(l => ep[l.field]).map(l => l.shown(ep[l.field])); }
export function slowedTo(t) { return `${Number(t.effective_rate.toFixed(2))}/s`; }

// flowFacts is an endpoint card's flow control: the owner's limits, and
// the slow-down the receiver asked for while it lasts.
export function flowFacts(ep) {
  const set = limitsSet(ep);
  const t = ep.throttle;
  return el('div', { class: 'flow' },
    el('div', { class: 'muted limits' }, 'Limits: ', set.length ? set.join(', ') : 'no limits'),
    t && t.paused_until ? el('div', { class: 'throttle' }, 'paused by the receiver until ', clock(t.paused_until), ` (${t.throttled_by})`) : null,
    t && t.effective_rate ? el('div', { class: 'throttle' }, `slowed to ${slowedTo(t)} by the receiver`) : null);
}

// limitFields are a form's inputs for both limits, each with the API's
// problem beside it. ep (absent in the create form) fills them in.
export function limitFields(prefix, ep) {
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
