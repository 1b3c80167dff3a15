// The session: the project's API key and this tab's inspector, both in
// sessionStorage only (they end with the tab).

const KEY_STORE = 'botix.dashboard.key';
const INSPECTOR_STORE = 'botix.dashboard.inspector';

export const session = {
  get key() { return sessionStorage.getItem(KEY_STORE) || ''; },
  set key(k) { if (k) sessionStorage.setItem(KEY_STORE, k); else sessionStorage.removeItem(KEY_STORE); },
  // inspector is the inspector this tab created ({ id, url, expires_at }),
  // null when there is none (or what is stored cannot be read).
  get inspector() {
    try { return JSON.parse(sessionStorage.getItem(INSPECTOR_STORE) || 'null'); } catch { return null; }
  },
  set inspector(v) { if (v) sessionStorage.setItem(INSPECTOR_STORE, JSON.stringify(v)); else sessionStorage.removeItem(INSPECTOR_STORE); },
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
export const KEY_SHAPE = /^bx_[A-Za-z0-9_-]{16,128}$/;
export function takeKeyFromFragment() {
  if (location.href.indexOf('#') < 0) return '';
  const m = /^#key=(.*)$/.exec(location.hash);
  history.replaceState(null, '', location.pathname + location.search);
  if (!m || !KEY_SHAPE.test(m[1])) return '';
  const signedIn = session.key;
  if (!signedIn || signedIn === m[1]) {
    session.key = m[1];
    return '';
  }
  return m[1];
}
