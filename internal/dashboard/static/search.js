// The search box in the header: an id a support ticket quotes leads to
// its deliveries. An event id (the webhook-id a receiver saw) to the list
// of that event's deliveries, a delivery id to the delivery, a request id
// (the X-Botix-Request-Id of an attempt) to the delivery whose attempt
// sent it, through the list's request_id filter.
import { errorBox } from './dom.js';
import { clearFlash, flash, go } from './page.js';

// ULID is the part after an id's prefix (ids.Pattern; a unit test
// compares).
export const ULID = '[0-7][0-9A-HJKMNP-TV-Z]{25}';

// KINDS: each id prefix and where it leads.
const KINDS = [
  ['evt', id => '/deliveries?event_id=' + id],
  ['dlv', id => '/deliveries/' + id],
  ['req', id => '/deliveries?request_id=' + id],
];

// searchPath is the view an id leads to ('' for text that is no such id);
// blanks a copy from a log brings are trimmed.
export function searchPath(text) {
  const v = text.trim();
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
      flash('error', errorBox({ message: 'Not an id the dashboard can find: paste an event id (evt_…, the webhook-id header), a delivery id (dlv_…) or a request id (req_…, the X-Botix-Request-Id header).' }));
      input.focus();
      return;
    }
    input.removeAttribute('aria-invalid');
    clearFlash();
    input.value = '';
    go(to);
  });
}
