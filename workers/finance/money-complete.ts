// complete=true, on the materialized path: the cells a group lacks, added
// from the corpus's completion grid, and the group's rows put back in order.

import type { EngineCatalog } from '../../src/finance/engine-catalog.js';
import { RECIPE_SUBTYPE_ID, VS_CENSUS_ZERO, VS_NOT_REPORTED } from '../../src/finance/plan.js';
import type { GroupRow } from './money-rows.js';
import type { Ctx } from './money-scan.js';

/**
 * complete=true: every (category, subtype) cell the corpus's code set defines
 * for this government's type and year appears. An absent cell is a published
 * $0 in a dense-source year; in a sparse-source year, or in any year the
 * government did not report at all, it is unknown (NaN, never 0).
 */
export function fill(x: Ctx, gov: number, year: number, type: number, g: number, rows: GroupRow[]): number {
  const { e, plan, inScope, keepCat } = x;
  const cells = e.grid[year]?.[type];
  if (!cells) return 0;
  const have = new Set(rows.map((a) => (a.cat << 8) | a.sub));
  const vs = g >= 0 && e.censusZeroYears.includes(year) ? VS_CENSUS_ZERO : VS_NOT_REPORTED;
  let filled = 0;
  for (const cell of cells) {
    const cat = cell >> 8, sub = cell & 0xff, flow = e.categoryFlow[cat]!;
    if (!plan.flows.includes(flow) || !inScope[flow]![sub] || (keepCat !== null && keepCat[cat] !== 1) || have.has(cell)) continue;
    rows.push({ year, gov, flow, cat, sub, amt: vs === VS_CENSUS_ZERO ? 0 : Number.NaN, codes: [], flags: 0, vs, group: g });
    filled++;
  }
  return filled;
}

/** Rows of a group after fill: cells come out in output order already; only the filled-in rows need placing. */
export function orderFilled(e: EngineCatalog, rows: GroupRow[], reported: number): void {
  if (rows.length > reported && rows.length > 1) rows.sort((a, b) => a.flow - b.flow || subRank(e, a.sub) - subRank(e, b.sub) || catRank(e, a.cat) - catRank(e, b.cat));
}

const subRank = (e: EngineCatalog, sub: number): number => (sub === RECIPE_SUBTYPE_ID ? -1 : e.subtypeRank[sub]!);
export const catRank = (e: EngineCatalog, cat: number): number => (cat < 0 ? cat : e.categoryRank[cat]!);
