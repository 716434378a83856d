// Recipes where a category query comes up short: the recipes that would give
// a year with no Direct rows its rows (suggestions), and the intergovernmental
// rows whose Direct counterpart a recipe would recover (suppressed).

import type { EngineCatalog } from '../../src/finance/engine-catalog.js';
import { ROW_DIRECT_SUPPRESSED } from '../../src/finance/plan.js';
import type { FinanceView } from './corpus.js';
import type { GroupRow } from './money-rows.js';
import { scopeOk, type Ctx } from './money-scan.js';

/** The IG leg without a Direct counterpart, where a recipe would recover the Direct dollars. */
export function flagSuppressed(x: Ctx, rows: GroupRow[], g: number, year: number, type: number, out: Record<string, number[]>): void {
  const direct = new Set(rows.filter((a) => a.sub !== x.igSub).map((a) => a.cat));
  for (const a of rows) {
    if (a.sub !== x.igSub || direct.has(a.cat)) continue;
    const covering = (x.e.categoryRecipes[a.cat] ?? []).filter((ri) => covers(x.c, x.e, ri, g, year, type));
    if (covering.length === 0) continue;
    a.flags |= ROW_DIRECT_SUPPRESSED;
    out[`${year}:${a.cat}`] = covering;
  }
}

/** A requested year with no Direct rows: which recipes of the requested categories would yield rows. */
export function suggest(x: Ctx, g: number, year: number, type: number, hits: Map<number, Set<number>>): void {
  const candidates = new Set(x.plan.categories!.flatMap((cat) => x.e.categoryRecipes[cat] ?? []));
  for (const ri of candidates) {
    if (!covers(x.c, x.e, ri, g, year, type)) continue;
    let s = hits.get(ri);
    if (!s) hits.set(ri, (s = new Set()));
    s.add(year);
  }
}

/** Whether a recipe's generic join yields a row for this government-year group. */
function covers(c: FinanceView, e: EngineCatalog, ri: number, g: number, year: number, type: number): boolean {
  const r = e.recipes[ri]!;
  for (let row = c.govMeta[4 * g]! >>> 0, end = c.govMeta[4 * g + 1]! >>> 0; row < end; row++) {
    const code = c.code[row]!;
    for (let j = 0; j < r.code.length; j++) {
      if (r.code[j] === code && year >= r.yearMin[j]! && year <= r.yearMax[j]! && scopeOk(r.scope[j]!, type)) return true;
    }
  }
  return false;
}

/** Drops a suggested recipe when one that supersedes it covers at least the same years. */
export function supersede(e: EngineCatalog, hits: Map<number, Set<number>>): [number, number[]][] {
  const out: [number, number[]][] = [];
  for (const [ri, years] of hits) {
    const coveredBy = [...hits].some(([other, oy]) => other !== ri && e.supersedes[other]!.includes(ri) && [...years].every((y) => oy.has(y)));
    if (!coveredBy) out.push([ri, [...years].sort((a, b) => a - b)]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}
