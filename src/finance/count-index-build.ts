// The count index (count-index.ts answers from it): built once at load from the corpus columns, in shared
// memory, so the main thread builds it and every front thread reads the same bytes (as the corpus).
//
// Two tables, for the flat routes' legs only (Direct expenditure and revenue: non-aggregate rows whose
// published code is neither intergovernmental nor a balance, classified by harmonized_code on the
// harmonized basis, by item_code on the raw one; money-scan.ts scan()):
//   - bits: per (government, year) group, one bit per (category, subtype) cell the group has a row of;
//     each category's subtypes lie in one 32-bit word (a category of expenditure has 5 non-intergovernmental
//     subtypes, one of revenue 7: 26 + 11 categories fit 7 words, 28 B). The harmonized basis's words for
//     every group; the raw basis's only where they differ (50 of the fixture's 19,190 groups), found by a
//     per-group slot (4 B).
//   - buckets: per (year, state and type, lifespan covers the year or not), per basis, what the bits of
//     the bucket's groups sum to: per cell the groups having it, per concept the groups reporting (per
//     category, and over all categories), per subtype the groups having it in any category, and its
//     cells over all categories. A cohort (state and/or type) is a union of whole (state, type)
//     partitions, so its count is a sum over buckets: no group walked. And each bucket's groups (4 B a
//     group), for a cohort's shapes the sums do not keep.
//
// Size and build, measured on the fixture (1.13 M rows, 19,190 groups, 170 (state, type) partitions, 533
// buckets): 0.54 MB of bits, 0.08 MB of raw slots, 0.70 MB of bucket sums (u16), 0.08 MB of bucket groups,
// 1.48 MB in all; built in 37-110 ms on a machine loaded 5x over its 2 cores. At full scale (46 M rows; at
// the fixture's ~59 rows a group, ~0.8 M groups; 56 years x ~180 buckets a year): ~29 MB of bits, slots and
// bucket groups and ~13 MB of bucket sums, ~42 MB once, shared by every thread; the build is linear in rows and groups, about 40x the fixture's:
// a few seconds at most (not measured at full scale: no benches here).

import { allocColumn, type SharedColumn } from '../corpus/shared.js';
import type { Catalog } from './catalog.js';
import { FLAG_AGGREGATE, NO_CODE, type FinanceColumns } from './columns.js';
import { EXPENDITURE_CONCEPTS, FLOW_ID, REVENUE_CONCEPTS, type EngineCatalog } from './engine-catalog.js';
import { inLifespan } from './plan.js';

export const EXP = FLOW_ID.expenditure, REV = FLOW_ID.revenue;
export const INDEXED_FLOWS = [EXP, REV] as const;

/**
 * Where each cell and each bucket figure lives: a function of the engine catalog alone, so every thread
 * derives the same layout from its own copy of the catalog and only the counts cross threads.
 */
export interface CountLayout {
  igSub: number;
  /** Per flow id: its subtype ids (intergovernmental excluded), in their local bit order. */
  flowSubs: number[][];
  /** Per flow id: subtype id -> local bit, -1 when not one of the flow's. */
  subLocal: Int8Array[];
  /** Per flow id: its categories. */
  flowCats: number[][];
  /** Per category: the word of its cells in a group's bits (-1: not an indexed flow), and the shift of its first. */
  catWord: Int16Array;
  catShift: Uint8Array;
  /** Per code id: the word and bit of the cell a row of that (effective) code lands in; word -1 for none. */
  codeWord: Int16Array;
  codeBit: Int32Array;
  /** Per published code id: whether a row of it can reach the Direct/revenue leg (not IG, not a balance). */
  codeDirect: Uint8Array;
  /** Words per group per basis. */
  W: number;
  /** Per flow id: the concepts' scopes as local subtype masks (deduplicated; intergovernmental left out). */
  concepts: number[][];
  /** Counts per bucket per basis, and where each kind starts in them. */
  V: number;
  /** Per category: where its per-concept reporting counts start. */
  catRep: Int32Array;
  /** Per flow id: where its all-category reporting (per concept), any-category subtype and subtype-sum counts start. */
  allRep: number[];
  anySub: number[];
  sumSub: number[];
}

export function countLayout(e: EngineCatalog): CountLayout {
  const igSub = e.subtypes.indexOf('intergovernmental');
  const nSub = e.subtypes.length;
  const flowSubs: number[][] = [[], [], [], []];
  const subLocal = [0, 1, 2, 3].map(() => new Int8Array(nSub + 1).fill(-1));
  for (let code = 0; code < e.nCodes; code++) {
    const f = e.codeFlow[code]!, s = e.codeSub[code]!;
    if ((f === EXP || f === REV) && s >= 0 && s !== igSub && !flowSubs[f]!.includes(s)) flowSubs[f]!.push(s);
  }
  for (const f of INDEXED_FLOWS) {
    flowSubs[f]!.sort((a, b) => a - b);
    if (flowSubs[f]!.length > 31) throw new Error(`count index: flow ${f} has ${flowSubs[f]!.length} subtypes, more than a word holds`);
    flowSubs[f]!.forEach((s, i) => { subLocal[f]![s] = i; });
  }
  const flowCats: number[][] = [[], [], [], []];
  const catWord = new Int16Array(e.categories.length).fill(-1), catShift = new Uint8Array(e.categories.length);
  let word = 0, bit = 0;
  for (const f of INDEXED_FLOWS) {
    const n = flowSubs[f]!.length;
    e.categories.forEach((_, c) => {
      if (e.categoryFlow[c] !== f) return;
      if (bit + n > 32) { word++; bit = 0; }
      flowCats[f]!.push(c);
      catWord[c] = word; catShift[c] = bit;
      bit += n;
    });
  }
  const W = word + 1;
  const codeWord = new Int16Array(e.nCodes).fill(-1), codeBit = new Int32Array(e.nCodes), codeDirect = new Uint8Array(e.nCodes);
  for (let code = 0; code < e.nCodes; code++) {
    const f = e.codeFlow[code]!, s = e.codeSub[code]!, c = e.codeCat[code]!;
    // The published code's legs (money-scan.ts): intergovernmental rows go to the IG leg, balances to theirs.
    codeDirect[code] = (f === EXP && s === igSub) || f === FLOW_ID.balance ? 0 : 1;
    if ((f !== EXP && f !== REV) || s < 0 || c < 0 || subLocal[f]![s]! < 0) continue;
    codeWord[code] = catWord[c]!;
    codeBit[code] = 1 << (catShift[c]! + subLocal[f]![s]!);
  }
  const maskOf = (f: number, names: readonly string[]): number =>
    names.reduce((m, name) => { const l = subLocal[f]![e.subtypes.indexOf(name)] ?? -1; return l >= 0 ? m | (1 << l) : m; }, 0);
  const concepts: number[][] = [[], [], [], []];
  for (const [f, list] of [[EXP, Object.values(EXPENDITURE_CONCEPTS)], [REV, Object.values(REVENUE_CONCEPTS)]] as const) {
    for (const names of list) { const m = maskOf(f, names); if (m !== 0 && !concepts[f]!.includes(m)) concepts[f]!.push(m); }
  }
  if (concepts.some((list) => list.length > 4)) throw new Error('count index: more than 4 concepts a flow');
  let V = 32 * W;
  const catRep = new Int32Array(e.categories.length).fill(-1);
  for (const f of INDEXED_FLOWS) for (const c of flowCats[f]!) { catRep[c] = V; V += concepts[f]!.length; }
  const allRep = [0, 0, 0, 0], anySub = [0, 0, 0, 0], sumSub = [0, 0, 0, 0];
  for (const f of INDEXED_FLOWS) {
    allRep[f] = V; V += concepts[f]!.length;
    anySub[f] = V; V += flowSubs[f]!.length;
    sumSub[f] = V; V += flowSubs[f]!.length;
  }
  return { igSub, flowSubs, subLocal, flowCats, catWord, catShift, codeWord, codeBit, codeDirect, W, concepts, V, catRep, allRep, anySub, sumSub };
}

/** The index as it crosses threads (FinanceData): shared columns and a few numbers. */
export interface CountIndexData {
  /** Per group k (govGroups order): its harmonized-basis cells, W words at k * W. */
  bits: SharedColumn;
  /**
   * Per group: -1 when its raw-basis cells are its harmonized ones (99.7% of the fixture's groups), else j:
   * they are the W words at j * W of rawBits.
   */
  rawAt: SharedColumn;
  rawBits: SharedColumn;
  /** Per gid: its (state, type) partition. */
  govPart: SharedColumn;
  /** Per partition: its governments. */
  partSize: SharedColumn;
  nParts: number;
  /** The years the buckets cover: y0 to y0 + nYears - 1. */
  y0: number;
  nYears: number;
  /** At ((year - y0) * nParts + part) * 2 + outsideLifespan: the bucket's id, -1 when it has no group. */
  bucketAt: SharedColumn;
  /** Per bucket id and basis (0 harmonized, 1 raw): V counts at (2 * id + b) * V (u16 when no count can pass 65,535). */
  counts: SharedColumn;
  /** The groups of bucket id: groupsByBucket from bucketStart[id] to bucketStart[id + 1] (for the shapes the sums do not keep). */
  bucketStart: SharedColumn;
  groupsByBucket: SharedColumn;
  nBuckets: number;
  buildMs: number;
}

export function buildCountIndex(catalog: Catalog, e: EngineCatalog, c: FinanceColumns): CountIndexData {
  const t0 = performance.now();
  const L = countLayout(e);
  const { W, V } = L;
  const nGov = c.nGov;
  const code = new Uint16Array(c.code.buffer as unknown as ArrayBuffer, 0, c.code.length);
  const hcode = new Uint16Array(c.hcode.buffer as unknown as ArrayBuffer, 0, c.hcode.length);
  const flags = new Uint8Array(c.flags.buffer as unknown as ArrayBuffer, 0, c.flags.length);
  const start = new Uint32Array(c.govGroupStart.buffer as unknown as ArrayBuffer, 0, c.govGroupStart.length);
  const gm = new Int32Array(c.govMeta.buffer as unknown as ArrayBuffer, 0, c.govMeta.length);
  const nGroups = start[nGov]!;

  const { govPart, partSize, sizes, nParts } = partitionsOf(catalog, nGov);
  const { y0, nYears, bucketAt, groupBucket, nBuckets, bucketStart, groupsByBucket } = bucketsOf(e, gm, start, nGov, govPart.view, nParts);
  // A count is at most its partition's governments, a subtype's sum over categories that times the categories.
  const wide = Math.max(0, ...sizes) * Math.max(1, ...INDEXED_FLOWS.map((f) => L.flowCats[f]!.length)) > 0xffff;
  const counts = wide ? allocColumn('u32', nBuckets * 2 * V) : allocColumn('u16', nBuckets * 2 * V);
  const add = bucketAdder(L, counts.view);

  // The groups' cells, both bases, into scratch S (harmonized at 0, raw at W); then kept, and added to their bucket.
  // Signed words: a word with its top bit set stays a small integer in V8, not a heap number.
  const bits = allocColumn('i32', nGroups * W);
  const rawAt = allocColumn('i32', nGroups);
  let raw = new Int32Array(64 * W), nRaw = 0;
  const B = bits.view, S = new Int32Array(2 * W);
  const { codeWord, codeBit, codeDirect } = L;
  const nCodes = e.nCodes;
  for (let k = 0; k < nGroups; k++) {
    S.fill(0);
    for (let r = gm[4 * k]! >>> 0, end = gm[4 * k + 1]! >>> 0; r < end; r++) {
      const pub = code[r]!;
      if ((flags[r]! & FLAG_AGGREGATE) !== 0 || pub >= nCodes || codeDirect[pub] === 0) continue;
      const w = codeWord[pub]!;
      if (w >= 0) S[W + w]! |= codeBit[pub]!;
      const h = hcode[r]!;
      if (h === NO_CODE || h >= nCodes) continue;
      const hw = codeWord[h]!;
      if (hw >= 0) S[hw]! |= codeBit[h]!;
    }
    let same = true;
    for (let w = 0; w < W; w++) { B[k * W + w] = S[w]!; if (S[w] !== S[W + w]) same = false; }
    if (same) rawAt.view[k] = -1;
    else {
      if ((nRaw + 1) * W > raw.length) { const t = new Int32Array(raw.length * 2); t.set(raw); raw = t; }
      raw.set(S.subarray(W), nRaw * W);
      rawAt.view[k] = nRaw++;
    }
    add(S, 0, 2 * groupBucket[k]! * V);
    add(S, W, (2 * groupBucket[k]! + 1) * V);
  }
  const rawBits = allocColumn('i32', nRaw * W);
  rawBits.view.set(raw.subarray(0, nRaw * W));
  sumSubtypes(L, counts.view);
  return {
    bits: bits.column, rawAt: rawAt.column, rawBits: rawBits.column, govPart: govPart.column, partSize: partSize.column, nParts, y0, nYears,
    bucketAt: bucketAt.column, counts: counts.column, bucketStart: bucketStart.column, groupsByBucket: groupsByBucket.column, nBuckets, buildMs: performance.now() - t0,
  };
}

/** Partitions: the registry's (state, type) pairs, each government's, and their sizes. */
function partitionsOf(catalog: Catalog, nGov: number) {
  const partOf = new Map<string, number>();
  const govPart = allocColumn('u16', nGov);
  const sizes: number[] = [];
  catalog.governments.forEach((g, gid) => {
    const key = `${g.fips_state}|${g.type}`;
    let p = partOf.get(key);
    if (p === undefined) { partOf.set(key, (p = sizes.length)); sizes.push(0); }
    govPart.view[gid] = p;
    sizes[p]!++;
  });
  const nParts = sizes.length;
  const partSize = allocColumn('u32', nParts);
  partSize.view.set(sizes);
  return { govPart, partSize, sizes, nParts };
}

/** Buckets: (year, partition, in lifespan or not), each group's, and the groups listed bucket by bucket. */
function bucketsOf(e: EngineCatalog, gm: Int32Array, start: Uint32Array, nGov: number, govPart: Uint16Array, nParts: number) {
  const nGroups = start[nGov]!;
  let y0 = Infinity, y1 = -Infinity;
  for (let k = 0; k < nGroups; k++) { const y = gm[4 * k + 3]! >>> 16; if (y < y0) y0 = y; if (y > y1) y1 = y; }
  const nYears = nGroups > 0 ? y1 - y0 + 1 : 0;
  if (nGroups === 0) y0 = 0;
  const bucketAt = allocColumn('i32', nYears * nParts * 2);
  bucketAt.view.fill(-1);
  const groupBucket = new Int32Array(nGroups);
  let nBuckets = 0;
  for (let gov = 0; gov < nGov; gov++) {
    const part = govPart[gov]!;
    for (let k = start[gov]!, end = start[gov + 1]!; k < end; k++) {
      const year = gm[4 * k + 3]! >>> 16;
      const at = ((year - y0) * nParts + part) * 2 + (inLifespan(e, gov, year) ? 0 : 1);
      if (bucketAt.view[at]! < 0) bucketAt.view[at] = nBuckets++;
      groupBucket[k] = bucketAt.view[at]!;
    }
  }
  const bucketStart = allocColumn('i32', nBuckets + 1), groupsByBucket = allocColumn('i32', nGroups);
  for (let k = 0; k < nGroups; k++) bucketStart.view[groupBucket[k]! + 1]!++;
  for (let id = 0; id < nBuckets; id++) bucketStart.view[id + 1]! += bucketStart.view[id]!;
  const fillAt = bucketStart.view.slice(0, nBuckets);
  for (let k = 0; k < nGroups; k++) groupsByBucket.view[fillAt[groupBucket[k]!]!++] = k;
  return { y0, nYears, bucketAt, groupBucket, nBuckets, bucketStart, groupsByBucket };
}

/**
 * Adds a group's cells (W words of S from off) into the bucket counts at o. Flat per-category arrays (both
 * flows' categories in one list) keep the loop to typed-array reads.
 */
function bucketAdder(L: CountLayout, N: Uint16Array | Uint32Array): (S: Int32Array, off: number, o: number) => void {
  const { W } = L;
  const cats = INDEXED_FLOWS.flatMap((f) => L.flowCats[f]!);
  const nc = cats.length;
  const word = Int32Array.from(cats, (c) => L.catWord[c]!), shift = Int32Array.from(cats, (c) => L.catShift[c]!);
  const flowOf = Int32Array.from(cats, (c) => (L.flowCats[EXP]!.includes(c) ? EXP : REV));
  const full = Int32Array.from(cats, (_, i) => (1 << L.flowSubs[flowOf[i]!]!.length) - 1);
  const rep = Int32Array.from(cats, (c) => L.catRep[c]!);
  // Per category: its flow's concept masks (at most 4; unused slots 0).
  const K = 4;
  const conc = new Int32Array(nc * K);
  cats.forEach((_, i) => L.concepts[flowOf[i]!]!.forEach((m, q) => { conc[i * K + q] = m; }));
  const any = new Int32Array(4);
  return (S, off, o) => {
    for (let w = 0; w < W; w++) for (let x = S[off + w]!; x !== 0; x &= x - 1) N[o + 32 * w + (31 - Math.clz32(x & -x))]!++;
    any[EXP] = 0; any[REV] = 0;
    for (let i = 0; i < nc; i++) {
      const m = (S[off + word[i]!]! >>> shift[i]!) & full[i]!;
      if (m === 0) continue;
      any[flowOf[i]!]! |= m;
      for (let q = 0; q < K; q++) if ((m & conc[i * K + q]!) !== 0) N[o + rep[i]! + q]!++;
    }
    for (const f of INDEXED_FLOWS) {
      const a = any[f]!, concepts = L.concepts[f]!;
      for (let q = 0; q < concepts.length; q++) if ((a & concepts[q]!) !== 0) N[o + L.allRep[f]! + q]!++;
      for (let x = a; x !== 0; x &= x - 1) N[o + L.anySub[f]! + (31 - Math.clz32(x & -x))]!++;
    }
  };
}

/** The subtype sums: per bucket and basis, a subtype's cells over the flow's categories, from the cells' counts. */
function sumSubtypes(L: CountLayout, N: Uint16Array | Uint32Array): void {
  for (let o = 0; o < N.length; o += L.V) {
    for (const f of INDEXED_FLOWS) {
      for (const c of L.flowCats[f]!) {
        const at = o + 32 * L.catWord[c]! + L.catShift[c]!;
        for (let s = 0; s < L.flowSubs[f]!.length; s++) N[o + L.sumSub[f]! + s]! += N[at + s]!;
      }
    }
  }
}
