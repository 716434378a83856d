// Summaries of posterior draws: the continuous median (type-7, as DuckDB's
// median), the mean, and highest-posterior-density intervals.
//
// An interval of mass p is the narrowest window of k = ceil(p * n) consecutive
// sorted draws, ties going to the lower bound, among the windows that contain
// the median and lie inside the next wider interval (computed from 95% down).
// Those two conditions make the intervals nested (50 in 80 in 95) and bracket
// the median by construction. For most rows the unconstrained narrowest window
// already meets them; they decide where whole-count draws tie heavily (about
// 0.3% of the fixture's rows, mostly at 50%: there the window that brackets
// the median can be wider than the narrowest) and multi-modal cases where
// HPD windows would cross. The data dictionary says so.

import { INTERVALS } from './models.js';

export interface DrawSummary {
  median: number;
  mean: number;
  /** Lower and upper bounds per interval, in the order of INTERVALS (50, 80, 95). */
  lo: number[];
  hi: number[];
}

/** Summarises draws already sorted ascending. */
export function summarizeSorted(x: ArrayLike<number>): DrawSummary {
  const n = x.length;
  const h = (n - 1) * 0.5, l = Math.floor(h);
  const median = l + 1 < n ? x[l]! + (h - l) * (x[l + 1]! - x[l]!) : x[l]!;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += x[i]!;
  const lo: number[] = new Array(INTERVALS.length), hi: number[] = new Array(INTERVALS.length);
  let L = -Infinity, U = Infinity;
  for (let j = INTERVALS.length - 1; j >= 0; j--) {
    // Integer arithmetic: ceil(pct * n / 100) without floating-point surprises.
    const k = Math.min(n, Math.max(1, Math.ceil((INTERVALS[j]! * n) / 100)));
    let best = -1, width = Infinity;
    for (let i = 0; i + k - 1 < n; i++) {
      const a = x[i]!, b = x[i + k - 1]!;
      if (a > median || b < median || a < L || b > U) continue;
      if (b - a < width) { width = b - a; best = i; }
    }
    // Always some window qualifies (one inside the wider window straddling the middle draws); kept defensive.
    lo[j] = best < 0 ? L : x[best]!;
    hi[j] = best < 0 ? U : x[best + k - 1]!;
    L = lo[j]!; U = hi[j]!;
  }
  return { median, mean: sum / n, lo, hi };
}

/**
 * The same rule as DuckDB SQL over a relation `d` with columns (keys..., pred):
 * one row per key with count_median, n_draws and the bounds of every interval.
 */
export function summarySql(draws: string, keys: string, n = 500): string {
  const k = (pct: number): number => Math.ceil((pct * n) / 100);
  const step = (pct: number, wider: number | null): string =>
    `w${pct} AS (SELECT ${keys}, pred AS lo, lead(pred, ${k(pct) - 1}) OVER (PARTITION BY ${keys} ORDER BY pred) AS hi, med FROM s), ` +
    `b${pct} AS (SELECT ${keys}, min({'width': w.hi - w.lo, 'lo': w.lo, 'hi': w.hi}) AS best FROM w${pct} w` +
    (wider === null ? '' : ` JOIN b${wider} USING (${keys})`) +
    ` WHERE w.hi IS NOT NULL AND w.lo <= w.med AND w.hi >= w.med` +
    (wider === null ? '' : ` AND w.lo >= b${wider}.best.lo AND w.hi <= b${wider}.best.hi`) +
    ` GROUP BY ALL)`;
  return (
    `WITH d AS (${draws}), m AS (SELECT ${keys}, median(pred) AS count_median, count(*) AS n_draws FROM d GROUP BY ALL), ` +
    `s AS (SELECT d.*, m.count_median AS med FROM d JOIN m USING (${keys})), ` +
    `${step(95, null)}, ${step(80, 95)}, ${step(50, 80)} ` +
    `SELECT m.*, ` + [50, 80, 95].map((p) => `b${p}.best.lo AS count_lower_${p}, b${p}.best.hi AS count_upper_${p}`).join(', ') +
    ` FROM m JOIN b95 USING (${keys}) JOIN b80 USING (${keys}) JOIN b50 USING (${keys}) ORDER BY ${keys}`
  );
}
