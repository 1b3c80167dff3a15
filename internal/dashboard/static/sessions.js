// Dashboard sessions: the key holder makes a short-lived, scoped token to
// hand a teammate instead of the key (read-only, or read + retry and
// recover), sees it once with Copy, finds every live session of the
// project (whoever made it, with the key that made it), and revokes it.
import { get, mutate } from './api.js';
import { el, emptied, errorBox, fmtTime, noticeBox, select } from './dom.js';
import { zoned } from './login.js';
import { BASE, busy, button, copyButton, current, render, view } from './page.js';
import { currentGrant, session } from './session.js';

const SCOPES = [['read', 'Read only'], ['read_retry', 'Read, retry deliveries and recover endpoints']];
// DURATIONS are ttl_seconds the API takes (60 to 43200: internal/auth).
const DURATIONS = [['900', '15 minutes'], ['3600', '1 hour'], ['14400', '4 hours'], ['43200', '12 hours']];

// tokenPanel shows a session's token the one time the API returns it, and
// the link that opens the dashboard with it (in the fragment, which no
// server sees).
function tokenPanel(s) {
  const code = el('code', { id: 'session-token' }, s.token);
  const url = location.origin + BASE + '/#key=' + s.token;
  const link = el('code', { id: 'session-link' }, url);
  return el('div', { class: 'warning', role: 'alert', id: 'session-created' },
    el('strong', {}, `Session ${s.id} (${s.scope}), expires `, fmtTime(s.expires_at)),
    el('div', { class: 'secret' }, code, copyButton('Copy token', s.token, code)),
    el('div', { class: 'secret' }, link, copyButton('Copy link', url, link)),
    el('p', {}, 'This is the only time the token is shown. Whoever holds it can open this project’s dashboard with the scope above until it expires or you revoke it.'));
}

// MAX_LISTED bounds the sessions the view reads (cursor pages of 100).
const MAX_LISTED = 1000;

// liveSessions is the project's live sessions, newest first.
async function liveSessions() {
  const out = [];
  let cursor = '';
  do {
    const page = await get('/dashboard-sessions?cursor_limit=100' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
    out.push(...page.data);
    cursor = page.has_more ? page.next_cursor : '';
  } while (cursor && out.length < MAX_LISTED);
  return out;
}

export function sessions() {
  const token = render('Dashboard sessions');
  if (currentGrant()) {
    view().append(el('p', {}, 'Dashboard sessions are made and revoked with the project’s API key; this tab is signed in with a session.'));
    return;
  }
  const top = el('div', {});
  const list = el('div', { id: 'session-list', 'aria-live': 'polite' }, el('p', { class: 'muted loading' }, 'Loading…'));
  const paint = async () => {
    let live;
    try {
      live = await liveSessions();
    } catch (err) {
      if (!err.loggedOut && current(token)) emptied(list).append(errorBox(err));
      return;
    }
    if (!current(token)) return;
    const ids = new Set(live.map(s => s.id));
    session.created = session.created.filter(s => ids.has(s.id));
    const mine = new Set(session.created.map(s => s.id));
    emptied(list).append(...(live.length === 0 ? [el('p', { class: 'muted' }, 'No live session: none made, or all expired or revoked.')] : [el('ul', { class: 'sessions' }, live.map(s =>
      el('li', { 'data-id': s.id }, el('code', {}, s.id), ` ${s.scope}, expires ${zoned(s.expires_at)}, made with `,
        s.key_id ? el('code', { class: 'key-id' }, s.key_id) : 'an earlier key', mine.has(s.id) ? ' (this tab) ' : ' ',
        button('Revoke', 'danger', async () => {
          await revoke(s.id, top);
          await paint();
        }))))]));
  };
  view().append(
    el('p', { class: 'muted' }, 'A session opens this dashboard without the API key: it reads everything, and with the second scope it can also retry deliveries and recover endpoints. It cannot change endpoints, rotate secrets, send messages or make sessions. It ends at its expiry, when revoked here, or when the API key that made it is revoked.'),
    top, createForm(top, paint), el('h2', {}, 'Live sessions of this project'), list, revokeForm(top, paint));
  paint();
}

async function revoke(id, top) {
  const r = await mutate('DELETE', '/dashboard-sessions/' + encodeURIComponent(id));
  session.created = session.created.filter(s => s.id !== id);
  top.replaceChildren(noticeBox(`Session ${id} revoked: its token is refused from now on.`, r.requestId));
}

function createForm(top, done) {
  const form = el('form', { class: 'card inline', id: 'create-session' },
    select('session-scope', 'Scope', SCOPES, 'read'),
    select('session-ttl', 'Lasts', DURATIONS, '3600'),
    el('button', { type: 'submit' }, 'Create session'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    busy(form.querySelector('button[type=submit]'), async () => {
      const r = await mutate('POST', '/dashboard-sessions', { scope: form.elements['session-scope'].value, ttl_seconds: Number(form.elements['session-ttl'].value) });
      session.created = [...session.created, { id: r.data.id, scope: r.data.scope, expires_at: r.data.expires_at }];
      top.replaceChildren(tokenPanel(r.data));
      await done();
    }, err => top.replaceChildren(errorBox(err)));
  });
  return form;
}

// revokeForm revokes a session by its id (one made in another tab).
function revokeForm(top, done) {
  const id = el('input', { id: 'revoke-id', name: 'revoke-id', required: true, pattern: '\\s*dss_[0-7][0-9A-HJKMNP-TV-Z]{25}\\s*', placeholder: 'dss_…', spellcheck: 'false', autocomplete: 'off' });
  const form = el('form', { class: 'card inline', id: 'revoke-session' },
    el('label', { for: 'revoke-id' }, 'Revoke a session by its id', id),
    el('button', { type: 'submit', class: 'danger' }, 'Revoke'));
  form.addEventListener('submit', e => {
    e.preventDefault();
    busy(form.querySelector('button[type=submit]'), async () => {
      await revoke(id.value.trim(), top);
      id.value = '';
      await done();
    }, err => top.replaceChildren(errorBox(err)));
  });
  return form;
}
