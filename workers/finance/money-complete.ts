// complete=true, on the materialized path: the cells a group lacks, added
// from the corpus's completion grid, and the group's rows put back in order.

import type { EngineCatalog } from '../../src/finance/engine-catalog.js';
import { ALL_CATEGORIES_ID, RECIPE_SUBTYPE_ID, VS_CENSUS_ZERO, VS_NOT_REPORTED } from '../../src/finance/plan.js';
import type { GroupRow } from './money-rows.js';
import type { Ctx } from './money-scan.js';

/**
 * complete=true: every (category, subtype) cell the corpus's code set defines
 * for this government's type and year appears. An absent cell is a published
 * $0 in a dense-source year; in a sparse-source year, or in any year the
 * government did not report at all, it is unknown (NaN, never 0). So is a
 * cell of a dense year for which the group holds rows that this answer does
 * not sum: codes harmonization discontinues (counted in na_rows_excluded) or
 * an aggregate family total alone (IG State's C89 through FY2011). The Census
 * published an amount there; a $0 would contradict it (an audit of
 * 2026-11-28 found California's Other Education 2011, $4.8 billion, served
 * as census_zero $0).
 */
/**
 * Returns how many of the filled cells are such published-not-summed ones; the caller counts
 * them (and the rows filled) only for a group the answer keeps.
 */
export function fill(x: Ctx, gov: number, year: number, type: number, g: number, rows: GroupRow[]): number {
  const { e, plan, inScope, keepCat } = x;
  const cells = e.grid[year]?.[type];
  if (!cells) return 0;
  const have = new Set(rows.map((a) => (a.cat << 8) | a.sub));
  const dense = g >= 0 && e.censusZeroYears.includes(year);
  const published = dense ? publishedCells(x, g) : null;
  let unsummed = 0;
  if (plan.allCategories) return fillAll(x, gov, year, g, cells, rows, dense ? published : null);
  for (const cell of cells) {
    const cat = cell >> 8, sub = cell & 0xff, flow = e.categoryFlow[cat]!;
    if (!plan.flows.includes(flow) || !inScope[flow]![sub] || (keepCat !== null && keepCat[cat] !== 1) || have.has(cell)) continue;
    const vs = dense && !published!.has(cell) ? VS_CENSUS_ZERO : VS_NOT_REPORTED;
    if (dense && vs === VS_NOT_REPORTED) unsummed++;
    rows.push({ year, gov, flow, cat, sub, amt: vs === VS_CENSUS_ZERO ? 0 : Number.NaN, codes: [], flags: 0, vs, group: g });
  }
  return unsummed;
}

/**
 * The same for All Categories, whose rows are one per subtype summed over the categories: a subtype the grid
 * defines for this type and year (in some category of the plan's flows and scope) and the group has no row of
 * is filled. In a dense year it is a census $0 only when no category's cell of it was published (every one
 * was a $0, so is their sum); when one was, and none was summed, it is not_reported, as that cell is by name.
 */
function fillAll(x: Ctx, gov: number, year: number, g: number, cells: readonly number[], rows: GroupRow[], published: Set<number> | null): number {
  const { e, plan, inScope } = x;
  const have = new Set(rows.map((a) => a.sub));
  // Per subtype not summed here: its flow, and whether a cell of it was published in this (dense) year.
  const lacking = new Map<number, { flow: number; published: boolean }>();
  for (const cell of cells) {
    const cat = cell >> 8, sub = cell & 0xff, flow = e.categoryFlow[cat]!;
    if (!plan.flows.includes(flow) || !inScope[flow]![sub] || have.has(sub)) continue;
    const was = lacking.get(sub);
    const pub = published !== null && published.has(cell);
    if (was === undefined) lacking.set(sub, { flow, published: pub });
    else if (pub) was.published = true;
  }
  let unsummed = 0;
  for (const [sub, { flow, published: pub }] of lacking) {
    const vs = published !== null && !pub ? VS_CENSUS_ZERO : VS_NOT_REPORTED;
    if (published !== null && vs === VS_NOT_REPORTED) unsummed++;
    rows.push({ year, gov, flow, cat: ALL_CATEGORIES_ID, sub, amt: vs === VS_CENSUS_ZERO ? 0 : Number.NaN, codes: [], flags: 0, vs, group: g });
  }
  return unsummed;
}

/** The (category, subtype) cells of the published codes of group g's rows, summed or not. */
function publishedCells(x: Ctx, g: number): Set<number> {
  const { code } = x.c, { codeCat, codeSub } = x.e;
  const out = new Set<number>();
  for (let r = x.c.govMeta[4 * g]! >>> 0, end = x.c.govMeta[4 * g + 1]! >>> 0; r < end; r++) {
    const k = code[r]!;
    if (codeCat[k]! >= 0) out.add((codeCat[k]! << 8) | codeSub[k]!);
  }
  return out;
}

/** Rows of a group after fill: cells come out in output order already; only the filled-in rows need placing. */
export function orderFilled(e: EngineCatalog, rows: GroupRow[], reported: number): void {
  if (rows.length > reported && rows.length > 1) rows.sort((a, b) => a.flow - b.flow || subRank(e, a.sub) - subRank(e, b.sub) || catRank(e, a.cat) - catRank(e, b.cat));
}

const subRank = (e: EngineCatalog, sub: number): number => (sub === RECIPE_SUBTYPE_ID ? -1 : e.subtypeRank[sub]!);
export const catRank = (e: EngineCatalog, cat: number): number => (cat < 0 ? cat : e.categoryRank[cat]!);
