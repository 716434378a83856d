// The summary of a money job, accumulated as its walk goes. Both paths of the
// walk (money.ts: counted cells, or whole row objects) report the same events
// to one SummaryAcc, so each field's rule is written once, here:
//   keeps(gov, pop)        a group with rows: false when dropNoPopulation drops it
//   present(...)           a kept group with reported rows: its codes, years, presence, reporting
//   row(...)               each reported row of a kept group, before the subtype filter
//   counted(pop, ..., n, year) the group's rows past the subtype filter (filled-in ones too)
// The path-specific fields (suggestions, suppressed recipes, rows filled) are
// kept here too, so finish() writes the whole summary in one place.
//   filled(year, n, u)     a kept group's cells filled in by completion (u of them published, not summed)

import type { EngineCatalog } from '../../src/finance/engine-catalog.js';
import { ROW_AGGREGATE, type MoneyPlan, type MoneySummary, type PeerCell } from '../../src/finance/plan.js';
import { BAL, type Cells } from './money-cells.js';
import { catRank } from './money-complete.js';
import { supersede } from './money-recipes.js';
import { scratch } from './money-scratch.js';

interface PeerValues { year: number; sub: number; cat: number; values: number[]; target: number | null }

/** Years come in walk order (ascending): a list of them only skips a repeat of its last. */
const addYear = (list: number[], year: number): void => { if (list[list.length - 1] !== year) list.push(year); };

export class SummaryAcc {
  readonly suggestHits = new Map<number, Set<number>>();
  readonly suppressedRecipes: Record<string, number[]> = {};
  rowsFilled = 0;
  /** With completion: [gov, year] of each government with no row at all in a dense (census_zero) year, flattened. */
  readonly notInSurvey: number[] = [];
  /** With completion: per dense year, the cells filled not_reported because the corpus holds rows of them not summed. */
  readonly unsummed = new Map<number, number>();
  private readonly peerTarget: number | null;
  private readonly dropNoPopulation: boolean;
  // Presence marks (this job's stamp), with the list of what was marked (folding a whole array back is what cost).
  private readonly mark = scratch.nextMark();
  private readonly codeSeen: Uint32Array;
  /** Per category, marked when it has a row this job: categoriesFound read in rank order (its year bits are this job's then). */
  private readonly catSeen: Uint32Array;
  /**
   * Per category, W words of bits by plan.years index: the years it has rows in. Missing years are then the
   * present years' bits less the category's, a few words a category, not a check of each present year.
   */
  private readonly W: number;
  private readonly catYearBits: Uint32Array;
  /** The years (by plan.years index) a kept group has reported rows in, as bits. */
  private readonly presentBits: Uint32Array;
  private readonly codesMarked: number[] = [];
  private readonly aggregateYears: number[] = [];
  /** The population years of the groups counted: a set, since a cohort's groups repeat them (every government, every year). */
  /** (fiscal year, population year) pairs as year * 10000 + popYear: which count divides which year (popYears too, at finish). */
  private readonly popYearPairs = new Set<number>();
  private readonly balanceSubs = new Set<number>();
  /** Per government (by its place in govs), the years it has rows in. */
  private readonly govYears: number[][] = [];
  /** Per government (by its place in govs), marked when it has rows: scratch, as a typed array per job cost more than its use. */
  private readonly hasRows: Uint32Array;
  // Packed, not new Array(Y): a holey array is posted to the main thread index by index (as a sparse array).
  // Pushed, not Array.from({ length: Y }, ...): that generic path cost about 2 us a job.
  private readonly reporting: number[] = [];
  private readonly popCounts = { census_f33: 0, unavailable: 0 };
  private readonly noPopulation = new Set<number>();
  private readonly peerValues = new Map<string, PeerValues>();

  /** For a job over govs, in walk order. */
  constructor(private readonly e: EngineCatalog, private readonly plan: MoneyPlan, private readonly govs: number[]) {
    const Y = plan.years.length;
    this.peerTarget = plan.peerTarget;
    this.dropNoPopulation = plan.dropNoPopulation;
    this.codeSeen = scratch.codeSeen(e.nCodes);
    this.catSeen = scratch.catSeen(e.categories.length);
    this.W = (Y + 31) >>> 5;
    this.catYearBits = scratch.catYearBits(e.categories.length * this.W);
    this.presentBits = scratch.presentBits(this.W);
    this.hasRows = scratch.hasRows(govs.length);
    for (let i = 0; i < Y; i++) this.reporting.push(0);
  }

  /** A group with rows (reported or filled in): whether it is kept, listing a government dropped for want of population. */
  keeps(gov: number, pop: number): boolean {
    if (!this.dropNoPopulation || pop > 0) return true;
    this.noPopulation.add(gov);
    return false;
  }

  /** A kept group's cells filled in by completion: n rows, unsummed of them published but not summed here. */
  filled(year: number, n: number, unsummed: number): void {
    this.rowsFilled += n;
    if (unsummed > 0) this.unsummed.set(year, (this.unsummed.get(year) ?? 0) + unsummed);
  }

  /** A kept group with reported rows (plan.govs[gi] in plan.years[yi]): every code its cells summed, and its presence. */
  present(cells: Cells, gi: number, yi: number, year: number, gov: number): void {
    const { codeSeen, mark } = this;
    for (let l = 0; l < cells.nCodeLinks; l++) {
      const code = cells.codeVal[l]!;
      if (codeSeen[code] !== mark) { codeSeen[code] = mark; this.codesMarked.push(code); }
    }
    this.presentBits[yi >>> 5]! |= 1 << (yi & 31);
    this.hasRows[gi] = this.mark;
    // Each (government, year) is walked once: a year is never a repeat.
    (this.govYears[gi] ??= []).push(year);
    if (gov !== this.peerTarget) this.reporting[yi]!++;
  }

  /** A reported row of a kept group, before the subtype filter. */
  row(yi: number, year: number, flow: number, cat: number, sub: number, flags: number, amt: number, gov: number, pop: number): void {
    if (flags & ROW_AGGREGATE) addYear(this.aggregateYears, year);
    if (flow === BAL) this.balanceSubs.add(sub);
    if (cat >= 0) {
      const W = this.W, bits = this.catYearBits;
      if (this.catSeen[cat] !== this.mark) {
        this.catSeen[cat] = this.mark;
        for (let w = cat * W; w < cat * W + W; w++) bits[w] = 0;
      }
      bits[cat * W + (yi >>> 5)]! |= 1 << (yi & 31);
    }
    if (this.peerTarget !== null && pop > 0) addPeerValue(this.peerValues, year, sub, cat, amt, gov === this.peerTarget, pop);
  }

  /** n rows of a kept group passed the subtype filter (popYear: the group's population year, when pop > 0). */
  counted(pop: number, popYear: number, n: number, year: number): void {
    if (pop > 0) {
      this.popCounts.census_f33 += n;
      if (n > 0) this.popYearPairs.add(year * 10000 + popYear);
    } else {
      this.popCounts.unavailable += n;
    }
  }

  /** The summary, once the walk is done. */
  finish(scan: { na: { rows: number; amount: number }; notSummed: { rows: number; amount: number }; rowsRead: number }, inconsistent: Set<number>): MoneySummary {
    const { e, plan, govs, mark, W, catYearBits, presentBits } = this;
    // Categories found, in rank order, and the years each lacks, read from the presence marks: building a
    // Set of years per category and filtering the present years through it cost about 25 us of an
    // all-categories answer at full scale (issue 32).
    const catsFound: number[] = [];
    const missing: [number, number[]][] = [];
    for (const cat of categoriesByRank(e)) {
      if (this.catSeen[cat] !== mark) continue;
      catsFound.push(cat);
      // The present years it lacks, ascending (the walk's order of years).
      let ys: number[] | null = null;
      for (let w = 0; w < W; w++) {
        let m = (presentBits[w]! & ~catYearBits[cat * W + w]!) >>> 0;
        while (m !== 0) {
          const low = m & -m;
          (ys ??= []).push(plan.years[w * 32 + 31 - Math.clz32(low)]!);
          m = (m ^ low) >>> 0;
        }
      }
      if (ys !== null) missing.push([cat, ys]);
    }
    const yearsPresent: [number, number[]][] = [];
    this.govYears.forEach((ys, gi) => { yearsPresent.push([govs[gi]!, ys]); });
    return {
      yearsPresent,
      categoriesFound: catsFound,
      categoriesMissing: missing,
      codesObserved: ascendingCodes(this.codesMarked),
      aggregateYears: this.aggregateYears,
      naRows: scan.na.rows,
      rowsRead: scan.rowsRead,
      naAmount: scan.na.amount,
      notSummedRows: scan.notSummed.rows,
      notSummedAmount: scan.notSummed.amount,
      suggestions: supersede(e, this.suggestHits),
      directSuppressed: Object.keys(this.suppressedRecipes).length > 0,
      suppressedRecipes: this.suppressedRecipes,
      rowsFilled: this.rowsFilled,
      notInSurvey: pairs(this.notInSurvey),
      unsummedCells: [...this.unsummed].sort((a, b) => a[0] - b[0]),
      popYears: [...new Set(Array.from(this.popYearPairs, (k) => k % 10000))].sort((a, b) => a - b),
      popYearPairs: [...this.popYearPairs].sort((a, b) => a - b),
      popCounts: this.popCounts,
      balanceSubtypes: [...this.balanceSubs],
      govsWithoutRows: govs.filter((gov, gi) => this.hasRows[gi] !== mark && !inconsistent.has(gov)),
      inconsistentGovs: [...inconsistent],
      noPopulationGovs: [...this.noPopulation],
      reporting: this.reporting,
      peerCells: plan.peerTarget === null ? [] : peerCells(this.peerValues),
    };
  }
}

/** The catalog's category ids in rank order (catRank), made once per catalog. */
let byRank: { e: EngineCatalog; order: Int32Array } | null = null;
function categoriesByRank(e: EngineCatalog): Int32Array {
  if (byRank?.e !== e) {
    const order = Int32Array.from(e.categories.keys()).sort((p, q) => catRank(e, p) - catRank(e, q));
    byRank = { e, order };
  }
  return byRank.order;
}

/**
 * Distinct codes ascending, in place: a sort with a comparator cost several microseconds for the hundreds
 * of codes of an all-categories answer; a typed array sorts numerically without one.
 */
let codeSort = new Uint16Array(256);
function ascendingCodes(list: number[]): number[] {
  const n = list.length;
  if (n < 2) return list;
  if (codeSort.length < n) codeSort = new Uint16Array(Math.max(n, 2 * codeSort.length));
  const t = codeSort.subarray(0, n);
  for (let i = 0; i < n; i++) t[i] = list[i]!;
  t.sort();
  for (let i = 0; i < n; i++) list[i] = t[i]!;
  return list;
}

/** Type-7 quantile (linear interpolation between order statistics) of sorted values. */
export function quantile(sorted: number[], p: number): number {
  const h = (sorted.length - 1) * p, lo = Math.floor(h);
  return lo + 1 < sorted.length ? sorted[lo]! + (h - lo) * (sorted[lo + 1]! - sorted[lo]!) : sorted[lo]!;
}

/** A row's per-capita dollars into its (year, subtype, category) cell: the target's own, or one more peer's. */
function addPeerValue(cells: Map<string, PeerValues>, year: number, sub: number, cat: number, amt: number, own: boolean, pop: number): void {
  const key = `${year}:${sub}:${cat}`;
  let cell = cells.get(key);
  if (!cell) cells.set(key, (cell = { year, sub, cat, values: [], target: null }));
  const v = (amt * 1000) / pop;
  if (own) cell.target = v; else cell.values.push(v);
}

/** Per (year, subtype, category) cell: peer percentiles of per-capita dollars, and the target's rank. */
function peerCells(cells: Map<string, PeerValues>): PeerCell[] {
  const out: PeerCell[] = [];
  for (const cell of cells.values()) {
    const v = cell.values.sort((p, q) => p - q);
    const t = cell.target;
    out.push({
      year: cell.year, sub: cell.sub, cat: cell.cat, n: v.length,
      p25: v.length ? quantile(v, 0.25) : Number.NaN, p50: v.length ? quantile(v, 0.5) : Number.NaN, p75: v.length ? quantile(v, 0.75) : Number.NaN,
      targetRank: t === null ? 0 : 1 + v.filter((p) => p > t).length,
    });
  }
  return out.sort((a, b) => a.year - b.year || a.sub - b.sub || a.cat - b.cat);
}

/** A flat list of pairs as [a, b] tuples, pushed one by one (packed: see reporting). */
function pairs(flat: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/** One job's summary and the plan years it walked (a block of the split plan's years). */
export interface SummaryPart { years: number[]; summary: MoneySummary }

type MergeRule<K extends keyof MoneySummary> = (parts: SummaryPart[], m: { e: EngineCatalog; plan: MoneyPlan }) => MoneySummary[K];

const sum = (k: 'naRows' | 'rowsRead' | 'naAmount' | 'rowsFilled' | 'notSummedRows' | 'notSummedAmount') => (parts: SummaryPart[]): number => parts.reduce((n, p) => n + p.summary[k], 0);
/** The distinct numbers of every part's list, ascending (how finish() writes these lists). */
const ascending = (k: 'codesObserved' | 'aggregateYears' | 'popYears' | 'popYearPairs') => (parts: SummaryPart[]): number[] =>
  [...new Set(parts.flatMap((p) => p.summary[k]))].sort((a, b) => a - b);
/** The distinct values in first-seen order: the parts are walked in the job's order, so this is the whole walk's insertion order. */
const firstSeen = (k: 'balanceSubtypes' | 'noPopulationGovs') => (parts: SummaryPart[]): number[] => [...new Set(parts.flatMap((p) => p.summary[k]))];
/** Only a part may carry what cannot be summed across parts; a plan with it is never split (run-money.ts splittable). */
const alone = <K extends 'suggestions' | 'peerCells'>(k: K): MergeRule<K> => (parts) => {
  const carrying = parts.filter((p) => p.summary[k].length > 0);
  if (carrying.length > 1) throw new Error(`mergeSummaries: ${k} of several parts cannot be merged`);
  return carrying[0]?.summary[k] ?? parts[0]!.summary[k];
};
/** The years a part found any row in (its years_present, merged over governments). */
const presentYears = (s: MoneySummary): number[] => [...new Set(s.yearsPresent.flatMap(([, ys]) => ys))];

/**
 * How each summary field of several jobs over blocks of one plan's years (runMoney's split) merges into the
 * summary the whole plan's one job writes: field by field, typed over every key of MoneySummary, so a new field
 * does not compile until it has a rule here, beside finish() that writes it. Years are disjoint across the
 * parts; the order each rule restores is finish()'s (test/money-split.test.ts compares the two, field by field).
 */
const MERGE: { [K in keyof MoneySummary]: MergeRule<K> } = {
  // Governments in walk order (plan.govs by rank; split plans have no peer target), each one's years ascending.
  yearsPresent: (parts, { e }) => {
    const byGov = new Map<number, number[]>();
    for (const p of parts) for (const [g, ys] of p.summary.yearsPresent) { const l = byGov.get(g); if (l) l.push(...ys); else byGov.set(g, [...ys]); }
    return [...byGov].sort((a, b) => e.govRank[a[0]]! - e.govRank[b[0]]!).map(([g, ys]) => [g, ys.sort((a, b) => a - b)]);
  },
  categoriesFound: (parts, { e }) => [...new Set(parts.flatMap((p) => p.summary.categoriesFound))].sort((p, q) => catRank(e, p) - catRank(e, q)),
  // A category is missing in a year some government has rows in (any part's) and the category has none:
  // within a part that found it, its own missing years; in a part that did not, all of that part's present years.
  categoriesMissing: (parts, m) => {
    const found = MERGE.categoriesFound(parts, m);
    return found.map((cat): [number, number[]] => {
      const missing = parts.flatMap((p) => (p.summary.categoriesFound.includes(cat)
        ? p.summary.categoriesMissing.find(([c]) => c === cat)?.[1] ?? []
        : presentYears(p.summary)));
      return [cat, [...new Set(missing)].sort((a, b) => a - b)];
    }).filter(([, ys]) => ys.length > 0);
  },
  codesObserved: ascending('codesObserved'),
  aggregateYears: ascending('aggregateYears'),
  naRows: sum('naRows'),
  rowsRead: sum('rowsRead'),
  naAmount: sum('naAmount'),
  notSummedRows: sum('notSummedRows'),
  notSummedAmount: sum('notSummedAmount'),
  suggestions: alone('suggestions'),
  directSuppressed: (parts) => parts.some((p) => p.summary.directSuppressed),
  // Keys are "year:category": the parts' years are disjoint, so are their keys; in walk (year) order.
  suppressedRecipes: (parts) => Object.assign({}, ...parts.map((p) => p.summary.suppressedRecipes)),
  rowsFilled: sum('rowsFilled'),
  // [gov, year] in walk order: year, then government rank.
  notInSurvey: (parts, { e }) => parts.flatMap((p) => p.summary.notInSurvey).sort((a, b) => a[1] - b[1] || e.govRank[a[0]]! - e.govRank[b[0]]!),
  unsummedCells: (parts) => {
    const by = new Map<number, number>();
    for (const p of parts) for (const [y, n] of p.summary.unsummedCells) by.set(y, (by.get(y) ?? 0) + n);
    return [...by].sort((a, b) => a[0] - b[0]);
  },
  popYears: ascending('popYears'),
  popYearPairs: ascending('popYearPairs'),
  popCounts: (parts) => ({
    census_f33: parts.reduce((n, p) => n + p.summary.popCounts.census_f33, 0),
    unavailable: parts.reduce((n, p) => n + p.summary.popCounts.unavailable, 0),
  }),
  balanceSubtypes: firstSeen('balanceSubtypes'),
  // Without rows in the whole plan: without rows in every part (each part's list is in walk order).
  govsWithoutRows: (parts) => {
    const sets = parts.slice(1).map((p) => new Set(p.summary.govsWithoutRows));
    return parts[0]!.summary.govsWithoutRows.filter((g) => sets.every((w) => w.has(g)));
  },
  // In walk order (government rank), as the first pass lists them.
  inconsistentGovs: (parts, { e }) => [...new Set(parts.flatMap((p) => p.summary.inconsistentGovs))].sort((a, b) => e.govRank[a]! - e.govRank[b]!),
  noPopulationGovs: firstSeen('noPopulationGovs'),
  // Aligned with plan.years: each year's count from the part that walked it.
  reporting: (parts, { plan }) => plan.years.map((y) => {
    const p = parts.find((q) => q.years.includes(y));
    return p === undefined ? 0 : p.summary.reporting[p.years.indexOf(y)]!;
  }),
  peerCells: alone('peerCells'),
};

/** The summary of a plan from its parts' summaries (one part: its own, as it is). */
export function mergeSummaries(e: EngineCatalog, plan: MoneyPlan, parts: SummaryPart[]): MoneySummary {
  if (parts.length === 1) return parts[0]!.summary;
  const out = {} as Record<keyof MoneySummary, unknown>;
  for (const k of Object.keys(MERGE) as (keyof MoneySummary)[]) out[k] = (MERGE[k] as MergeRule<typeof k>)(parts, { e, plan });
  return out as MoneySummary;
}
