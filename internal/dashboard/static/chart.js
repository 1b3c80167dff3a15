// chart draws stats buckets as bars stacked by outcome, with the totals as
// the caption and each bar's counts as its tooltip. The bars count
// attempts (by the status each left its delivery in); the caption adds the
// deliveries, which a retried delivery counts once.
import { count, el, pad, svg } from './dom.js';
import { ATTEMPT_OUTCOMES } from './vocabulary.js';

// counts tells a bucket's (or the totals') count of each outcome:
// "3 delivered, 1 retrying, 0 dead".
const counts = b => ATTEMPT_OUTCOMES.map(o => `${b[o]} ${o}`).join(', ');
const sum = b => ATTEMPT_OUTCOMES.reduce((n, o) => n + b[o], 0);

export function chart(title, stats, unit) {
  const W = 720, H = 190, top = 10, bottom = 24, left = 34, right = 6;
  const buckets = stats.buckets;
  const max = Math.max(1, ...buckets.map(sum));
  const scale = (H - top - bottom) / max;
  const step = (W - left - right) / buckets.length;
  const s = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}: ${counts(stats.totals)}` });
  for (const v of new Set([0, Math.round(max / 2), max])) {
    const y = H - bottom - v * scale;
    s.append(svg('line', { x1: left, x2: W - right, y1: y, y2: y, class: 'gridline' }),
      svg('text', { x: left - 4, y: y + 4, 'text-anchor': 'end', class: 'axis' }, String(v)));
  }
  buckets.forEach((b, i) => {
    const x = left + i * step + step * 0.12;
    let y = H - bottom;
    const g = svg('g', {}, svg('title', {}, `${b.start}: ${counts(b)}`));
    for (const o of ATTEMPT_OUTCOMES) {
      const h = b[o] * scale;
      if (h > 0) {
        y -= h;
        g.append(svg('rect', { x, y, width: step * 0.76, height: h, class: 'bar-' + o }));
      }
    }
    s.append(g);
    const every = unit === 'hour' ? 6 : 3;
    if (i % every === 0) {
      const d = new Date(b.start);
      // An hour bucket starts on a UTC hour: in local time, with its minutes
      // (half-hour zones). A day bucket is a UTC day: labelled by its UTC date.
      const label = unit === 'hour' ? `${pad(d.getHours())}:${pad(d.getMinutes())}` : `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
      s.append(svg('text', { x: x + step * 0.38, y: H - 6, 'text-anchor': 'middle', class: 'axis' }, label));
    }
  });
  return el('figure', { class: 'chart' },
    el('figcaption', {}, `${title}: ${counts(stats.totals)} attempts; ${count(stats.totals.deliveries, 'delivery', 'deliveries')}`),
    s,
    el('div', { class: 'legend', 'aria-hidden': 'true' }, ATTEMPT_OUTCOMES.map(o => el('span', { class: 'l-' + o }, o))));
}

// successRate is the share of attempts counted as delivered (attempts, not
// deliveries: a delivery tried five times is five of them).
export function successRate(t, delivered) {
  if (!t) return '—';
  const all = sum(t);
  return all === 0 ? 'no attempts' : `${(100 * t[delivered] / all).toFixed(1)} % of ${count(all, 'attempt', 'attempts')}`;
}
