// A government's peer cohort: governments of the same type whose population
// in the cohort year lies within a window of [lo, hi] times the target's,
// closest first by |ln(population ratio)|, ties by canonical_govid. The
// windows widen step by step: the first holding n peers is used, so the
// largest governments (no county is within 0.7-1.3 of Los Angeles County's
// population) still get a cohort. Scans that year's groups once.

import type { EngineCatalog } from '../../src/finance/engine-catalog.js';
import type { PeersArgs, PeersResult } from '../../src/finance/job-io.js';
import type { FinanceView } from './corpus.js';

export function peers(c: FinanceView, e: EngineCatalog, a: PeersArgs): PeersResult {
  const type = e.govType[a.target]!;
  let targetPopulation = -1;
  const s = c.govGroupStart[a.target]!, t = c.govGroupStart[a.target + 1]!;
  for (let k = s; k < t; k++) if (c.gYear[c.govGroups[k]!] === a.year) targetPopulation = c.gPop[c.govGroups[k]!]!;
  if (targetPopulation <= 0) return { targetPopulation, gids: new Uint32Array(0), population: new Int32Array(0), window: 0 };
  const widest = a.windows[a.windows.length - 1]!;
  const lo = targetPopulation * widest[0], hi = targetPopulation * widest[1];
  // One scan keeps the candidates of the widest window and counts those of every window; the first holding n
  // is used (the widest when none does), and only its candidates are sorted.
  const found: { gid: number; pop: number; d: number }[] = [];
  const held = new Array<number>(a.windows.length).fill(0);
  for (let g = 0; g < c.nGroups; g++) {
    if (c.gYear[g] !== a.year) continue;
    const gid = c.gGov[g]!, pop = c.gPop[g]!;
    if (gid === a.target || e.govType[gid] !== type || pop <= 0 || pop < lo || pop > hi) continue;
    found.push({ gid, pop, d: Math.abs(Math.log(pop / targetPopulation)) });
    for (let w = 0; w < a.windows.length; w++) if (pop >= targetPopulation * a.windows[w]![0] && pop <= targetPopulation * a.windows[w]![1]) held[w]!++;
  }
  let window = held.findIndex((k) => k >= a.n);
  if (window < 0) window = a.windows.length - 1;
  const [wl, wh] = a.windows[window]!;
  const top = found.filter((f) => f.pop >= targetPopulation * wl && f.pop <= targetPopulation * wh)
    .sort((x, y) => x.d - y.d || e.govRank[x.gid]! - e.govRank[y.gid]!)
    .slice(0, a.n);
  return { targetPopulation, gids: Uint32Array.from(top, (f) => f.gid), population: Int32Array.from(top, (f) => f.pop), window };
}
