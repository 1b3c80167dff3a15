// Building the page: everything a receiver or a payload controls is put on
// it as text (DOM text nodes and attribute values), never parsed as HTML.

// el builds an element. Children that are not nodes become text nodes, so
// no string ever reaches the HTML parser.
export function el(tag, attrs, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
    else if (k === 'class') n.className = v;
    else n.setAttribute(k, v === true ? '' : String(v));
  }
  append(n, children);
  return n;
}

export function emptied(n) {
  n.replaceChildren();
  return n;
}

// append adds children as el does, skipping absent ones (null, undefined,
// false) that replaceChildren would show as text.
export function append(n, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    n.append(c instanceof Node ? c : String(c));
  }
  return n;
}

const svgNS = 'http://www.w3.org/2000/svg';
export function svg(tag, attrs, ...children) {
  const n = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
  return append(n, children);
}

export function badge(status) {
  return el('span', { class: 'badge s-' + status }, status);
}

export function pad(n) { return String(n).padStart(2, '0'); }

// count is n and the noun, singular for one: "1 attempt", "3 attempts".
export function count(n, one, many) { return `${n} ${n === 1 ? one : many}`; }

// The page shows every time in one zone, the browser's, each labelled with
// it as an offset from UTC ("UTC+03:00", "UTC-03:30"): the offset of that
// instant, so a time across a daylight-saving change says so.
export function zone(d) {
  const off = -d.getTimezoneOffset();
  const sign = off < 0 ? '-' : '+';
  return `UTC${sign}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
}

// fmtTime shows a time in the browser's zone, with the zone; the exact
// RFC 3339 value is the element's title.
export function fmtTime(iso) {
  if (!iso) return el('span', { class: 'muted' }, '—');
  const d = new Date(iso);
  if (isNaN(d)) return el('span', {}, iso);
  const text = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${zone(d)}`;
  return el('time', { datetime: iso, title: iso }, text);
}

export function ago(iso) {
  if (!iso) return el('span', { class: 'muted' }, 'never');
  const s = Math.round((Date.now() - new Date(iso)) / 1000);
  const text = s < 90 ? `${Math.max(s, 0)} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : s < 129600 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86400)} days ago`;
  return el('time', { datetime: iso, title: iso }, text);
}

// duration says a span of time in the largest unit that fits it.
export function duration(ms) {
  const s = Math.round(ms / 1000);
  return s < 90 ? `${Math.max(s, 1)} s` : s < 5400 ? `${Math.round(s / 60)} min` : s < 172800 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86400)} days`;
}

// clock shows a time of day in the browser's zone, with the zone (the
// RFC 3339 value is the title).
export function clock(iso) {
  const d = new Date(iso);
  if (isNaN(d)) return el('span', {}, iso);
  return el('time', { datetime: iso, title: iso }, `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${zone(d)}`);
}

// Time fields take a time the way the page shows times, in the browser's
// zone and whatever its locale: 2026-12-01 09:00 (a T for the space, the
// minutes left out, are taken too). A browser's own date picker would
// show the locale's form (12/01/2026, 09:00 AM) beside ISO times
// everywhere else.
const TIME_FIELD = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}))?$/;
const TIME_HINT = 'A time in your zone as YYYY-MM-DD HH:MM, e.g. 2026-12-01 09:00';

// toLocalInput is a time field's text for an RFC 3339 time (the API's and
// the page URL's form); fromLocalInput is the RFC 3339 time of a field's
// text, '' when the text names no time that exists (2026-02-30).
function toLocalInput(iso) {
  const d = new Date(iso);
  if (!iso || isNaN(d)) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(v) {
  const m = TIME_FIELD.exec((v || '').trim());
  if (!m) return '';
  const [y, mo, day, h, mi] = [m[1], m[2], m[3], m[4] || '0', m[5] || '0'].map(Number);
  const d = new Date(y, mo - 1, day, h, mi);
  if (d.getFullYear() !== y || d.getMonth() !== mo - 1 || d.getDate() !== day || d.getHours() !== h || d.getMinutes() !== mi) return '';
  return d.toISOString().replace('.000Z', 'Z');
}

// timeInput is a time field holding iso (attrs add to or override its
// attributes).
export function timeInput(id, name, iso, attrs = {}) {
  const input = el('input', { id, name, type: 'text', value: toLocalInput(iso), placeholder: 'YYYY-MM-DD HH:MM', title: TIME_HINT,
    pattern: TIME_FIELD.source.slice(1, -1), autocomplete: 'off', spellcheck: 'false', ...attrs });
  input.addEventListener('input', () => input.setCustomValidity(''));
  return input;
}

// timeValue is a time field's RFC 3339 time: '' when it is empty; null,
// with the field marked invalid and the browser saying why, when its text
// names no time.
export function timeValue(input) {
  if (!input.value.trim()) return '';
  const iso = fromLocalInput(input.value);
  if (iso) return iso;
  input.setCustomValidity(TIME_HINT + ' (that time does not exist).');
  input.reportValidity();
  return null;
}

// HINTS say what a dashboard user does about an API error whose message
// speaks to an API client (a 409 ENDPOINT_DISABLED names the PATCH that
// enables the endpoint): the button that does it.
const HINTS = {
  ENDPOINT_DISABLED: 'The endpoint is disabled: enable it (Endpoints, its card, Enable), then try again.',
};

// errorBox shows an API error as the envelope gives it: message and request
// id; an error with a HINTS entry shows the hint instead of the message.
export function errorBox(err) {
  const box = el('div', { class: 'error', role: 'alert' }, HINTS[err.code] || err.message || String(err));
  if (err.code) box.prepend(el('strong', {}, err.code + ': '));
  if (err.requestId) box.append(el('span', { class: 'rid' }, 'request_id: ', el('code', {}, err.requestId)));
  return box;
}

export function noticeBox(text, requestId) {
  const box = el('div', { class: 'notice', role: 'status' }, text);
  if (requestId) box.append(el('span', { class: 'rid' }, 'request_id: ', el('code', {}, requestId)));
  return box;
}

// select is a labelled drop-down of [value, text] options.
export function select(id, label, options, value) {
  return el('label', { for: id }, label,
    el('select', { id, name: id }, options.map(([v, text]) => el('option', { value: v, selected: v === value }, text))));
}

// fieldErrors puts an API error's problems at the fields of a form (by
// their name: the API's field), aria-invalid on each, and clears the
// others. check(input) may add a problem the page finds itself. It
// returns whether any field has a problem.
export function fieldErrors(form, err, check) {
  let any = false;
  for (const input of form.querySelectorAll('input[name], select[name], textarea[name]')) {
    if (input.type === 'checkbox') continue;
    const name = input.name;
    const problem = (check && check(input)) || (err && err.details && err.details[name]) || (err && err.field === name ? err.message : '') || '';
    let box = document.getElementById(input.id + '-error');
    if (!box && problem) {
      box = el('span', { class: 'field-error', id: input.id + '-error' });
      input.after(box);
      input.setAttribute('aria-describedby', box.id);
    }
    if (box) box.textContent = problem;
    if (problem) { input.setAttribute('aria-invalid', 'true'); any = true; } else input.removeAttribute('aria-invalid');
  }
  return any;
}

// badURL is what is wrong with an endpoint URL the API would refuse that
// the page can tell at once: blanks inside it ("" when none).
export function badURL(v) {
  return /\s/.test(v.trim()) ? 'A URL has no spaces: remove them (a space inside is %20).' : '';
}
