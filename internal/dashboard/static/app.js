// BOTIX webhook dashboard: a client of the public API and nothing else.
// It sends the project's API key like any integrator; everything a receiver
// or a payload controls is put on the page as text (DOM text nodes and
// attribute values), never parsed as HTML (dom.js).
//
// This module is the page's entry: it routes the address bar to a view.
// The others are ES modules it imports, served as they are (no build
// step), each under its content hash (internal/dashboard versionImports).
import { onUnauthorized } from './api.js';
import { el } from './dom.js';
import { deadLetter } from './dead-letter.js';
import { deliveries } from './deliveries.js';
import { detail } from './delivery.js';
import { endpoints } from './endpoints.js';
import { askKeySwitch, keyPending, logout, needsGrant, readGrant, renderLogin, showSignedIn, takeLinkedKey } from './login.js';
import { overview } from './overview.js';
import { BASE, clearFlash, go, link, onNavigate, render, view } from './page.js';
import { wireSearch } from './search.js';
import { session } from './session.js';
import { sessions } from './sessions.js';

function route() {
  if (keyPending()) return askKeySwitch();
  if (!session.key) return renderLogin();
  if (needsGrant()) return readGrant();
  showSignedIn();
  clearFlash();
  const parts = location.pathname.slice(BASE.length).split('/').filter(Boolean);
  const name = parts[0] || 'overview';
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.view === name) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  const views = { overview, deliveries: parts[1] ? () => detail(parts[1]) : deliveries, 'dead-letter': deadLetter, endpoints, sessions };
  const show = views[name] || (() => render('Not found', el('p', {}, 'There is no such page. ', link('/', 'Go to the overview'))));
  show();
  view().focus({ preventScroll: true });
}

onNavigate(route);
onUnauthorized(logout);
document.addEventListener('click', e => {
  const a = e.target.closest('a[data-nav]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  go(a.getAttribute('href').slice(BASE.length) || '/');
});
window.addEventListener('popstate', route);
window.addEventListener('hashchange', () => { if (takeLinkedKey()) route(); });
document.getElementById('logout').addEventListener('click', () => logout(''));
wireSearch();

route();
