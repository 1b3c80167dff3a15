// Live views: a view's refresh runs again and again while the view is
// shown, every 5 s, the wait doubling on each failure up to 60 s and back
// to 5 s after a success; a line tells when the view was last updated and,
// while the API cannot be reached, that it will try again. An outage ends
// without a reload: the next refresh that succeeds paints the view again.
// A hidden tab (another tab in front, a minimised window) does not
// refresh: a refresh that falls due while the tab is hidden waits, and
// runs as soon as the tab is shown again.
import { el } from './dom.js';
import { current } from './page.js';

export const EVERY_MS = 5000;
export const MAX_MS = 60000;

// live starts refreshing for the view of token and returns its status line
// (put it in the view). refresh() throws to report a failure.
export function live(token, refresh) {
  const line = el('p', { class: 'live muted', id: 'live', 'aria-live': 'off' });
  let updated = 0;
  let wait = EVERY_MS;
  let problem = '';
  let due = Date.now() + wait;
  const tell = () => {
    const s = Math.max(0, Math.round((Date.now() - updated) / 1000));
    const since = updated ? `Updated ${s} s ago` : 'Not updated yet';
    line.textContent = problem
      ? `${since}. The API could not be read (${problem}); trying again in ${Math.max(0, Math.round((due - Date.now()) / 1000))} s.`
      : `${since}; refreshes by itself every ${EVERY_MS / 1000} s.`;
    line.classList.toggle('stale', !!problem);
  };
  const ticker = setInterval(() => {
    if (!current(token)) { clearInterval(ticker); return; }
    tell();
  }, 1000);
  let paused = false;
  const shown = () => {
    if (!current(token)) { document.removeEventListener('visibilitychange', shown); return; }
    if (document.hidden || !paused) return;
    paused = false;
    tick();
  };
  document.addEventListener('visibilitychange', shown);
  async function tick() {
    if (!current(token)) return;
    if (document.hidden) { paused = true; return; }
    try {
      await refresh();
      updated = Date.now();
      problem = '';
      wait = EVERY_MS;
    } catch (err) {
      if (err.loggedOut) { clearInterval(ticker); return; }
      problem = err.message || String(err);
      wait = Math.min(MAX_MS, wait * 2);
    }
    if (!current(token)) return;
    due = Date.now() + wait;
    tell();
    setTimeout(tick, wait);
  }
  return {
    line,
    // start marks the view as painted now (its first read) and schedules
    // the first refresh.
    start() {
      updated = Date.now();
      due = Date.now() + wait;
      tell();
      setTimeout(tick, wait);
    },
  };
}
