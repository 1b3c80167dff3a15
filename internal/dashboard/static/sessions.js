// Dashboard sessions: the key holder makes a short-lived, scoped token to
// hand a teammate instead of the key (read-only, or read + retry and
// recover), sees it once with Copy, and revokes it.
import { mutate } from './api.js';
import { el, emptied, errorBox, fmtTime, noticeBox, select } from './dom.js';
import { zoned } from './login.js';
import { BASE, busy, button, copyButton, render, view } from './page.js';
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

export function sessions() {
  render('Dashboard sessions');
  if (currentGrant()) {
    view().append(el('p', {}, 'Dashboard sessions are made and revoked with the project’s API key; this tab is signed in with a session.'));
    return;
  }
  const top = el('div', {});
  const list = el('div', { id: 'session-list' });
  const paint = () => {
    const mine = session.created.filter(s => new Date(s.expires_at) > Date.now());
    session.created = mine;
    emptied(list).append(...(mine.length === 0 ? [el('p', { class: 'muted' }, 'None made in this tab, or all expired.')] : [el('ul', { class: 'sessions' }, mine.map(s =>
      el('li', { 'data-id': s.id }, el('code', {}, s.id), ` ${s.scope}, expires ${zoned(s.expires_at)} `,
        button('Revoke', 'danger', async () => {
          await revoke(s.id, top);
          paint();
        }))))]));
  };
  view().append(
    el('p', { class: 'muted' }, 'A session opens this dashboard without the API key: it reads everything, and with the second scope it can also retry deliveries and recover endpoints. It cannot change endpoints, rotate secrets, send messages or make sessions.'),
    top, createForm(top, paint), el('h2', {}, 'Sessions made in this tab'), list, revokeForm(top, paint));
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
      done();
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
      done();
    }, err => top.replaceChildren(errorBox(err)));
  });
  return form;
}
