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

// hiddenText is text a screen reader reads and the page does not show: the
// name of a column of buttons or links, whose header is otherwise empty.
export function hiddenText(text) {
  return el('span', { class: 'visually-hidden' }, text);
}

export function badge(status) {
  return el('span', { class: 'badge s-' + status }, status);
}

export function pad(n) { return String(n).padStart(2, '0'); }

// fmtTime shows a time in the browser's zone; the exact RFC 3339 value is
// the element's title.
export function fmtTime(iso) {
  if (!iso) return el('span', { class: 'muted' }, '—');
  const d = new Date(iso);
  if (isNaN(d)) return el('span', {}, iso);
  const text = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return el('time', { datetime: iso, title: iso }, text);
}

export function ago(iso) {
  if (!iso) return el('span', { class: 'muted' }, 'never');
  const s = Math.round((Date.now() - new Date(iso)) / 1000);
  const text = s < 90 ? `${Math.max(s, 0)} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : s < 129600 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86400)} days ago`;
  return el('time', { datetime: iso, title: iso }, text);
}

// clock shows a time of day in the browser's zone (the RFC 3339 value is
// the title).
export function clock(iso) {
  const d = new Date(iso);
  if (isNaN(d)) return el('span', {}, iso);
  return el('time', { datetime: iso, title: iso }, `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`);
}

// toLocalInput and fromLocalInput convert between RFC 3339 (the API's and
// the page URL's form) and a datetime-local field's value.
export function toLocalInput(iso) {
  const d = new Date(iso);
  if (!iso || isNaN(d)) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(v) {
  if (!v) return '';
  const d = new Date(v);
  return isNaN(d) ? '' : d.toISOString().replace('.000Z', 'Z');
}

// errorBox shows an API error as the envelope gives it: message and request id.
export function errorBox(err) {
  const box = el('div', { class: 'error', role: 'alert' }, err.message || String(err));
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
