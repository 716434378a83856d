// The row count of a flat query, for the X-Total-Count of its bulk pulls: the
// money job's walk without its summary, its sort or its rows. Each group is
// summed into the scratch cells by the same aggregate() the money job runs
// (so the two cannot classify a row differently), and only the touched cells
// that pass the subtype filter are counted. The summary (codes, presence,
// reporting, populations) was most of a count's cost, and a CSV, Arrow or
// Parquet page carries none of it.

import type { EngineCatalog } from '../../src/finance/engine-catalog.js';
import { countable, inLifespan, type MoneyCount, type MoneyPlan } from '../../src/finance/plan.js';
import type { FinanceView } from './corpus.js';
import { aggregate, type Ctx } from './money-scan.js';
import { shapeOf } from './money-shape.js';

/**
 * The rows money(plan) would count in its total, for a countable plan (src/finance/plan.ts), and the
 * governments reporting each year (a group with a row of the query, before the subtype filter, as the
 * money job's summary counts them); offset, limit and stopAtPage are ignored.
 */
export function countRows(c: FinanceView, e: EngineCatalog, plan: MoneyPlan): MoneyCount {
  if (!countable(plan)) throw new Error('countRows: this plan needs the money job (complete, consistent, peers or dropped populations)');
  const { cells, ...shape } = shapeOf(e, plan);
  const x: Ctx = { c, e, plan, ...shape, na: { rows: 0, amount: 0 }, notSummed: { rows: 0, amount: 0 }, rowsRead: 0 };
  const Y = plan.years.length;
  const reporting: number[] = [], outsideLifespan: number[] = [];
  for (let i = 0; i < Y; i++) { reporting.push(0); outsideLifespan.push(0); }
  if (Y === 0) return { total: 0, reporting, outsideLifespan };
  const y0 = Math.min(...plan.years), y1 = Math.max(...plan.years);
  // want: the year's index in plan.years + 1 (0: not asked).
  const want = new Uint16Array(y1 - y0 + 1);
  plan.years.forEach((y, i) => { want[y - y0] = i + 1; });
  const subtype = plan.subtype, cellSub = cells.cellSub, gm = c.govMeta;
  let total = 0;
  for (const gov of new Set(plan.govs)) {
    for (let k = c.govGroupStart[gov]!, end = c.govGroupStart[gov + 1]!; k < end; k++) {
      const year = gm[4 * k + 3]! >>> 16;
      if (year < y0 || year > y1 || want[year - y0] === 0) continue;
      aggregate(x, cells, gov, year, k);
      if (cells.nTouched > 0) {
        const yi = want[year - y0]! - 1;
        reporting[yi]!++;
        if (!inLifespan(e, gov, year)) outsideLifespan[yi]!++;
      }
      if (subtype === null) { total += cells.nTouched; continue; }
      for (let t = 0; t < cells.nTouched; t++) if (cellSub[cells.touched[t]!] === subtype) total++;
    }
  }
  return { total, reporting, outsideLifespan };
}
