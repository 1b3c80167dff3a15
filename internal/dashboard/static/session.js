// The session: the project's API key (or a dashboard session's token) and
// this tab's inspector, both in sessionStorage only (they end with the
// tab); what the credential may do, and the one helper every view asks
// before it shows a button.

const KEY_STORE = 'botix.dashboard.key';
const INSPECTOR_STORE = 'botix.dashboard.inspector';
const CREATED_STORE = 'botix.dashboard.sessions';

export const session = {
  get key() { return sessionStorage.getItem(KEY_STORE) || ''; },
  set key(k) { if (k) sessionStorage.setItem(KEY_STORE, k); else sessionStorage.removeItem(KEY_STORE); },
  // inspector is the inspector this tab created ({ id, url, expires_at }),
  // null when there is none (or what is stored cannot be read).
  get inspector() {
    try { return JSON.parse(sessionStorage.getItem(INSPECTOR_STORE) || 'null'); } catch { return null; }
  },
  set inspector(v) { if (v) sessionStorage.setItem(INSPECTOR_STORE, JSON.stringify(v)); else sessionStorage.removeItem(INSPECTOR_STORE); },
  // created are the dashboard sessions this tab made ({ id, scope,
  // expires_at }, never the token), so it can revoke them.
  get created() {
    try { return JSON.parse(sessionStorage.getItem(CREATED_STORE) || '[]'); } catch { return []; }
  },
  set created(v) { if (v && v.length) sessionStorage.setItem(CREATED_STORE, JSON.stringify(v)); else sessionStorage.removeItem(CREATED_STORE); },
};

// The key arrives in the fragment (never sent to a server) or through the
// login form, lives in sessionStorage only, and leaves the address bar at once.
// A fragment is used only when it is exactly "#key=" and a key of the API's
// shape (internal/auth: "bx_" and 16-128 letters, digits, "_" or "-");
// anything else is cleared unread, so a mangled link neither signs in with
// a piece of a key nor leaves one in the address bar and the history. A key
// other than the one this tab is signed in with is not taken silently (a
// link can carry somebody else's project): takeKeyFromFragment returns it,
// for the owner to answer the question login.js asks.
// A dashboard session's token (internal/auth SessionTokenPattern) is taken
// the same way, from the same "#key=" fragment or the login form.
export const KEY_SHAPE = /^bx_[A-Za-z0-9_-]{16,128}$/;
export const SESSION_SHAPE = /^bxs_[a-z2-7]{40}$/;
export function isSessionToken(k) { return SESSION_SHAPE.test(k || ''); }
export function takeKeyFromFragment() {
  if (location.href.indexOf('#') < 0) return '';
  const m = /^#key=(.*)$/.exec(location.hash);
  history.replaceState(null, '', location.pathname + location.search);
  if (!m || !(KEY_SHAPE.test(m[1]) || SESSION_SHAPE.test(m[1]))) return '';
  const signedIn = session.key;
  if (!signedIn || signedIn === m[1]) {
    session.key = m[1];
    return '';
  }
  return m[1];
}

// GRANTS are what each dashboard session scope may do besides reading, as
// internal/auth's Scope.Grants states them (a unit test compares): "retry"
// is retrying a delivery and recovering an endpoint. The project's key may
// do everything, "write" (every other change) included.
export const GRANTS = { read: [], read_retry: ['retry'] };
const KEY_GRANTS = ['retry', 'write'];

// grant is the tab's dashboard session as GET
// /public/v1/dashboard-sessions/current answered ({ id, scope, expires_at }),
// null with a key or before it was read (login.js reads it).
let grant = null;
export function setGrant(g) { grant = g; }
export function currentGrant() { return isSessionToken(session.key) ? grant : null; }

// allowed tells whether the tab's credential may do action ("retry" or
// "write"); a session whose scope is not read yet may do nothing.
export function allowed(action) {
  if (!isSessionToken(session.key)) return KEY_GRANTS.includes(action);
  return Boolean(grant && (GRANTS[grant.scope] || []).includes(action));
}

// may is how a view leaves out what the credential may not do: node when
// allowed, else null (which el and append skip), so the button is not on
// the page at all.
export function may(action, node) { return allowed(action) ? node : null; }
