// One government's presence in the corpus, year by year: rows, aggregate rows,
// and the population the long table carries. Touches only that government's
// groups (its rows are never scanned).

import { FLAG_AGGREGATE } from '../../src/finance/columns.js';
import type { GovernmentYearsArgs, GovernmentYearsResult } from '../../src/finance/job-io.js';
import type { FinanceView } from './corpus.js';

export function governmentYears(c: FinanceView, { gid }: GovernmentYearsArgs): GovernmentYearsResult {
  const s = c.govGroupStart[gid]!, e = c.govGroupStart[gid + 1]!;
  const n = e - s;
  const out: GovernmentYearsResult = {
    years: new Uint16Array(n), rows: new Uint32Array(n), aggregateRows: new Uint32Array(n),
    population: new Int32Array(n), popYear: new Uint16Array(n),
  };
  for (let k = 0; k < n; k++) {
    const g = c.govGroups[s + k]!;
    const r0 = c.gStart[g]!, r1 = c.gStart[g + 1]!;
    let agg = 0;
    for (let r = r0; r < r1; r++) agg += c.flags[r]! & FLAG_AGGREGATE;
    out.years[k] = c.gYear[g]!;
    out.rows[k] = r1 - r0;
    out.aggregateRows[k] = agg;
    out.population[k] = c.gPop[g]!;
    out.popYear[k] = c.gPopYear[g]!;
  }
  return out;
}
