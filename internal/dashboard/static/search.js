// The search box in the header: an id a support ticket quotes leads to
// its deliveries. An event id (the webhook-id a receiver saw) to the list
// of that event's deliveries, a delivery id to the delivery, a request id
// (the X-Botix-Request-Id of an attempt) to the delivery whose attempt
// sent it, through the list's request_id filter.
import { errorBox } from './dom.js';
import { clearFlash, flash, go } from './page.js';
import { RETENTION_DAYS } from './vocabulary.js';

// ULID is the part after an id's prefix (ids.Pattern; a unit test
// compares).
export const ULID = '[0-7][0-9A-HJKMNP-TV-Z]{25}';

// KINDS: each id prefix and where it leads.
const KINDS = [
  ['evt', id => '/deliveries?event_id=' + id],
  ['dlv', id => '/deliveries/' + id],
  ['req', id => '/deliveries?request_id=' + id],
];

// searchPath is the view an id leads to ('' for text that is no such id).
// What a ticket pastes is forgiven: blanks and quotes around it, the
// header line it came in ("webhook-id: evt_…", "X-Botix-Request-Id: req_…")
// and the case (an id's prefix is lower case, its ULID upper case).
export function searchPath(text) {
  let v = text.trim().replace(/^[\w-]+\s*:\s*/, '').replace(/^["']|["']$/g, '').trim();
  const cut = v.indexOf('_');
  if (cut > 0) v = v.slice(0, cut).toLowerCase() + '_' + v.slice(cut + 1).toUpperCase();
  for (const [prefix, to] of KINDS) {
    if (new RegExp('^' + prefix + '_' + ULID + '$').test(v)) return to(v);
  }
  return '';
}

export function wireSearch() {
  const form = document.getElementById('search');
  const input = document.getElementById('search-id');
  form.addEventListener('submit', e => {
    e.preventDefault();
    const to = searchPath(input.value);
    if (!to) {
      input.setAttribute('aria-invalid', 'true');
      flash('error', errorBox({ message: 'Not an id the dashboard can find: paste an event id (evt_…, the webhook-id header), a delivery id (dlv_…) or a request id (req_…, the X-Botix-Request-Id header). Deliveries are kept ' + RETENTION_DAYS + ' days.' }));
      input.focus();
      return;
    }
    input.removeAttribute('aria-invalid');
    clearFlash();
    input.value = '';
    go(to);
  });
}
