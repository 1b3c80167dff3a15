// The page's frame: the view, its title, the flash area, links between
// views, and the buttons and loaders that show a failure instead of
// swallowing it.
import { el, errorBox } from './dom.js';

export const BASE = '/dashboard';

export function view() { return document.getElementById('view'); }

// render replaces the view and returns a token: async work started for a
// view checks current(token) before touching the page, so a slow answer
// never paints over the view the user moved to.
let generation = 0;
export function render(title, ...children) {
  generation++;
  document.title = title + ' · BOTIX webhooks';
  view().replaceChildren(el('h1', {}, title), ...children.flat());
  return generation;
}
export function current(token) { return token === generation; }

export function flash(kind, ...children) {
  document.getElementById('flash').replaceChildren(el('div', { class: kind }, ...children));
}
export function clearFlash() { document.getElementById('flash').replaceChildren(); }

// router shows the view of the address bar (app.js's route).
let router = () => {};
export function onNavigate(fn) { router = fn; }
export function route() { router(); }

export function go(path) {
  history.pushState(null, '', BASE + path);
  route();
}

export function link(path, ...children) {
  return el('a', { href: BASE + path, 'data-nav': true }, ...children);
}

// load is a view's loader: shows the error in the view when the first
// read fails, in place of the view's "Loading…" lines (class loading).
export async function load(token, fn) {
  try {
    await fn();
  } catch (err) {
    if (err.loggedOut || !current(token)) return;
    for (const n of view().querySelectorAll('.loading')) n.remove();
    view().append(errorBox(err));
  }
}

// busy runs an operation with its control disabled and hands a failure
// (409, 5xx, a network error) to show: never a silent no-op.
export async function busy(control, run, show) {
  control.disabled = true;
  try {
    await run();
  } catch (err) {
    if (!err.loggedOut) show(err);
  } finally {
    control.disabled = false;
  }
}

// button runs a click's operation busy, its failure in the flash area.
export function button(label, cls, run) {
  const b = el('button', { type: 'button', class: cls || null }, label);
  b.addEventListener('click', () => {
    clearFlash();
    busy(b, () => run(b), err => flash('error', errorBox(err)));
  });
  return b;
}

// copyButton copies text, or selects node's text where the clipboard is
// refused.
export function copyButton(label, text, node) {
  return button(label, 'secondary', async b => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'Copied';
    } catch {
      const r = document.createRange();
      r.selectNodeContents(node);
      getSelection().removeAllRanges();
      getSelection().addRange(r);
      b.textContent = 'Selected: press Ctrl+C';
    }
  });
}
