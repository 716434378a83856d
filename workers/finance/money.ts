// The money job: spending, revenue, balances and profile rows for a set of
// governments and years, from the shared corpus.
//
// Rows come out in their final order (year, canonical_govid, flow, subtype,
// category) by walking years outermost and governments in id order inside,
// aggregating one (government, year) group at a time. Only the requested
// page is kept; rows before it are counted, rows after it only feed the
// summary. So a fleet query over millions of result rows holds one group's
// rows and one page in memory, and a government's query touches only its own
// groups.
//
// A group goes down one of two paths. The fast path counts its scratch cells
// where they lie and writes a row only when it is on the page; the
// materialized path makes row objects, for what needs a group whole
// (completion, suppressed Direct legs). Both report the same events to one
// summary accumulator (money-summary.ts), so the two cannot disagree on a
// summary field; test/money-paths.test.ts runs plans down both.
//
// Where the rest lives: the scratch cells (money-cells.ts) and their cache
// per plan shape (money-shape.ts), reading a group (money-scan.ts), the page
// and row objects (money-rows.ts), completion (money-complete.ts), recipe
// suggestions and suppressed legs (money-recipes.ts).

import { fastPath, inLifespan, VS_CENSUS_ZERO, VS_NOT_REPORTED, type MoneyPlan, type MoneyResult, type MoneyRows } from '../../src/finance/plan.js';
import type { EngineCatalog } from '../../src/finance/engine-catalog.js';
import type { FinanceView } from './corpus.js';
import type { Cells } from './money-cells.js';
import { fill, orderFilled } from './money-complete.js';
import { flagSuppressed, suggest } from './money-recipes.js';
import { materialize, RowBuilder } from './money-rows.js';
import { aggregate, prefetch, PREFETCH_GROUPS, type Ctx } from './money-scan.js';
import { scratch } from './money-scratch.js';
import { shapeOf } from './money-shape.js';
import { SummaryAcc } from './money-summary.js';

export { quantile } from './money-summary.js';

export type MoneyPath = 'fast' | 'materialized';

export function money(c: FinanceView, e: EngineCatalog, plan: MoneyPlan): MoneyResult {
  return moneyVia(c, e, plan, fastPath(plan) ? 'fast' : 'materialized');
}

/**
 * What the fast path cannot do: fill a group to the completion grid, or flag
 * intergovernmental rows against their group's Direct rows. (Peers and
 * dropped populations it can; fastPath still sends them the materialized way.)
 */
export const fastCapable = (p: MoneyPlan): boolean => !p.complete && !(p.igLeg && !p.allCategories);

/**
 * The job down a chosen path (money picks it with fastPath). The answers of
 * the two paths are the same for any plan both can run, except that only the
 * fast path stops at a full page (stopAtPage).
 */
export function moneyVia(c: FinanceView, e: EngineCatalog, plan: MoneyPlan, path: MoneyPath): MoneyResult {
  if (path === 'fast' && !fastCapable(plan)) throw new Error('money: this plan needs the materialized path (complete, or the IG leg of named categories)');
  const w = walkOf(c, e, plan);
  walk(w, path === 'fast', Number.POSITIVE_INFINITY);
  return { total: w.out.total, rows: w.out.finish(), summary: w.acc.finish(w.x, w.inconsistent) };
}

/**
 * A fast-path plan's page walked in steps, for a CSV page written as its groups are summed (money-page.ts,
 * issue 32): each step sums groups until at least `rows` page rows are held, or the walk ends, and hands those
 * rows over. The steps' rows, in order, are money()'s rows for the plan. No summary: a streamed page's
 * headers take the count from the index or the count job, and the fast path flags no row that needs one.
 * One walk at a time on a thread, its steps taken before any other job's: the scratch cells and columns it
 * sums into are the thread's (money-scratch.ts, money-shape.ts), as for any job.
 */
export interface MoneySteps {
  /** The next rows (fewer than `rows` only on the walk's last step); null once the walk has ended and all were handed over. */
  next(rows: number): MoneyRows | null;
  /** Rows counted so far: the plan's total once next has returned null. */
  total(): number;
}

export function moneySteps(c: FinanceView, e: EngineCatalog, plan: MoneyPlan): MoneySteps {
  if (!fastPath(plan)) throw new Error('money: only a fast-path plan is walked in steps');
  const w = walkOf(c, e, plan, false);
  let ended = false;
  return {
    next: (rows) => {
      if (ended) return null;
      ended = walk(w, true, rows);
      return w.out.drain();
    },
    total: () => w.out.total,
  };
}

/**
 * A job's walk, set up: its lookups, its governments and their groups, and (coverage=consistent) a first pass.
 * summing: whether the fast path reports its groups and rows to the summary (a walk in steps has none).
 */
function walkOf(c: FinanceView, e: EngineCatalog, plan: MoneyPlan, summing = true): Walk {
  // The shape's fields named, not spread: an object rest and spread cost a small job about half a microsecond.
  const { cells, igSub, wantFlow, inScope, keepCat, keys } = shapeOf(e, plan);
  const x: Ctx = { c, e, plan, igSub, wantFlow, inScope, keepCat, keys, na: { rows: 0, amount: 0 }, notSummed: { rows: 0, amount: 0 }, rowsRead: 0 };
  const govs = govsInOrder(e, plan);
  const groupOf = groupsOf(x, govs);
  if (x.keys !== null && groupOf.length <= PREFETCH_GROUPS) prefetch(x, groupOf);
  const inconsistent = plan.consistent && plan.years.length > 1 ? inconsistentGovs(x, cells, govs, groupOf) : new Set<number>();
  return { x, cells, govs, groupOf, inconsistent, acc: new SummaryAcc(e, plan, govs), out: new RowBuilder(plan.offset, plan.limit), summing, yi: 0, gi: 0 };
}

/**
 * The plan's governments in output order (the peer target first), each once. A cohort comes in that order
 * already (cohort.ts), so a check of one pass takes it as it is: sorting up to 40,000 governments on every
 * job (each page, count and split part of a national pull) cost milliseconds a job (issue 32).
 */
function govsInOrder(e: EngineCatalog, plan: MoneyPlan): number[] {
  const g = plan.govs, rank = e.govRank;
  if (plan.peerTarget === null) {
    let ordered = true;
    for (let i = 1; i < g.length && ordered; i++) ordered = rank[g[i - 1]!]! < rank[g[i]!]!;
    if (ordered) return g;
  }
  return [...new Set(g)].sort((a, b) =>
    (plan.peerTarget !== null ? Number(b === plan.peerTarget) - Number(a === plan.peerTarget) : 0) || rank[a]! - rank[b]!);
}

/** A job's walk: its lookups, the governments in output order and their groups, and where results go. */
interface Walk {
  x: Ctx;
  cells: Cells;
  govs: number[];
  /** At gi * Y + yi: the group of govs[gi] in plan.years[yi], as its place in govGroups order; -1 for none. */
  groupOf: Int32Array;
  inconsistent: Set<number>;
  acc: SummaryAcc;
  out: RowBuilder;
  /** False for a walk in steps: the fast path skips the summary's per-group and per-row bookkeeping (about 5% of a page's work). */
  summing: boolean;
  /** Where a walk in steps goes on: the next group's year and government (indices). */
  yi: number;
  gi: number;
}

/**
 * Each government's group in each requested year. A group is named by its
 * place in govGroups: its row range and population are then read from
 * govMeta, where one government's groups are adjacent (FinanceColumns.govMeta).
 */
function groupsOf(x: Ctx, govs: number[]): Int32Array {
  const { c, plan } = x;
  const years = plan.years, Y = years.length;
  // Loops, not Math.min(...years) and forEach: this runs for every job, however small.
  let y0 = Y > 0 ? years[0]! : 0, y1 = y0;
  for (let i = 1; i < Y; i++) { const y = years[i]!; if (y < y0) y0 = y; if (y > y1) y1 = y; }
  const yearIdx = scratch.yearIdx(Y > 0 ? y1 - y0 + 1 : 0);
  for (let i = 0; i < Y; i++) yearIdx[years[i]! - y0] = i;
  const groupOf = scratch.groupOf(govs.length * Y);
  const gm = c.govMeta, starts = c.govGroupStart;
  for (let gi = 0; gi < govs.length; gi++) {
    const gov = govs[gi]!;
    for (let k = starts[gov]!, end = starts[gov + 1]!; k < end; k++) {
      const yi = yearIdx[(gm[4 * k + 3]! >>> 16) - y0] ?? -1;
      if (yi >= 0) groupOf[gi * Y + yi] = k;
    }
  }
  return groupOf;
}

/** coverage=consistent needs each government's years before anything is emitted: a first, counting pass. */
function inconsistentGovs(x: Ctx, cells: Cells, govs: number[], groupOf: Int32Array): Set<number> {
  const { plan } = x;
  const Y = plan.years.length;
  const inconsistent = new Set<number>();
  govs.forEach((gov, gi) => {
    if (plan.keepGovs.includes(gov)) return;
    let years = 0;
    for (let yi = 0; yi < Y; yi++) {
      const g = groupOf[gi * Y + yi]!;
      if (g < 0) continue;
      aggregate(x, cells, gov, plan.years[yi]!, g);
      if (cells.nTouched > 0) years++;
    }
    if (years > 0 && years < Y) inconsistent.add(gov);
  });
  // The first pass only finds the governments: its counters start again for the walk that answers.
  x.na.rows = 0;
  x.na.amount = 0;
  x.notSummed.rows = 0;
  x.notSummed.amount = 0;
  return inconsistent;
}

/**
 * Every (government, year) group in output order, each summed into the scratch cells and sent down the path;
 * true once the walk has ended. A walk in steps pauses before a group once `until` page rows are held, and goes
 * on from there when called again.
 */
function walk(w: Walk, fast: boolean, until: number): boolean {
  const { x, cells, govs, groupOf, inconsistent, out } = w;
  const { e, plan } = x;
  const Y = plan.years.length, gm = x.c.govMeta;
  const pageEnd = plan.offset + plan.limit;
  const suggesting = plan.suggest && plan.categories !== null;
  const anyInconsistent = inconsistent.size > 0;
  for (let yi = w.yi, gi = w.gi; yi < Y; yi++, gi = 0) {
    const year = plan.years[yi]!;
    for (; gi < govs.length; gi++) {
      if (fast && plan.stopAtPage && out.total >= pageEnd) return true;
      if (out.held >= until) { w.yi = yi; w.gi = gi; return false; }
      const gov = govs[gi]!;
      const g = groupOf[gi * Y + yi]!;
      if (anyInconsistent && inconsistent.has(gov)) continue;
      if (g >= 0) aggregate(x, cells, gov, year, g); else cells.begin();
      const n = cells.sort();
      // A year with no Direct row of the requested categories: which recipes would give one.
      if (suggesting && g >= 0 && !cells.hasDirect(x.igSub)) suggest(x, g, year, e.govType[gov]!, w.acc.suggestHits);
      const pop = g >= 0 ? gm[4 * g + 2]! : -1;
      const popYear = g >= 0 ? gm[4 * g + 3]! & 0xffff : 0;
      if (fast) cellsGroup(w, n, gi, yi, year, gov, pop, popYear);
      else rowsGroup(w, n, gi, yi, year, gov, g, pop, popYear);
    }
  }
  return true;
}

/** The fast path: a group's n sorted cells counted where they lie; a row is written only when it is on the page. */
function cellsGroup(w: Walk, n: number, gi: number, yi: number, year: number, gov: number, pop: number, popYear: number): void {
  const { cells, acc, out, summing } = w;
  if (n === 0 || !acc.keeps(gov, pop)) return;
  if (summing) acc.present(cells, gi, yi, year, gov);
  const subtype = w.x.plan.subtype, list = cells.touched;
  let counted = 0;
  for (let k = 0; k < n; k++) {
    const cell = list[k]!;
    const sub = cells.cellSub[cell]!;
    if (summing) acc.row(yi, year, cells.cellFlow[cell]!, cells.cellCat[cell]!, sub, cells.flags[cell]!, cells.amt[cell]!, gov, pop);
    if (subtype !== null && sub !== subtype) continue;
    counted++;
    if (out.take()) out.pushCell(cells, cell, year, gov, pop);
  }
  if (summing) acc.counted(pop, popYear, counted, year);
}

/** The materialized path: a group's rows as objects, flagged, filled in and ordered whole, then counted. */
function rowsGroup(w: Walk, n: number, gi: number, yi: number, year: number, gov: number, g: number, pop: number, popYear: number): void {
  const { x, cells, acc, out } = w;
  const { e, plan } = x;
  const type = e.govType[gov]!;
  const rows = g >= 0 ? materialize(cells, n, gov, year, g, plan.complete) : [];
  if (g >= 0 && plan.igLeg && !plan.allCategories) flagSuppressed(x, rows, g, year, type, acc.suppressedRecipes);
  const reported = rows.length;
  let unsummed = 0;
  // Only a government expected that year is filled: one whose registry lifespan covers it, or that reported
  // (coverage's n_units_expected, by the same rule), so filled rows never name a government that did not exist.
  if (plan.complete && (reported > 0 || inLifespan(e, gov, year))) {
    // Not in that year's survey at all: its cells are not_reported even in a dense year (issue 22, item 2).
    // (A government with no group has no population either: where those are dropped, it is not listed.)
    if (g < 0 && !plan.dropNoPopulation && x.e.censusZeroYears.includes(year)) acc.notInSurvey.push(gov, year);
    unsummed = fill(x, gov, year, type, g, rows);
    orderFilled(e, rows, reported);
  }
  if (rows.length === 0 || !acc.keeps(gov, pop)) return;
  acc.filled(year, rows.length - reported, unsummed);
  if (reported > 0) acc.present(cells, gi, yi, year, gov);
  let counted = 0;
  for (const a of rows) {
    if (a.vs !== VS_CENSUS_ZERO && a.vs !== VS_NOT_REPORTED) acc.row(yi, year, a.flow, a.cat, a.sub, a.flags, a.amt, gov, pop);
    if (plan.subtype !== null && a.sub !== plan.subtype) continue;
    counted++;
    if (out.take()) out.push(a, pop);
  }
  acc.counted(pop, popYear, counted, year);
}
