// Signing in and out: the login form (a project API key or a dashboard
// session's token), the session's scope and expiry, and the question asked
// when a link brings a key other than the one this tab is signed in with.
import { forgetEndpoints, get } from './api.js';
import { el, errorBox, pad, zone } from './dom.js';
import { BASE, button, clearFlash, render, route } from './page.js';
import { currentGrant, isSessionToken, session, setGrant, takeKeyFromFragment } from './session.js';

// pendingKey is the key a link brought, held until the owner answers
// askKeySwitch.
let pendingKey = takeKeyFromFragment();
export function keyPending() { return pendingKey !== ''; }
// takeLinkedKey takes a "#key=" link pasted into this tab after it loaded
// (the address bar changes the fragment only: no reload), as at load;
// other fragments (in-page anchors) are left alone.
export function takeLinkedKey() {
  if (!location.hash.startsWith('#key=')) return false;
  pendingKey = takeKeyFromFragment() || pendingKey;
  return true;
}

function showFrame(signedIn) {
  document.getElementById('nav').hidden = !signedIn;
  document.getElementById('who').hidden = !signedIn;
  document.getElementById('search').hidden = !signedIn;
}

// credential names a key or a session token by its last four characters.
function credential(k) { return (isSessionToken(k) ? 'session …' : 'key …') + k.slice(-4); }

// zoned is a time of day in the page's one zone, labelled as every time
// of the page is (dom.js zone): "14:05 (UTC+01:00)".
export function zoned(iso) {
  const d = new Date(iso);
  return `${pad(d.getHours())}:${pad(d.getMinutes())} (${zone(d)})`;
}

// expiry ends the tab's session when its token expires, with a message
// rather than a page of failing calls.
let expiry = 0;
function endAtExpiry(g) {
  clearTimeout(expiry);
  const ms = new Date(g.expires_at) - Date.now();
  expiry = setTimeout(() => logout(expiredMessage(g)), Math.max(ms, 0));
}

function expiredMessage(g) {
  return 'The dashboard session expired at ' + zoned(g.expires_at) + '. Ask the key holder for a new one.';
}

export function logout(message) {
  // A call in flight at the expiry can bring the API's 401 before the
  // timer fires: the message says why all the same.
  const g = currentGrant();
  if (g && new Date(g.expires_at) <= Date.now()) message = expiredMessage(g);
  clearTimeout(expiry);
  session.key = '';
  session.inspector = null;
  session.created = [];
  setGrant(null);
  forgetEndpoints();
  history.pushState(null, '', BASE + '/');
  renderLogin(message);
}

// needsGrant: the tab holds a session token whose scope is not read yet.
export function needsGrant() { return isSessionToken(session.key) && !currentGrant(); }

// readGrant reads the session's scope and expiry (GET
// /public/v1/dashboard-sessions/current) and routes again; a 401 has
// already ended the session (api.js), another failure is shown with a
// way to try again.
export function readGrant() {
  const token = render('Dashboard session', el('p', { class: 'muted' }, 'Reading the session…'));
  get('/dashboard-sessions/current').then(g => {
    setGrant(g);
    endAtExpiry(g);
    route();
  }, err => {
    if (err.loggedOut) return;
    render('Dashboard session', errorBox(err), el('div', { class: 'actions' }, button('Try again', null, async () => route())));
  });
  return token;
}

// askKeySwitch asks whether to replace the signed-in key with the one a
// link brought; declining keeps the session as it was.
export function askKeySwitch() {
  const offered = pendingKey;
  const answer = switchTo => {
    pendingKey = '';
    if (switchTo) {
      session.key = offered;
      session.inspector = null; // the inspector belongs to the other project
      session.created = [];
      setGrant(null);
      forgetEndpoints();
    }
    route();
  };
  showFrame(false);
  clearFlash();
  const keep = el('button', { type: 'button', id: 'key-keep', onclick: () => answer(false) }, 'Keep ' + credential(session.key));
  render('Switch API key?', el('div', { class: 'card', id: 'key-switch', role: 'alertdialog', 'aria-labelledby': 'key-switch-text' },
    el('p', { id: 'key-switch-text' },
      'The link you opened signs in with the ' + credential(offered) + ', but this tab is signed in with the ' + credential(session.key) +
      '. A link can carry the key of another project: switch only if you meant to open it.'),
    el('div', { class: 'actions' },
      keep,
      el('button', { type: 'button', id: 'key-switch-accept', class: 'secondary', onclick: () => answer(true) }, 'Switch to ' + credential(offered)))));
  keep.focus();
}

export function renderLogin(message) {
  showFrame(false);
  clearFlash();
  const input = el('input', { id: 'api-key', name: 'key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'bx_... or bxs_...' });
  const form = el('form', { class: 'card' },
    el('label', { for: 'api-key' }, 'Project API key or dashboard session token', input),
    el('p', { class: 'muted' }, 'It stays in this browser tab (sessionStorage) and is sent only to the API, as a Bearer token. A session token (bxs_…) from the key holder opens the dashboard with only what its scope allows.'),
    el('button', { type: 'submit' }, 'Open dashboard'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    session.key = input.value.trim();
    setGrant(null);
    route();
  });
  render('Sign in', el('div', { class: 'login' }, message ? errorBox({ message }) : null, form));
  input.focus();
}

// SCOPE_NAMES say what a session's scope lets its holder do.
const SCOPE_NAMES = { read: 'read-only session', read_retry: 'read + retry session' };

// showSignedIn shows the navigation and what the tab signs in with: the
// key's end, or the session's scope and expiry. Sessions are made with the
// key only: their link is left out for a session.
export function showSignedIn() {
  showFrame(true);
  const g = currentGrant();
  document.getElementById('who-key').textContent = g
    ? (SCOPE_NAMES[g.scope] || g.scope + ' session') + ', expires ' + zoned(g.expires_at)
    : credential(session.key);
  document.getElementById('nav-sessions').hidden = Boolean(g);
}
