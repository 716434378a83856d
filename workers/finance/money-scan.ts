// Reading the corpus for the money job: one (government, year) group's rows
// summed into the scratch cells, by a scan of the whole group or, for a
// harmonized query of named categories, of only those categories' runs,
// found in the key starts (src/finance/key-starts.ts). A whole group is
// scanned whole, unmapped rows and all: a government's groups lie end to end,
// and one sequential stream is what the hardware prefetcher follows (skipping
// each group's unmapped tail made all categories slower, issue 32).
//
// Semantics follow the corpus's reader (civilytics/uscogdata): Direct and
// revenue legs skip aggregate rows and, on the harmonized basis, classify by
// harmonized_code; the intergovernmental leg keeps aggregate rows (wide-era
// IG families exist only as aggregates, year-disjoint from their leaves);
// balances are always read raw; recipes sum their component codes with no
// aggregate filter inside each component's year window and type scope.

import { FLAG_AGGREGATE, NO_CODE, unmappedKey } from '../../src/finance/columns.js';
import { SCOPE_LOCAL, SCOPE_STATE, type EngineCatalog } from '../../src/finance/engine-catalog.js';
import { RECIPE_CATEGORY_ID, RECIPE_SUBTYPE_ID, type MoneyPlan } from '../../src/finance/plan.js';
import { candidatesEntry, LONG_GROUP } from '../../src/finance/key-starts.js';
import type { Cells } from './money-cells.js';
import type { FinanceView } from './corpus.js';
import type { Shape } from './money-shape.js';

/** A job's lookups and counters. */
export interface Ctx extends Omit<Shape, 'cells'> {
  c: FinanceView;
  e: EngineCatalog;
  plan: MoneyPlan;
  na: { rows: number; amount: number };
  /** Rows of holdings codes not summed (codes-not-summed.ts). */
  notSummed: { rows: number; amount: number };
  rowsRead: number;
}

export const scopeOk = (scope: number, type: number): boolean => (scope === SCOPE_STATE ? type === 0 : scope === SCOPE_LOCAL ? type >= 1 && type <= 3 : true);

/** Aggregates one (government, year) group into the scratch cells. */
export function aggregate(x: Ctx, cells: Cells, gov: number, year: number, g: number): void {
  cells.begin();
  const start = x.c.govMeta[4 * g]! >>> 0, end = x.c.govMeta[4 * g + 1]! >>> 0;
  if (x.keys === null) { scan(x, cells, gov, year, start, end); return; }
  // Only the requested categories' rows (and the unmapped ones, which the provenance counts) can
  // contribute: every other row's harmonized code maps to no cell of this plan.
  const unmapped = unmappedKey(x.e.categories.length);
  const ks = x.c.keyStart, at = g * x.c.keyStride;
  if (ks[at] !== LONG_GROUP) {
    // Each run where the load found it (key-starts.ts): nothing else of the group is read.
    for (const k of x.keys) {
      const lo = start + ks[at + k]!;
      if (k === unmapped) {
        // Read only when one of them could count (the group's last entry): all but a few thousand groups have none.
        if (ks[at + candidatesEntry(x.c.keyStride)] !== 0) scanUnmapped(x, cells, lo, end); else x.rowsRead += end - lo;
        return;
      }
      const stop = start + ks[at + k + 1]!;
      if (stop > lo) scan(x, cells, gov, year, lo, stop);
    }
    return;
  }
  searched(x, cells, gov, year, start, end);
}

/** aggregate's category runs of a group too long for the key starts' bytes, found by searching its hcode. */
function searched(x: Ctx, cells: Cells, gov: number, year: number, start: number, end: number): void {
  const { hcode } = x.c, key = x.e.codeKey;
  // The group's hcode is cold (unless prefetch ran): touching each of its cache lines first, with loads
  // that do not wait on each other, overlaps the misses that the search's dependent probes would take one by one.
  if (touchLines(hcode, start, end) < 0) return; // never: the test only keeps the loads from being optimized away
  let lo = start;
  const unmapped = unmappedKey(x.e.categories.length);
  for (const k of x.keys!) {
    lo = lowerBound(hcode, key, lo, end, k);
    // The last run, rows without a harmonized code, only counts toward the provenance's not-applicable totals.
    if (k === unmapped) { scanUnmapped(x, cells, lo, end); return; }
    let stop = lo;
    while (stop < end && key[hcode[stop]!] === k) stop++;
    if (stop > lo) scan(x, cells, gov, year, lo, stop);
    lo = stop;
  }
}

/**
 * A group's rows without a harmonized code, [start, end): what scan does with them when the plan reads only
 * named categories (see Shape.keys: harmonized, no recipe, no intergovernmental leg, no balances), where such a
 * row only adds to the not-applicable count and amount. A third of a government's rows are these, so aggregate
 * calls this only for a group whose key starts say one of them could count; this loop reads no hcode and no cell.
 */
function scanUnmapped(x: Ctx, cells: Cells, start: number, end: number): void {
  const { code: codeArr, amt: amtArr, flags: flagArr } = x.c;
  const na = cells.naUnmapped;
  x.rowsRead += end - start;
  for (let r = start; r < end; r++) {
    if (na[codeArr[r]!] && (flagArr[r]! & FLAG_AGGREGATE) === 0) { x.na.rows++; x.na.amount += amtArr[r]!; }
  }
}

/** Up to this many groups (one government's history is 56), a job touches its rows before aggregating them. */
export const PREFETCH_GROUPS = 1024;

/**
 * Loads the cache lines a category query will read, group by group but with
 * loads that do not wait on each other, so their misses overlap: a walk that
 * reads the groups in turn takes each miss alone, and the job is bound by
 * memory latency, not by its arithmetic. The first line of code, flags, amt
 * and hcode of each category run, found in the key starts (a group too long
 * for them: every line of its hcode, then its searched runs).
 */
export function prefetch(x: Ctx, groupOf: Int32Array): void {
  const { hcode, code, flags, amt, govMeta: gm, keyStart: ks, keyStride: S } = x.c, key = x.e.codeKey;
  const unmapped = unmappedKey(x.e.categories.length), flag = candidatesEntry(S);
  let touch = 0;
  for (let i = 0; i < groupOf.length; i++) {
    const g = groupOf[i]!;
    if (g < 0) continue;
    const start = gm[4 * g]! >>> 0, end = gm[4 * g + 1]! >>> 0, at = g * S;
    if (ks[at] !== LONG_GROUP) {
      for (const k of x.keys!) {
        const lo = start + ks[at + k]!;
        if (lo < end && (k < unmapped || ks[at + flag] !== 0)) touch |= code[lo]! | flags[lo]! | (amt[lo]! & 1) | hcode[lo]!;
      }
      continue;
    }
    touch |= touchLines(hcode, start, end);
    let lo = start;
    for (const k of x.keys!) {
      lo = lowerBound(hcode, key, lo, end, k);
      if (lo < end) touch |= code[lo]! | flags[lo]! | (amt[lo]! & 1);
    }
  }
  if (touch === -1) x.rowsRead--; // never (the loads are non-negative): it keeps them from being optimized away
}

/** Loads every cache line of hcode[start, end), with loads independent of each other; returns their OR. */
function touchLines(hcode: Uint16Array, start: number, end: number): number {
  let touch = 0;
  for (let r = start; r < end; r += 32) touch |= hcode[r]!;
  if (end > start) touch |= hcode[end - 1]!;
  return touch;
}

/** The first row in [lo, end) whose category key is at least k (a group's rows are sorted by it). */
function lowerBound(hcode: Uint16Array, key: Uint16Array, lo: number, end: number, k: number): number {
  let hi = end;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (key[hcode[m]!]! < k) lo = m + 1; else hi = m; }
  return lo;
}

/** Adds rows [start, end) of a group to the scratch cells. */
function scan(x: Ctx, cells: Cells, gov: number, year: number, start: number, end: number): void {
  const { c, e, plan } = x;
  const type = e.govType[gov]!;
  const recipe = plan.recipe === null ? null : e.recipes[plan.recipe]!;
  const codeArr = c.code, hcode = c.hcode, amtArr = c.amt, flagArr = c.flags;
  const harmonized = plan.harmonized;
  x.rowsRead += end - start;
  for (let r = start; r < end; r++) {
    const code = codeArr[r]!;
    const aggregate = (flagArr[r]! & FLAG_AGGREGATE) !== 0;
    if (recipe !== null) {
      for (let j = 0; j < recipe.code.length; j++) {
        if (recipe.code[j] !== code || year < recipe.yearMin[j]! || year > recipe.yearMax[j]! || !scopeOk(recipe.scope[j]!, type)) continue;
        cells.add(cells.encode(0, RECIPE_CATEGORY_ID, RECIPE_SUBTYPE_ID), code, amtArr[r]! * recipe.weight[j]!, false);
      }
      continue;
    }
    if (cells.isIG[code]) {
      // The intergovernmental leg: membership by the published code, aggregates kept.
      if (!plan.igLeg) continue;
      const h = hcode[r]!;
      const eff = harmonized && h !== NO_CODE ? h : code;
      const cell = cells.igCell[eff]!;
      if (cell >= 0) cells.add(cell, eff, amtArr[r]!, aggregate);
      continue;
    }
    if (aggregate) continue;
    if (cells.isBal[code]) {
      // Holdings are read raw on either basis: the harmonization map has no balance codes.
      const cell = cells.balCell[code]!;
      if (cell >= 0 && year >= e.codeNotSummedFrom[code]!) { x.notSummed.rows++; x.notSummed.amount += amtArr[r]!; continue; }
      if (cell >= 0) cells.add(cell, code, amtArr[r]!, false);
      continue;
    }
    let eff = code;
    if (harmonized) {
      eff = hcode[r]!;
      if (eff === NO_CODE) {
        if (cells.naEligible[code]) { x.na.rows++; x.na.amount += amtArr[r]!; }
        continue;
      }
    }
    const cell = cells.directCell[eff]!;
    if (cell >= 0) cells.add(cell, eff, amtArr[r]!, false);
  }
}
