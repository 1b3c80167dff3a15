// An endpoint's health as the API derives it (webhook.EndpointHealth):
// state, cause, since when, shown the same in every view; endpoints listed
// worst first, the order vocabulary.js's HEALTH_STATES has them in.
import { clock, el, fmtTime } from './dom.js';
import { HEALTH_STATES, RECOVERY_RUNNING } from './vocabulary.js';

export function healthRank(ep) {
  const i = HEALTH_STATES.indexOf(ep.health && ep.health.state);
  return i < 0 ? HEALTH_STATES.length : i;
}

// byHealth is eps worst first; among equals, as the API listed them.
export function byHealth(eps) {
  return eps.map((ep, i) => [ep, i]).sort((a, b) => healthRank(a[0]) - healthRank(b[0]) || a[1] - b[1]).map(p => p[0]);
}

export function healthBadge(h) {
  const state = (h && h.state) || 'unknown';
  return el('span', { class: 'badge h-' + state }, state === HEALTH_STATES[HEALTH_STATES.length - 1] ? state : state + (h.cause ? ' · ' + h.cause : ''));
}

// healthCause tells what the badge does not: since when, until when (a
// receiver's pause), why (a disabled endpoint), how many failed attempts.
export function healthCause(h) {
  if (!h || !h.state) return null;
  const parts = [];
  if (h.reason) parts.push(el('div', {}, 'reason: ', h.reason));
  if (h.since) parts.push(el('div', {}, 'since ', fmtTime(h.since)));
  if (h.until) parts.push(el('div', {}, 'until ', clock(h.until)));
  if (h.failed_attempts) parts.push(el('div', {}, `${h.failed_attempts} failed attempts in a row`));
  return parts.length ? el('div', { class: 'muted health-cause' }, parts) : null;
}

// progressLine tells a recovery as it stands: what it queued, how many of
// those were delivered, failed again, or are on their way.
export function progressLine(r) {
  const { queued, delivered, failed } = r;
  const onWay = Math.max(0, queued - delivered - failed);
  const counts = `${queued} queued: ${delivered} delivered, ${failed} failed again, ${onWay} on their way` + (r.skipped ? `; ${r.skipped} left alone (re-sent by a recovery shortly before)` : '');
  if (r.status === RECOVERY_RUNNING) {
    return [`Recovery ${r.id} running: ${counts} so far, failed or dead since `, fmtTime(r.since), '; it continues by itself',
      ...(r.next_step_at ? [', next step at ', fmtTime(r.next_step_at)] : []), '.'];
  }
  return [`Recovery ${r.id} completed: ${counts}, failed or dead since `, fmtTime(r.since), ' (finished ', fmtTime(r.updated_at), ').'];
}

// recoverySettled tells a recovery that has nothing left to follow:
// completed, and each delivery it queued delivered or failed again.
export function recoverySettled(r) {
  const { queued, delivered, failed } = r;
  return r.status !== RECOVERY_RUNNING && delivered + failed >= queued;
}
