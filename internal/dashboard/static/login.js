// Signing in and out: the login form, and the question asked when a link
// brings a key other than the one this tab is signed in with.
import { forgetEndpoints } from './api.js';
import { el, errorBox } from './dom.js';
import { BASE, clearFlash, render, route } from './page.js';
import { session, takeKeyFromFragment } from './session.js';

// pendingKey is the key a link brought, held until the owner answers
// askKeySwitch.
let pendingKey = takeKeyFromFragment();
export function keyPending() { return pendingKey !== ''; }

function showFrame(signedIn) {
  document.getElementById('nav').hidden = !signedIn;
  document.getElementById('who').hidden = !signedIn;
}

export function logout(message) {
  session.key = '';
  session.inspector = null;
  history.pushState(null, '', BASE + '/');
  renderLogin(message);
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
      forgetEndpoints();
    }
    route();
  };
  showFrame(false);
  clearFlash();
  const keep = el('button', { type: 'button', id: 'key-keep', onclick: () => answer(false) }, 'Keep key …' + session.key.slice(-4));
  render('Switch API key?', el('div', { class: 'card', id: 'key-switch', role: 'alertdialog', 'aria-labelledby': 'key-switch-text' },
    el('p', { id: 'key-switch-text' },
      'The link you opened signs in with the key …' + offered.slice(-4) + ', but this tab is signed in with the key …' + session.key.slice(-4) +
      '. A link can carry the key of another project: switch only if you meant to open it.'),
    el('div', { class: 'actions' },
      keep,
      el('button', { type: 'button', id: 'key-switch-accept', class: 'secondary', onclick: () => answer(true) }, 'Switch to key …' + offered.slice(-4)))));
  keep.focus();
}

export function renderLogin(message) {
  showFrame(false);
  clearFlash();
  const input = el('input', { id: 'api-key', name: 'key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, placeholder: 'bx_...' });
  const form = el('form', { class: 'card' },
    el('label', { for: 'api-key' }, 'Project API key', input),
    el('p', { class: 'muted' }, 'The key stays in this browser tab (sessionStorage) and is sent only to the API, as a Bearer token.'),
    el('button', { type: 'submit' }, 'Open dashboard'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    session.key = input.value.trim();
    route();
  });
  render('Sign in', el('div', { class: 'login' }, message ? errorBox({ message }) : null, form));
  input.focus();
}

// showSignedIn shows the navigation and which key the tab uses.
export function showSignedIn() {
  showFrame(true);
  document.getElementById('who-key').textContent = 'key …' + session.key.slice(-4);
}
