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
// Semantics follow the corpus's reader (civilytics/uscogdata): Direct and
// revenue legs skip aggregate rows and, on the harmonized basis, classify by
// harmonized_code; the intergovernmental leg keeps aggregate rows (wide-era
// IG families exist only as aggregates, year-disjoint from their leaves);
// balances are always read raw; recipes sum their component codes with no
// aggregate filter inside each component's year window and type scope.

import { FLAG_AGGREGATE, NO_CODE } from '../../src/finance/columns.js';
import { FLOW_ID, SCOPE_LOCAL, SCOPE_STATE, type EngineCatalog } from '../../src/finance/engine-catalog.js';
import {
  ALL_CATEGORIES_ID, RECIPE_CATEGORY_ID, RECIPE_SUBTYPE_ID, ROW_AGGREGATE, ROW_DIRECT_SUPPRESSED,
  VS_CENSUS_ZERO, VS_NONE, VS_NOT_REPORTED, VS_REPORTED, fastPath, rowsOf,
  type MoneyPlan, type MoneyResult, type MoneyRows, type PeerCell,
} from '../../src/finance/plan.js';
import type { FinanceView } from './corpus.js';

interface Acc {
  year: number;
  gov: number;
  flow: number;
  cat: number;
  sub: number;
  amt: number;
  codes: number[];
  flags: number;
  vs: number;
  /** The group, as its index in govGroups order (govMeta); -1 for a filled-in year without one. */
  group: number;
}

const EXP = FLOW_ID.expenditure, REV = FLOW_ID.revenue, BAL = FLOW_ID.balance;

/** What a plan's classification means in lookups: the same for every plan of one shape (shapeOf). */
interface Shape {
  igSub: number;
  wantFlow: Uint8Array;
  inScope: Uint8Array[];
  keepCat: Uint8Array | null;
  /** In-group category keys to visit, ascending (EngineCatalog.codeKey); null: scan whole groups. */
  keys: number[] | null;
  cells: Cells;
}

/** A job's lookups and counters. */
interface Ctx extends Omit<Shape, 'cells'> {
  c: FinanceView;
  e: EngineCatalog;
  plan: MoneyPlan;
  na: { rows: number; amount: number };
  rowsRead: number;
}

export function money(c: FinanceView, e: EngineCatalog, plan: MoneyPlan): MoneyResult {
  const { cells, ...shape } = shapeOf(e, plan);
  const x: Ctx = { c, e, plan, ...shape, na: { rows: 0, amount: 0 }, rowsRead: 0 };
  // Governments in output order (the peer target first), and their group for each requested year.
  const govs = [...new Set(plan.govs)].sort((a, b) =>
    (plan.peerTarget !== null ? Number(b === plan.peerTarget) - Number(a === plan.peerTarget) : 0) || e.govRank[a]! - e.govRank[b]!);
  const Y = plan.years.length;
  // A group is named by its place in govGroups: its row range and population are then read from
  // govMeta, where one government's groups are adjacent (see FinanceColumns.govMeta).
  const y0 = Y > 0 ? Math.min(...plan.years) : 0;
  const yearIdx = scratch.yearIdx(Y > 0 ? Math.max(...plan.years) - y0 + 1 : 0);
  plan.years.forEach((y, i) => { yearIdx[y - y0] = i; });
  const groupOf = scratch.groupOf(govs.length * Y);
  const gm = c.govMeta;
  govs.forEach((gov, gi) => {
    for (let k = c.govGroupStart[gov]!, end = c.govGroupStart[gov + 1]!; k < end; k++) {
      const yi = yearIdx[(gm[4 * k + 3]! >>> 16) - y0] ?? -1;
      if (yi >= 0) groupOf[gi * Y + yi] = k;
    }
  });

  if (x.keys !== null && groupOf.length <= PREFETCH_GROUPS) prefetch(x, groupOf);

  // coverage=consistent needs each government's years before anything is emitted: a first, counting pass.
  const inconsistent = new Set<number>();
  if (plan.consistent && Y > 1) {
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
    x.na.rows = 0;
    x.na.amount = 0;
  }

  const out = new RowBuilder();
  let total = 0;
  // Presence marks of the fast path (this job's stamp), with the list of what was marked (folding a whole array back is what cost).
  const mark = scratch.nextMark();
  const codeSeen = scratch.codeSeen(e.nCodes), catYearSeen = scratch.catYearSeen(e.categories.length * Y);
  const codesMarked: number[] = [], catYearsMarked: number[] = [];
  const fast = fastPath(plan);
  // Per government (by its place in govs), the years it has rows in: walked in order, so a repeat is always the last.
  const govYears: number[][] = [];
  const hasRows = new Uint8Array(govs.length);
  // Years come in walk order (ascending): aggregateYears and presentYears only skip a repeat of their last.
  const codes = new Set<number>(), aggregateYears: number[] = [], balanceSubs = new Set<number>(), popYears: number[] = [];
  const catYears = new Map<number, Set<number>>();
  const presentYears: number[] = [];
  const addYear = (list: number[], year: number): void => { if (list[list.length - 1] !== year) list.push(year); };
  const suggestHits = new Map<number, Set<number>>();
  const suppressedRecipes: Record<string, number[]> = {};
  const noPopulation = new Set<number>();
  // Packed, not new Array(Y): a holey array is posted to the main thread index by index (as a sparse array).
  // Pushed, not Array.from({ length: Y }, ...): that generic path cost about 2 us a job.
  const reporting: number[] = [];
  for (let i = 0; i < Y; i++) reporting.push(0);
  const popCounts = { census_f33: 0, unavailable: 0 };
  const peerValues = new Map<string, { year: number; sub: number; cat: number; values: number[]; target: number | null }>();
  let rowsFilled = 0;

  const pageEnd = plan.offset + plan.limit;
  walk: for (let yi = 0; yi < Y; yi++) {
    const year = plan.years[yi]!;
    for (let gi = 0; gi < govs.length; gi++) {
      if (fast && plan.stopAtPage && total >= pageEnd) break walk;
      const gov = govs[gi]!;
      const g = groupOf[gi * Y + yi]!;
      if (inconsistent.has(gov)) continue;
      if (g >= 0) aggregate(x, cells, gov, year, g); else cells.begin();
      const type = e.govType[gov]!;
      if (fast) {
        // Most rows of a fleet query only count: no row object unless it is on the page.
        const nList = cells.sort(), list = cells.touched;
        if (plan.suggest && g >= 0 && plan.categories !== null) {
          // A year with no Direct row of the requested categories: which recipes would give one.
          let direct = false;
          for (let k = 0; k < nList && !direct; k++) direct = cells.cellSub[list[k]!] !== x.igSub;
          if (!direct) suggest(x, g, year, type, suggestHits);
        }
        if (nList === 0) continue;
        const pop = g >= 0 ? gm[4 * g + 2]! : -1;
        let counted = 0;
        for (let k = 0; k < nList; k++) {
          const cell = list[k]!;
          const flow = cells.cellFlow[cell]!, cat = cells.cellCat[cell]!, sub = cells.cellSub[cell]!;
          if (cells.flags[cell]! & ROW_AGGREGATE) addYear(aggregateYears, year);
          if (flow === BAL) balanceSubs.add(sub);
          if (cat >= 0 && catYearSeen[cat * Y + yi] !== mark) { catYearSeen[cat * Y + yi] = mark; catYearsMarked.push(cat * Y + yi); }
          if (plan.subtype !== null && sub !== plan.subtype) continue;
          counted++;
          if (total >= plan.offset && total < plan.offset + plan.limit) {
            out.pushCell(cells, cell, year, gov, pop);
          }
          total++;
        }
        // Every code a row of this group summed: the group's code stamps say which.
        for (let l = 0; l < cells.nCodeLinks; l++) {
          const code = cells.codeVal[l]!;
          if (codeSeen[code] !== mark) { codeSeen[code] = mark; codesMarked.push(code); }
        }
        if (pop > 0) { popCounts.census_f33 += counted; if (counted) popYears.push(gm[4 * g + 3]! & 0xffff); } else popCounts.unavailable += counted;
        addYear(presentYears, year);
        hasRows[gi] = 1;
        (govYears[gi] ??= []).push(year);
        if (gov !== plan.peerTarget) reporting[yi]!++;
        continue;
      }
      const rows = g >= 0 ? materialize(cells, cells.sort(), gov, year, g, plan.complete) : [];
      if (g >= 0) {
        if (plan.igLeg && !plan.allCategories) flagSuppressed(x, rows, g, year, type, suppressedRecipes);
        if (plan.suggest && plan.categories !== null && !rows.some((a) => a.sub !== x.igSub)) suggest(x, g, year, type, suggestHits);
      }
      const reported = rows.length;
      if (plan.complete) rowsFilled += fill(x, gov, year, type, g, rows);
      // Cells come out in output order already; only the filled-in rows need placing.
      if (rows.length > reported && rows.length > 1) rows.sort((a, b) => a.flow - b.flow || subRank(e, a.sub) - subRank(e, b.sub) || catRank(e, a.cat) - catRank(e, b.cat));

      let contributed = false;
      for (const a of rows) {
        const pop = a.group >= 0 ? gm[4 * a.group + 2]! : -1;
        if (plan.dropNoPopulation && pop <= 0) { noPopulation.add(gov); continue; }
        const isReported = a.vs !== VS_CENSUS_ZERO && a.vs !== VS_NOT_REPORTED;
        if (isReported) {
          for (const code of a.codes) codes.add(code);
          if (a.flags & ROW_AGGREGATE) addYear(aggregateYears, year);
          if (a.flow === BAL) balanceSubs.add(a.sub);
          if (a.cat >= 0) { let s = catYears.get(a.cat); if (!s) catYears.set(a.cat, (s = new Set())); s.add(year); }
          addYear(presentYears, year);
          if (!hasRows[gi]) hasRows[gi] = 1;
          addYear((govYears[gi] ??= []), year);
        }
        if (plan.peerTarget !== null && isReported && pop > 0) addPeerValue(peerValues, a, pop, plan.peerTarget);
        contributed = true;
        if (plan.subtype !== null && a.sub !== plan.subtype) continue;
        if (pop > 0) { popCounts.census_f33++; popYears.push(gm[4 * a.group + 3]! & 0xffff); } else popCounts.unavailable++;
        if (total >= plan.offset && total < plan.offset + plan.limit) out.push(a, pop);
        total++;
      }
      if (contributed && reported > 0 && gov !== plan.peerTarget) reporting[yi]!++;
    }
  }

  // The fast path kept its presence marks in typed arrays; fold them into the same sets.
  for (const code of codesMarked) codes.add(code);
  for (const k of catYearsMarked) {
    const cat = Math.floor(k / Y);
    let set = catYears.get(cat);
    if (!set) catYears.set(cat, (set = new Set()));
    set.add(plan.years[k % Y]!);
  }
  const catsFound = [...catYears.keys()].sort((p, q) => catRank(e, p) - catRank(e, q));
  const present = presentYears;
  const yearsPresent: [number, number[]][] = [];
  govYears.forEach((ys, gi) => { yearsPresent.push([govs[gi]!, ys]); });
  return {
    total,
    rows: out.finish(),
    summary: {
      yearsPresent,
      categoriesFound: catsFound,
      categoriesMissing: catsFound.map((cat): [number, number[]] => [cat, present.filter((y) => !catYears.get(cat)!.has(y))]).filter(([, ys]) => ys.length > 0),
      codesObserved: [...codes].sort((p, q) => p - q),
      aggregateYears,
      naRows: x.na.rows,
      rowsRead: x.rowsRead,
      naAmount: x.na.amount,
      suggestions: supersede(e, suggestHits),
      directSuppressed: Object.keys(suppressedRecipes).length > 0,
      suppressedRecipes,
      rowsFilled,
      popYears: sortedUnique(popYears),
      popCounts,
      balanceSubtypes: [...balanceSubs],
      govsWithoutRows: govs.filter((gov, gi) => !hasRows[gi] && !inconsistent.has(gov)),
      inconsistentGovs: [...inconsistent],
      noPopulationGovs: [...noPopulation],
      reporting,
      peerCells: plan.peerTarget === null ? [] : peerCells(peerValues),
    },
  };
}

/**
 * Per-plan lookups that fold every rule of a row's classification (flow,
 * concept scope, category filter, basis) into one cell id per code, and the
 * scratch the aggregation accumulates into: no Map and no object per row.
 */
class Cells {
  readonly nSub: number;
  readonly nCatSlots: number;
  readonly isIG: Uint8Array;
  readonly isBal: Uint8Array;
  readonly naEligible: Uint8Array;
  /** Cell of a code (the effective code on the harmonized basis) in each leg; -1 when the plan excludes it. */
  readonly igCell: Int32Array;
  readonly balCell: Int32Array;
  readonly directCell: Int32Array;
  /** Per cell: its flow, category and subtype (cell ids are in output order, so a plain numeric sort orders rows). */
  readonly cellFlow: Uint8Array;
  readonly cellCat: Int16Array;
  readonly cellSub: Uint8Array;
  private readonly subSlot: Int32Array;
  private readonly catSlot: Int32Array;
  readonly amt: Float64Array;
  readonly flags: Uint8Array;
  readonly stamp: Int32Array;
  readonly codeHead: Int32Array;
  readonly codeSeen: Int32Array;
  codeNext = new Int32Array(1024);
  codeVal = new Uint16Array(1024);
  nCodeLinks = 0;
  touched = new Int32Array(256);
  nTouched = 0;
  cur = 0;

  constructor(e: EngineCatalog, plan: MoneyPlan, { igSub, wantFlow, inScope, keepCat }: Omit<Shape, 'cells' | 'keys'>) {
    const nCodes = e.nCodes;
    this.nSub = e.subtypes.length + 1;
    this.nCatSlots = e.categories.length + 2;
    const nCells = 4 * this.nCatSlots * this.nSub;
    this.amt = new Float64Array(nCells); this.flags = new Uint8Array(nCells); this.stamp = new Int32Array(nCells).fill(-1);
    this.codeHead = new Int32Array(nCells); this.codeSeen = new Int32Array(nCodes).fill(-1);
    // Slots follow the output order: recipe subtype first, then subtypes by name; negative categories first, then by name.
    this.subSlot = new Int32Array(this.nSub);
    e.subtypes.forEach((_, sub) => { this.subSlot[sub] = e.subtypeRank[sub]! + 1; });
    this.subSlot[this.nSub - 1] = 0;
    this.catSlot = new Int32Array(this.nCatSlots);
    this.catSlot[0] = 0; this.catSlot[1] = 1;
    e.categories.forEach((_, cat) => { this.catSlot[cat + 2] = e.categoryRank[cat]! + 2; });
    this.cellFlow = new Uint8Array(nCells); this.cellCat = new Int16Array(nCells); this.cellSub = new Uint8Array(nCells);
    for (let flow = 0; flow < 4; flow++) {
      for (let sub = 0; sub < this.nSub; sub++) {
        for (let c = 0; c < this.nCatSlots; c++) {
          const realSub = sub === this.nSub - 1 ? RECIPE_SUBTYPE_ID : sub;
          const cell = this.encode(flow, c - 2, realSub);
          this.cellFlow[cell] = flow; this.cellCat[cell] = c - 2; this.cellSub[cell] = realSub;
        }
      }
    }
    this.isIG = new Uint8Array(nCodes); this.isBal = new Uint8Array(nCodes); this.naEligible = new Uint8Array(nCodes);
    this.igCell = new Int32Array(nCodes).fill(-1); this.balCell = new Int32Array(nCodes).fill(-1); this.directCell = new Int32Array(nCodes).fill(-1);
    const catOk = (cat: number): boolean => keepCat === null || (cat >= 0 && keepCat[cat] === 1);
    const catOf = (cat: number): number => (plan.allCategories ? ALL_CATEGORIES_ID : cat);
    for (let code = 0; code < nCodes; code++) {
      const flow = e.codeFlow[code]!, sub = e.codeSub[code]!, cat = e.codeCat[code]!;
      if (flow === EXP && sub === igSub) this.isIG[code] = 1;
      if (flow === BAL) this.isBal[code] = 1;
      if (flow !== 0 && wantFlow[flow] && sub >= 0 && inScope[flow]![sub] && flow !== BAL) this.naEligible[code] = 1;
      // The IG leg, by the effective code: expenditure, in the concept's scope (which holds intergovernmental under total).
      if (plan.igLeg && wantFlow[EXP] && flow === EXP && sub >= 0 && inScope[EXP]![sub] && catOk(cat)) this.igCell[code] = this.encode(EXP, catOf(cat), sub);
      if (flow === BAL && wantFlow[BAL] && inScope[BAL]![sub] && catOk(cat)) this.balCell[code] = this.encode(BAL, catOf(cat), sub);
      if ((flow === EXP || flow === REV) && wantFlow[flow] && sub >= 0 && inScope[flow]![sub] && !(flow === EXP && sub === igSub) && catOk(cat)) {
        this.directCell[code] = this.encode(flow, catOf(cat), sub);
      }
    }
  }

  encode(flow: number, cat: number, sub: number): number {
    const subSlot = this.subSlot[sub === RECIPE_SUBTYPE_ID ? this.nSub - 1 : sub]!;
    return (flow * this.nSub + subSlot) * this.nCatSlots + this.catSlot[cat + 2]!;
  }

  decode(cell: number): { flow: number; cat: number; sub: number } {
    return { flow: this.cellFlow[cell]!, cat: this.cellCat[cell]!, sub: this.cellSub[cell]! };
  }

  begin(): void {
    this.cur++;
    this.nTouched = 0;
    this.nCodeLinks = 0;
  }

  add(cell: number, code: number, amt: number, aggregate: boolean): void {
    if (this.stamp[cell] !== this.cur) {
      this.stamp[cell] = this.cur;
      this.amt[cell] = 0; this.flags[cell] = 0; this.codeHead[cell] = -1;
      if (this.nTouched === this.touched.length) { const t = new Int32Array(this.touched.length * 2); t.set(this.touched); this.touched = t; }
      this.touched[this.nTouched++] = cell;
    }
    this.amt[cell]! += amt;
    if (aggregate) this.flags[cell] = ROW_AGGREGATE;
    // A code lands in one cell per group, so one stamp per code dedupes its listing.
    if (this.codeSeen[code] !== this.cur) {
      this.codeSeen[code] = this.cur;
      if (this.nCodeLinks === this.codeNext.length) {
        const n = new Int32Array(this.codeNext.length * 2); n.set(this.codeNext); this.codeNext = n;
        const v = new Uint16Array(this.codeVal.length * 2); v.set(this.codeVal); this.codeVal = v;
      }
      const k = this.nCodeLinks++;
      this.codeVal[k] = code; this.codeNext[k] = this.codeHead[cell]!; this.codeHead[cell] = k;
    }
  }

  /**
   * Sorts the touched cells into output order (flow, subtype, category), in
   * place: touched[0..n) then lists them. A group touches a handful, which an
   * insertion sort orders for less than a TypedArray#sort call and its
   * subarray cost; a cell of every category can touch hundreds.
   */
  sort(): number {
    const n = this.nTouched, t = this.touched;
    if (n > 16) { t.subarray(0, n).sort(); return n; }
    for (let i = 1; i < n; i++) {
      const v = t[i]!;
      let j = i;
      for (; j > 0 && t[j - 1]! > v; j--) t[j] = t[j - 1]!;
      t[j] = v;
    }
    return n;
  }

  codesOf(cell: number): number[] {
    const out: number[] = [];
    for (let k = this.codeHead[cell]!; k >= 0; k = this.codeNext[k]!) out.push(this.codeVal[k]!);
    return out;
  }
}

/**
 * A plan's lookups and scratch cells depend only on how it classifies rows; a
 * worker keeps the last few shapes (jobs run one at a time, so scratch is
 * never shared). Building them is most of a small job's cost.
 */
const shapes = new Map<string, Shape>();
let last: { plan: MoneyPlan; e: EngineCatalog; shape: Shape } | null = null;
function shapeOf(e: EngineCatalog, p: MoneyPlan): Shape {
  // Traffic repeats shapes: comparing with the last plan's fields costs less than building the key.
  if (last !== null && last.e === e && sameShape(last.plan, p)) return last.shape;
  const shape = keyedShape(e, p);
  last = { plan: p, e, shape };
  return shape;
}

const sameList = (a: readonly number[] | null | undefined, b: readonly number[] | null | undefined): boolean => {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};
const sameShape = (a: MoneyPlan, b: MoneyPlan): boolean =>
  a.allCategories === b.allCategories && a.harmonized === b.harmonized && a.igLeg === b.igLeg && a.recipe === b.recipe &&
  sameList(a.flows, b.flows) && sameList(a.categories, b.categories) &&
  sameList(a.scope[0], b.scope[0]) && sameList(a.scope[1], b.scope[1]) && sameList(a.scope[2], b.scope[2]) && sameList(a.scope[3], b.scope[3]);

function keyedShape(e: EngineCatalog, p: MoneyPlan): Shape {
  // Every field sameShape compares, and only those (inScope reads the scope of flow ids 0-3).
  const key = `${p.flows}|${p.scope[0]}|${p.scope[1]}|${p.scope[2]}|${p.scope[3]}|${p.categories}|${p.allCategories}|${p.harmonized}|${p.igLeg}|${p.recipe}|${e.nCodes}`;
  let shape = shapes.get(key);
  if (shape) return shape;
  const wantFlow = new Uint8Array(4);
  for (const f of p.flows) wantFlow[f] = 1;
  const keepCat = p.categories === null ? null : new Uint8Array(e.categories.length);
  if (keepCat) for (const id of p.categories!) keepCat[id] = 1;
  const inScope = [0, 1, 2, 3].map((f) => {
    const a = new Uint8Array(e.subtypes.length + 1);
    for (const s of p.scope[f] ?? []) a[s] = 1;
    return a;
  });
  const igSub = e.subtypes.indexOf('intergovernmental');
  // Harmonized Direct/revenue legs for named categories read only those categories' rows (see aggregate).
  const keys = p.recipe === null && p.harmonized && p.categories !== null && !p.igLeg && !wantFlow[BAL]
    ? [...new Set(p.categories), e.categories.length + 1].sort((a, b) => a - b)
    : null;
  const lookups = { igSub, wantFlow, inScope, keepCat, keys };
  shape = { ...lookups, cells: new Cells(e, p, lookups) };
  if (shapes.size >= 64) shapes.delete(shapes.keys().next().value!);
  shapes.set(key, shape);
  return shape;
}

/**
 * A worker's scratch arrays, grown as needed and reused by every job: a typed
 * array above a few dozen bytes is allocated outside the heap, which cost a
 * small job more than its walk. Presence marks compare with the job's own
 * stamp, so they need no clearing.
 */
const scratch = new (class {
  private mark = 0;
  private groups = new Int32Array(256);
  private years = new Int16Array(128);
  private codes = new Uint32Array(0);
  private catYears = new Uint32Array(0);
  nextMark(): number { return ++this.mark; }
  groupOf(n: number): Int32Array {
    if (this.groups.length < n) this.groups = new Int32Array(n);
    return this.groups.subarray(0, n).fill(-1);
  }
  yearIdx(n: number): Int16Array {
    if (this.years.length < n) this.years = new Int16Array(n);
    return this.years.subarray(0, n).fill(-1);
  }
  codeSeen(n: number): Uint32Array {
    if (this.codes.length < n) this.codes = new Uint32Array(n);
    return this.codes;
  }
  catYearSeen(n: number): Uint32Array {
    if (this.catYears.length < n) this.catYears = new Uint32Array(Math.max(n, 2 * this.catYears.length));
    return this.catYears;
  }
})();

/** Aggregates one (government, year) group into the scratch cells. */
function aggregate(x: Ctx, cells: Cells, gov: number, year: number, g: number): void {
  cells.begin();
  const start = x.c.govMeta[4 * g]! >>> 0, end = x.c.govMeta[4 * g + 1]! >>> 0;
  if (x.keys === null) { scan(x, cells, gov, year, start, end); return; }
  // Only the requested categories' rows (and the unmapped ones, which the provenance counts) can
  // contribute: every other row's harmonized code maps to no cell of this plan.
  const { hcode } = x.c, key = x.e.codeKey;
  // The group's hcode is cold (unless prefetch ran): touching each of its cache lines first, with loads
  // that do not wait on each other, overlaps the misses that the search's dependent probes would take one by one.
  if (touchLines(hcode, start, end) < 0) return; // never: the test only keeps the loads from being optimized away
  let lo = start;
  for (const k of x.keys) {
    lo = lowerBound(hcode, key, lo, end, k);
    let stop = lo;
    while (stop < end && key[hcode[stop]!] === k) stop++;
    if (stop > lo) scan(x, cells, gov, year, lo, stop);
    lo = stop;
  }
}

/** Up to this many groups (one government's history is 56), a job touches its rows before aggregating them. */
const PREFETCH_GROUPS = 1024;

/**
 * Loads the cache lines a category query will read, group by group but with
 * loads that do not wait on each other, so their misses overlap. A
 * government's groups lie far apart in the year-major columns, and a walk
 * that reads them in turn takes each miss alone: the job is bound by memory
 * latency, not by its arithmetic. First every line of each group's hcode (the
 * category search reads it), then, with the searches now in cache, the first
 * line of code, flags and amt of each category run.
 */
function prefetch(x: Ctx, groupOf: Int32Array): void {
  const { hcode, code, flags, amt, govMeta: gm } = x.c, key = x.e.codeKey;
  let touch = 0;
  for (let i = 0; i < groupOf.length; i++) {
    const g = groupOf[i]!;
    if (g >= 0) touch |= touchLines(hcode, gm[4 * g]! >>> 0, gm[4 * g + 1]! >>> 0);
  }
  for (let i = 0; i < groupOf.length; i++) {
    const g = groupOf[i]!;
    if (g < 0) continue;
    const start = gm[4 * g]! >>> 0, end = gm[4 * g + 1]! >>> 0;
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

/** The group's cells as row objects (for the paths that need them whole). */
function materialize(cells: Cells, n: number, gov: number, year: number, g: number, complete: boolean): Acc[] {
  return Array.from(cells.touched.subarray(0, n), (cell) => {
    const { flow, cat, sub } = cells.decode(cell);
    return { year, gov, flow, cat, sub, amt: cells.amt[cell]!, codes: cells.codesOf(cell), flags: cells.flags[cell]!, vs: complete ? VS_REPORTED : VS_NONE, group: g };
  });
}

/** The IG leg without a Direct counterpart, where a recipe would recover the Direct dollars. */
function flagSuppressed(x: Ctx, rows: Acc[], g: number, year: number, type: number, out: Record<string, number[]>): void {
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
function suggest(x: Ctx, g: number, year: number, type: number, hits: Map<number, Set<number>>): void {
  const candidates = new Set(x.plan.categories!.flatMap((cat) => x.e.categoryRecipes[cat] ?? []));
  for (const ri of candidates) {
    if (!covers(x.c, x.e, ri, g, year, type)) continue;
    let s = hits.get(ri);
    if (!s) hits.set(ri, (s = new Set()));
    s.add(year);
  }
}

/**
 * complete=true: every (category, subtype) cell the corpus's code set defines
 * for this government's type and year appears. An absent cell is a published
 * $0 in a dense-source year; in a sparse-source year, or in any year the
 * government did not report at all, it is unknown (NaN, never 0).
 */
function fill(x: Ctx, gov: number, year: number, type: number, g: number, rows: Acc[]): number {
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

/** The distinct values of a list, ascending: insertion sort, for the short, nearly ordered lists a job gathers (popyears follow years). */
function sortedUnique(list: number[]): number[] {
  for (let i = 1; i < list.length; i++) {
    const v = list[i]!;
    let j = i;
    while (j > 0 && list[j - 1]! > v) { list[j] = list[j - 1]!; j--; }
    list[j] = v;
  }
  let n = 0;
  for (let i = 0; i < list.length; i++) if (n === 0 || list[n - 1] !== list[i]) list[n++] = list[i]!;
  list.length = n;
  return list;
}

const scopeOk = (scope: number, type: number): boolean => (scope === SCOPE_STATE ? type === 0 : scope === SCOPE_LOCAL ? type >= 1 && type <= 3 : true);
const subRank = (e: EngineCatalog, sub: number): number => (sub === RECIPE_SUBTYPE_ID ? -1 : e.subtypeRank[sub]!);
const catRank = (e: EngineCatalog, cat: number): number => (cat < 0 ? cat : e.categoryRank[cat]!);

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
function supersede(e: EngineCatalog, hits: Map<number, Set<number>>): [number, number[]][] {
  const out: [number, number[]][] = [];
  for (const [ri, years] of hits) {
    const coveredBy = [...hits].some(([other, oy]) => other !== ri && e.supersedes[other]!.includes(ri) && [...years].every((y) => oy.has(y)));
    if (!coveredBy) out.push([ri, [...years].sort((a, b) => a - b)]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** Type-7 quantile (linear interpolation between order statistics) of sorted values. */
export function quantile(sorted: number[], p: number): number {
  const h = (sorted.length - 1) * p, lo = Math.floor(h);
  return lo + 1 < sorted.length ? sorted[lo]! + (h - lo) * (sorted[lo + 1]! - sorted[lo]!) : sorted[lo]!;
}

function addPeerValue(cells: Map<string, { year: number; sub: number; cat: number; values: number[]; target: number | null }>, a: Acc, pop: number, target: number): void {
  const key = `${a.year}:${a.sub}:${a.cat}`;
  let cell = cells.get(key);
  if (!cell) cells.set(key, (cell = { year: a.year, sub: a.sub, cat: a.cat, values: [], target: null }));
  const v = (a.amt * 1000) / pop;
  if (a.gov === target) cell.target = v; else cell.values.push(v);
}

/** Per (year, subtype, category) cell: peer percentiles of per-capita dollars, and the target's rank. */
function peerCells(cells: Map<string, { year: number; sub: number; cat: number; values: number[]; target: number | null }>): PeerCell[] {
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

/** The page rows, written straight into growable typed columns. */
/**
 * The page's rows as columns. The scratch columns live as long as the worker
 * and only grow; finish() copies the page into one buffer (one allocation,
 * cloned once on the way back) with a view per column.
 */
class RowBuilder {
  private static scratch = RowBuilder.columns(64);
  private n = 0;
  private nCodes = 0;
  private s = RowBuilder.scratch;

  private static columns(cap: number) {
    return {
      cap, year: new Uint16Array(cap), gov: new Uint32Array(cap), flow: new Uint8Array(cap), cat: new Int16Array(cap), sub: new Uint8Array(cap),
      amt: new Float64Array(cap), flags: new Uint8Array(cap), vs: new Uint8Array(cap), pop: new Int32Array(cap),
      codesStart: new Uint32Array(cap + 1), codes: new Uint16Array(cap * 4),
    };
  }

  push(a: Acc, pop: number): void {
    let s = this.s;
    if (this.n === s.cap || this.nCodes + a.codes.length > s.codes.length) s = this.grow(a.codes.length);
    const i = this.n++;
    s.year[i] = a.year; s.gov[i] = a.gov; s.flow[i] = a.flow; s.cat[i] = a.cat; s.sub[i] = a.sub;
    s.amt[i] = a.amt; s.flags[i] = a.flags; s.vs[i] = a.vs; s.pop[i] = pop;
    s.codesStart[i] = this.nCodes;
    if (a.codes.length > 1) a.codes.sort((p, q) => p - q);
    for (const code of a.codes) s.codes[this.nCodes++] = code;
  }

  /** A scratch cell as a row (the fast path's rows, which need no Acc object): its codes sorted in place. */
  pushCell(cells: Cells, cell: number, year: number, gov: number, pop: number): void {
    let s = this.s;
    let nc = 0;
    for (let k = cells.codeHead[cell]!; k >= 0; k = cells.codeNext[k]!) nc++;
    if (this.n === s.cap || this.nCodes + nc > s.codes.length) s = this.grow(nc);
    const i = this.n++;
    s.year[i] = year; s.gov[i] = gov; s.flow[i] = cells.cellFlow[cell]!; s.cat[i] = cells.cellCat[cell]!; s.sub[i] = cells.cellSub[cell]!;
    s.amt[i] = cells.amt[cell]!; s.flags[i] = cells.flags[cell]!; s.vs[i] = VS_NONE; s.pop[i] = pop;
    const from = (s.codesStart[i] = this.nCodes);
    const codes = s.codes;
    // Insertion sort as the codes arrive, for the handful a category's cell holds; a cell of all
    // categories can gather hundreds, which a real sort handles better.
    const insert = nc <= 16;
    for (let k = cells.codeHead[cell]!; k >= 0; k = cells.codeNext[k]!) {
      const v = cells.codeVal[k]!;
      let at = this.nCodes++;
      while (insert && at > from && codes[at - 1]! > v) { codes[at] = codes[at - 1]!; at--; }
      codes[at] = v;
    }
    if (!insert) codes.subarray(from, this.nCodes).sort();
  }

  private grow(moreCodes: number) {
    const old = this.s;
    const cap = this.n === old.cap ? old.cap * 2 : old.cap;
    const s = RowBuilder.columns(cap);
    const codesCap = Math.max(s.codes.length, old.codes.length, 2 * (this.nCodes + moreCodes));
    if (codesCap > s.codes.length) s.codes = new Uint16Array(codesCap);
    for (const k of ['year', 'gov', 'flow', 'cat', 'sub', 'amt', 'flags', 'vs', 'pop', 'codesStart', 'codes'] as const) (s[k] as Uint8Array).set(old[k] as Uint8Array);
    RowBuilder.scratch = s;
    return (this.s = s);
  }

  finish(): MoneyRows {
    const n = this.n, nc = this.nCodes, s = this.s;
    s.codesStart[n] = nc;
    const out = rowsOf({ n, nCodes: nc });
    out.year.set(s.year.subarray(0, n)); out.gov.set(s.gov.subarray(0, n)); out.flow.set(s.flow.subarray(0, n)); out.cat.set(s.cat.subarray(0, n));
    out.sub.set(s.sub.subarray(0, n)); out.amt.set(s.amt.subarray(0, n)); out.flags.set(s.flags.subarray(0, n)); out.valueSource.set(s.vs.subarray(0, n));
    out.pop.set(s.pop.subarray(0, n)); out.codesStart.set(s.codesStart.subarray(0, n + 1)); out.codes.set(s.codes.subarray(0, nc));
    // A deep page can grow the scratch to millions of rows; it is not kept for the worker's life.
    if (s.cap > 1 << 16) RowBuilder.scratch = RowBuilder.columns(64);
    return out as unknown as MoneyRows;
  }
}
