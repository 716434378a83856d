// The job's rows: a group's cells as row objects for the materialized path,
// and the page as typed columns, written from either.

import { VS_NONE, VS_REPORTED, rowsOf, type MoneyRows } from '../../src/finance/plan.js';
import type { Cells } from './money-cells.js';

/** One row of the materialized path. */
export interface GroupRow {
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

/** The group's cells as row objects (for the paths that need them whole). */
export function materialize(cells: Cells, n: number, gov: number, year: number, g: number, complete: boolean): GroupRow[] {
  return Array.from(cells.touched.subarray(0, n), (cell) => {
    const { flow, cat, sub } = cells.decode(cell);
    return { year, gov, flow, cat, sub, amt: cells.amt[cell]!, codes: cells.codesOf(cell), flags: cells.flags[cell]!, vs: complete ? VS_REPORTED : VS_NONE, group: g };
  });
}

/** Up to this many rows, finish() copies the page element by element (see there). */
const SMALL_PAGE = 64;

/**
 * The page's rows as columns. The scratch columns live as long as the worker
 * and only grow; finish() copies the page into one buffer (one allocation,
 * cloned once on the way back) with a view per column.
 */
export class RowBuilder {
  private static scratch = RowBuilder.columns(64);
  /** Rows counted so far (on the page or not): the job's total. */
  total = 0;
  private n = 0;
  private nCodes = 0;
  private s = RowBuilder.scratch;

  /** A builder of the page [offset, offset + limit) of the rows counted. */
  constructor(private readonly offset: number, private readonly limit: number) {}

  /** Page rows pushed and not yet handed over (finish, drain). */
  get held(): number {
    return this.n;
  }

  /** Counts one row past every filter; true when it falls on the page (then push it). */
  take(): boolean {
    const t = this.total++;
    return t >= this.offset && t < this.offset + this.limit;
  }

  private static columns(cap: number) {
    return {
      cap, year: new Uint16Array(cap), gov: new Uint32Array(cap), flow: new Uint8Array(cap), cat: new Int16Array(cap), sub: new Uint8Array(cap),
      amt: new Float64Array(cap), flags: new Uint8Array(cap), vs: new Uint8Array(cap), pop: new Int32Array(cap),
      codesStart: new Uint32Array(cap + 1), codes: new Uint16Array(cap * 4),
    };
  }

  push(a: GroupRow, pop: number): void {
    let s = this.s;
    if (this.n === s.cap || this.nCodes + a.codes.length > s.codes.length) s = this.grow(a.codes.length);
    const i = this.n++;
    s.year[i] = a.year; s.gov[i] = a.gov; s.flow[i] = a.flow; s.cat[i] = a.cat; s.sub[i] = a.sub;
    s.amt[i] = a.amt; s.flags[i] = a.flags; s.vs[i] = a.vs; s.pop[i] = pop;
    s.codesStart[i] = this.nCodes;
    if (a.codes.length > 1) a.codes.sort((p, q) => p - q);
    for (const code of a.codes) s.codes[this.nCodes++] = code;
  }

  /** A scratch cell as a row (the fast path's rows, which need no GroupRow object): its codes sorted in place. */
  pushCell(cells: Cells, cell: number, year: number, gov: number, pop: number): void {
    let s = this.s;
    const nc = cells.codeCount[cell]!;
    if (this.n === s.cap || this.nCodes + nc > s.codes.length) s = this.grow(nc);
    const i = this.n++;
    s.year[i] = year; s.gov[i] = gov; s.flow[i] = cells.cellFlow[cell]!; s.cat[i] = cells.cellCat[cell]!; s.sub[i] = cells.cellSub[cell]!;
    s.amt[i] = cells.amt[cell]!; s.flags[i] = cells.flags[cell]!; s.vs[i] = VS_NONE; s.pop[i] = pop;
    // The cell's code count places the row's codes at [from, to) (and the next row's after them).
    const from = (s.codesStart[i] = this.nCodes), to = (this.nCodes = from + nc);
    const codes = s.codes;
    // Insertion sort as the codes arrive, for the handful a category's cell holds; a cell of all
    // categories can gather hundreds, which a real sort handles better.
    const insert = nc <= 16;
    let m = from;
    for (let k = cells.codeHead[cell]!; k >= 0; k = cells.codeNext[k]!) {
      const v = cells.codeVal[k]!;
      let at = m++;
      while (insert && at > from && codes[at - 1]! > v) { codes[at] = codes[at - 1]!; at--; }
      codes[at] = v;
    }
    if (!insert) codes.subarray(from, to).sort();
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
    if (n <= SMALL_PAGE && nc <= 4 * SMALL_PAGE) {
      // A small page (one government's category): element by element, not eleven subarray views and set calls.
      for (let i = 0; i < n; i++) {
        out.year[i] = s.year[i]!; out.gov[i] = s.gov[i]!; out.flow[i] = s.flow[i]!; out.cat[i] = s.cat[i]!; out.sub[i] = s.sub[i]!;
        out.amt[i] = s.amt[i]!; out.flags[i] = s.flags[i]!; out.valueSource[i] = s.vs[i]!; out.pop[i] = s.pop[i]!; out.codesStart[i] = s.codesStart[i]!;
      }
      out.codesStart[n] = nc;
      for (let k = 0; k < nc; k++) out.codes[k] = s.codes[k]!;
    } else {
      out.year.set(s.year.subarray(0, n)); out.gov.set(s.gov.subarray(0, n)); out.flow.set(s.flow.subarray(0, n)); out.cat.set(s.cat.subarray(0, n));
      out.sub.set(s.sub.subarray(0, n)); out.amt.set(s.amt.subarray(0, n)); out.flags.set(s.flags.subarray(0, n)); out.valueSource.set(s.vs.subarray(0, n));
      out.pop.set(s.pop.subarray(0, n)); out.codesStart.set(s.codesStart.subarray(0, n + 1)); out.codes.set(s.codes.subarray(0, nc));
    }
    // A deep page can grow the scratch to millions of rows; it is not kept for the worker's life.
    if (s.cap > 1 << 16) RowBuilder.scratch = RowBuilder.columns(64);
    return out as unknown as MoneyRows;
  }

  /** The rows pushed since the last drain, handed over as finish() does; the next pushes start a new batch (a page walked in steps). */
  drain(): MoneyRows {
    const out = this.finish();
    this.n = 0;
    this.nCodes = 0;
    return out;
  }
}
