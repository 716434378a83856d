// A bulk query's row count and coverage from counts kept at load, so a never-seen page can send its
// headers (X-Total-Count, X-Units-*) before any row is computed (issue 32). The index is built once at
// load (count-index-build.ts); answering reads it and no row.
//
// The count of a plan is what the count job gives (workers/finance/money-count.ts countRows): per
// (government, year) group of the plan, the cells (flow, category or All, subtype) its rows touch, those of
// the subtype filter counted; a group reports when it touches any. The index answers exactly the plans
// of the flat routes' Direct and revenue legs:
//   - one flow, expenditure or revenue (/spending, /revenue), any concept (scope), either basis;
//   - no category, All Categories, or any list of categories; a subtype filter or none;
//   - any years (a year with no group counts nothing), any governments.
// Anything else is undefined and the caller counts with the count job: a recipe, the intergovernmental
// leg (expenditure_concept=total, which the flat routes refuse), complete, coverage=consistent, peers,
// dropped populations, balances or two flows (/profile).
// Page, limit, format, adjust, per_capita and identity are not in the plan's count (planOf reads only
// page and limit, for offset and limit, which the count ignores; the others shape the table).
//
// Three ways, the same figures (test/count-index.test.ts holds them to each other, to the count job and to
// DuckDB). A cohort (plan.govs a union of whole (state, type) partitions, as cohortOf gives; found once per
// array and kept) with no category, All, or one category, and a concept's scope, sums its buckets:
// 2 x partitions x years reads (on the fixture, loaded machine: type=city 2020 20-50 us, three years of
// Police 60-170 us; at full scale 56 years ~20x that). A cohort of another shape (two or more categories)
// reads its buckets' groups, only those of the years asked: a few word reads a group (type=city, two
// categories, 3 years: 0.7-1.2 ms; at full scale ~1/3 of that a year asked, ~20 ms for all 56, the one
// shape here past a few milliseconds). A govid list reads its governments' groups (a 1,000-government
// list over 3 years 130-210 us; every one of the 40,330 governments 1.3-2.6 ms).

import { viewOf } from '../corpus/shared.js';
import type { FinanceColumns } from './columns.js';
import { countLayout, EXP, REV, type CountIndexData, type CountLayout } from './count-index-build.js';
import type { EngineCatalog } from './engine-catalog.js';
import { countable, inLifespan, type MoneyCount, type MoneyPlan } from './plan.js';

export { buildCountIndex, type CountIndexData } from './count-index-build.js';

/** The index as a thread reads it: views over the shared counts, and the layout its catalog gives. */
export interface CountIndex {
  L: CountLayout;
  /** Per group its harmonized cells (W words at k * W); its raw ones there too unless rawAt[k] >= 0 (then at rawAt[k] * W of rawBits). */
  bits: Int32Array;
  rawAt: Int32Array;
  rawBits: Int32Array;
  govPart: Uint16Array;
  partSize: Uint32Array;
  nParts: number;
  y0: number;
  nYears: number;
  bucketAt: Int32Array;
  counts: Uint16Array | Uint32Array;
  /** The groups of each bucket: those of bucket id at bucketStart[id] to bucketStart[id + 1] of groupsByBucket. */
  bucketStart: Int32Array;
  groupsByBucket: Int32Array;
  govGroupStart: Uint32Array;
  govMeta: Int32Array;
  /** The registry lifespans (inLifespan), for outsideLifespan. */
  life: Pick<EngineCatalog, 'govFirstYear' | 'govLastYear'>;
  /** Plans' government arrays found to be unions of whole partitions (cohortOf's, kept in ctx.cohorts): their partitions. */
  cohorts: WeakMap<number[], number[] | null>;
  /** Its shared bytes and build time, for the record (test/count-index.test.ts prints them). */
  stats: { bytes: number; buildMs: number; buckets: number };
  /** Scratch for deduplicating a plan's governments. */
  stamp: Uint32Array;
  turn: number;
}

export function attachCountIndex(d: CountIndexData, e: EngineCatalog, c: FinanceColumns): CountIndex {
  return {
    L: countLayout(e),
    bits: viewOf(d.bits as never) as Int32Array,
    rawAt: viewOf(d.rawAt as never) as Int32Array,
    rawBits: viewOf(d.rawBits as never) as Int32Array,
    govPart: viewOf(d.govPart as never) as Uint16Array,
    partSize: viewOf(d.partSize as never) as Uint32Array,
    nParts: d.nParts, y0: d.y0, nYears: d.nYears,
    bucketAt: viewOf(d.bucketAt as never) as Int32Array,
    counts: viewOf(d.counts as never) as Uint16Array | Uint32Array,
    bucketStart: viewOf(d.bucketStart as never) as Int32Array,
    groupsByBucket: viewOf(d.groupsByBucket as never) as Int32Array,
    govGroupStart: viewOf(c.govGroupStart as never) as Uint32Array,
    govMeta: viewOf(c.govMeta as never) as Int32Array,
    life: e,
    stats: { bytes: d.bits.buffer.byteLength + d.rawAt.buffer.byteLength + d.rawBits.buffer.byteLength + d.govPart.buffer.byteLength + d.partSize.buffer.byteLength + d.bucketAt.buffer.byteLength + d.counts.buffer.byteLength + d.bucketStart.buffer.byteLength + d.groupsByBucket.buffer.byteLength, buildMs: d.buildMs, buckets: d.nBuckets },
    cohorts: new WeakMap(),
    stamp: new Uint32Array(c.nGov),
    turn: 0,
  };
}

/** What a plan asks of the index, once its shape is known to fit. */
interface Ask {
  flow: number;
  /** 0 harmonized, 1 raw. */
  basis: number;
  /** Local subtype masks: the concept's scope (reporting), and the scope with the subtype filter (the total). */
  scope: number;
  counted: number;
  /** The categories whose cells count (the flow's only), and whether they collapse into All Categories. */
  cats: number[];
  all: boolean;
  /** Every category of the flow (no category filter). */
  every: boolean;
}

/** The plan's count from the index (the finance context's), or undefined when the index cannot answer this plan's shape. */
export function indexedCount(ctx: { countIndex?: CountIndex | undefined }, plan: MoneyPlan): MoneyCount | undefined {
  const ix = ctx.countIndex;
  if (ix === undefined) return undefined;
  const ask = askOf(ix.L, plan);
  if (ask === undefined) return undefined;
  const parts = partsOf(ix, plan.govs);
  if (parts === null) return fromGroups(ix, plan, ask);
  return bucketsFit(ix.L, ask) ? fromBuckets(ix, plan.years, parts, ask) : walkBuckets(ix, plan.years, parts, ask);
}

/**
 * The same count by a chosen way, for the tests: 'buckets' (their sums) and 'bucket groups' (their groups)
 * only for a cohort, the sums only where indexedCount takes them; 'groups' government by government, always.
 */
export function indexedCountVia(ix: CountIndex, plan: MoneyPlan, way: 'buckets' | 'bucket groups' | 'groups'): MoneyCount | undefined {
  const ask = askOf(ix.L, plan);
  if (ask === undefined) return undefined;
  if (way === 'groups') return fromGroups(ix, plan, ask);
  const parts = partsOf(ix, plan.govs);
  if (parts === null) return undefined;
  if (way === 'bucket groups') return walkBuckets(ix, plan.years, parts, ask);
  return bucketsFit(ix.L, ask) ? fromBuckets(ix, plan.years, parts, ask) : undefined;
}

function askOf(L: CountLayout, p: MoneyPlan): Ask | undefined {
  if (!countable(p) || p.recipe !== null || p.igLeg || p.flows.length !== 1) return undefined;
  const flow = p.flows[0]!;
  if (flow !== EXP && flow !== REV) return undefined;
  // Years as the parser gives them, ascending and distinct (the count job's per-year slots assume it).
  for (let i = 1; i < p.years.length; i++) if (!(p.years[i]! > p.years[i - 1]!)) return undefined;
  const local = L.subLocal[flow]!;
  // A scope subtype that is not one of the flow's (intergovernmental without its leg) has no Direct cell.
  let scope = 0;
  for (const s of p.scope[flow] ?? []) if (s >= 0 && local[s]! >= 0) scope |= 1 << local[s]!;
  const counted = p.subtype === null ? scope : p.subtype >= 0 && local[p.subtype]! >= 0 ? scope & (1 << local[p.subtype]!) : 0;
  const every = p.categories === null;
  const cats = every ? L.flowCats[flow]! : [...new Set(p.categories)].filter((c) => L.flowCats[flow]!.includes(c));
  return { flow, basis: p.harmonized ? 0 : 1, scope, counted, cats, all: p.allCategories, every };
}

/** The plan's governments as whole (state, type) partitions, or null when they are not a union of whole ones. */
function partsOf(ix: CountIndex, govs: number[]): number[] | null {
  const known = ix.cohorts.get(govs);
  if (known !== undefined) return known;
  const seen = new Uint32Array(ix.nParts), touched: number[] = [];
  const turn = nextTurn(ix);
  for (const g of govs) {
    if (ix.stamp[g] === turn) continue;
    ix.stamp[g] = turn;
    const p = ix.govPart[g]!;
    if (seen[p]!++ === 0) touched.push(p);
  }
  let parts: number[] | null = touched.sort((a, b) => a - b);
  for (const p of touched) if (seen[p] !== ix.partSize[p]) { parts = null; break; }
  ix.cohorts.set(govs, parts);
  return parts;
}

function nextTurn(ix: CountIndex): number {
  if (++ix.turn === 0xffffffff) { ix.stamp.fill(0); ix.turn = 1; }
  return ix.turn;
}

/** The buckets keep reporting per concept, per category and over all categories: for other shapes the groups answer. */
const bucketsFit = (L: CountLayout, a: Ask): boolean =>
  L.concepts[a.flow]!.includes(a.scope) && (a.every || a.all || a.cats.length <= 1);

function fromBuckets(ix: CountIndex, years: number[], parts: number[], a: Ask): MoneyCount {
  const { L, counts: N, nParts } = ix;
  const q = L.concepts[a.flow]!.indexOf(a.scope);
  const cat = a.cats[0];
  // What a bucket adds: the total from per-cell (or per-subtype) counts, the reporting from one count.
  const subs: number[] = [];
  for (let s = 0; s < L.flowSubs[a.flow]!.length; s++) if ((a.counted >> s) & 1) subs.push(s);
  let totalAt: number[], repAt: number;
  if (a.all) {
    // All Categories over a category list is one cell per subtype of the listed ones: only the whole flow's are kept.
    if (!a.every) return walkBuckets(ix, years, parts, a);
    totalAt = subs.map((s) => L.anySub[a.flow]! + s); repAt = L.allRep[a.flow]! + q;
  } else if (a.every) {
    totalAt = subs.map((s) => L.sumSub[a.flow]! + s); repAt = L.allRep[a.flow]! + q;
  } else if (cat !== undefined) {
    totalAt = subs.map((s) => 32 * L.catWord[cat]! + L.catShift[cat]! + s); repAt = L.catRep[cat]! + q;
  } else {
    totalAt = []; repAt = -1;
  }
  let total = 0;
  const reporting: number[] = [], outsideLifespan: number[] = [];
  for (const year of years) {
    let rep = 0, out = 0;
    const y = year - ix.y0;
    if (y >= 0 && y < ix.nYears && repAt >= 0) {
      for (const p of parts) {
        for (let o = 0; o < 2; o++) {
          const id = ix.bucketAt[(y * nParts + p) * 2 + o]!;
          if (id < 0) continue;
          const at = (2 * id + a.basis) * L.V;
          for (const t of totalAt) total += N[at + t]!;
          const r = N[at + repAt]!;
          rep += r;
          if (o === 1) out += r;
        }
      }
    }
    reporting.push(rep); outsideLifespan.push(out);
  }
  return { total, reporting, outsideLifespan };
}

function fromGroups(ix: CountIndex, plan: MoneyPlan, a: Ask): MoneyCount {
  return walk(ix, plan.govs, plan.years, a);
}

/** How a group's bits are read for an ask. */
interface Reader {
  a: Ask;
  W: number;
  /** All Categories: each category's field, ORed. */
  nc: number;
  word: Int32Array;
  shift: Int32Array;
  /** Otherwise the categories' cells are disjoint bits: the group's words under per-word masks. */
  words: Int32Array;
  scopeMask: Int32Array;
  countedMask: Int32Array;
}

function readerOf(L: CountLayout, a: Ask): Reader {
  const W = L.W, nc = a.cats.length, word = new Int32Array(nc), shift = new Int32Array(nc);
  a.cats.forEach((c, i) => { word[i] = L.catWord[c]!; shift[i] = L.catShift[c]!; });
  const scopeMask = new Int32Array(W), countedMask = new Int32Array(W);
  a.cats.forEach((c) => { scopeMask[L.catWord[c]!]! |= a.scope << L.catShift[c]!; countedMask[L.catWord[c]!]! |= a.counted << L.catShift[c]!; });
  const words = Int32Array.from({ length: W }, (_, w) => w).filter((w) => scopeMask[w] !== 0);
  return { a, W, nc, word, shift, words, scopeMask, countedMask };
}

/** Group k's counted cells, or -1 when it touches none (it does not report). */
function readGroup(ix: CountIndex, r: Reader, k: number): number {
  let bits = ix.bits, g = k * r.W;
  if (r.a.basis === 1) { const j = ix.rawAt[k]!; if (j >= 0) { bits = ix.rawBits; g = j * r.W; } }
  if (r.a.all) {
    let any = 0;
    for (let i = 0; i < r.nc; i++) any |= bits[g + r.word[i]!]! >>> r.shift[i]!;
    return (any & r.a.scope) === 0 ? -1 : popcount(any & r.a.counted);
  }
  let touched = 0, n = 0;
  for (let i = 0; i < r.words.length; i++) {
    const w = r.words[i]!, x = bits[g + w]!;
    touched |= x & r.scopeMask[w]!;
    n += popcount(x & r.countedMask[w]!);
  }
  return touched === 0 ? -1 : n;
}

/**
 * A cohort's groups of the years, bucket by bucket (groupsByBucket): for the shapes the buckets' sums do not
 * keep (two or more named categories, a scope no concept has). Reads only the groups of the years asked.
 */
function walkBuckets(ix: CountIndex, years: number[], parts: number[], a: Ask): MoneyCount {
  const r = readerOf(ix.L, a);
  let total = 0;
  const reporting: number[] = [], outsideLifespan: number[] = [];
  for (const year of years) {
    let rep = 0, out = 0;
    const y = year - ix.y0;
    if (y >= 0 && y < ix.nYears) {
      for (const p of parts) {
        for (let o = 0; o < 2; o++) {
          const id = ix.bucketAt[(y * ix.nParts + p) * 2 + o]!;
          if (id < 0) continue;
          for (let j = ix.bucketStart[id]!, end = ix.bucketStart[id + 1]!; j < end; j++) {
            const n = readGroup(ix, r, ix.groupsByBucket[j]!);
            if (n < 0) continue;
            total += n;
            rep++;
            if (o === 1) out++;
          }
        }
      }
    }
    reporting.push(rep); outsideLifespan.push(out);
  }
  return { total, reporting, outsideLifespan };
}

/** Each group of the governments in the years, government by government, as the count job walks them. */
function walk(ix: CountIndex, govs: number[], years: number[], a: Ask): MoneyCount {
  const gm = ix.govMeta, Y = years.length;
  const reporting = new Array<number>(Y).fill(0), outsideLifespan = new Array<number>(Y).fill(0);
  if (Y === 0) return { total: 0, reporting, outsideLifespan };
  const y0 = years[0]!, span = years[Y - 1]! - y0 + 1, want = new Int32Array(span).fill(-1);
  years.forEach((y, i) => { want[y - y0] = i; });
  const r = readerOf(ix.L, a);
  const turn = nextTurn(ix);
  let total = 0;
  for (const gov of govs) {
    if (ix.stamp[gov] === turn) continue;
    ix.stamp[gov] = turn;
    for (let k = ix.govGroupStart[gov]!, end = ix.govGroupStart[gov + 1]!; k < end; k++) {
      const y = (gm[4 * k + 3]! >>> 16) - y0;
      if (y < 0 || y >= span) continue;
      const yi = want[y]!;
      if (yi < 0) continue;
      const n = readGroup(ix, r, k);
      if (n < 0) continue;
      total += n;
      reporting[yi]!++;
      if (!inLifespan(ix.life, gov, y + y0)) outsideLifespan[yi]!++;
    }
  }
  return { total, reporting, outsideLifespan };
}

const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};
