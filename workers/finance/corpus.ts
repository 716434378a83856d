// The finance corpus as a worker sees it: typed-array views over the shared
// buffers the main thread filled. Built once per worker, never copied.

import { viewOf } from '../../src/corpus/shared.js';
import type { FinanceColumns } from '../../src/finance/columns.js';

export interface FinanceView {
  nRows: number;
  nGroups: number;
  nGov: number;
  code: Uint16Array;
  hcode: Uint16Array;
  amt: Int32Array;
  flags: Uint8Array;
  gGov: Uint32Array;
  gYear: Uint16Array;
  gStart: Uint32Array;
  gPop: Int32Array;
  gPopYear: Uint16Array;
  govGroupStart: Uint32Array;
  govGroups: Uint32Array;
  /** Per govGroups entry k: [start, end, pop, year << 16 | popYear] at 4k (FinanceColumns.govMeta). */
  govMeta: Int32Array;
  /** Per group k, at k * keyStride: where each category key's rows start (FinanceColumns.keyStart, key-starts.ts). */
  keyStart: Uint8Array;
  keyStride: number;
}

export function attachFinance(c: FinanceColumns): FinanceView {
  return {
    nRows: c.nRows, nGroups: c.nGroups, nGov: c.nGov,
    code: viewOf(c.code as never) as Uint16Array,
    hcode: viewOf(c.hcode as never) as Uint16Array,
    amt: viewOf(c.amt as never) as Int32Array,
    flags: viewOf(c.flags as never) as Uint8Array,
    gGov: viewOf(c.gGov as never) as Uint32Array,
    gYear: viewOf(c.gYear as never) as Uint16Array,
    gStart: viewOf(c.gStart as never) as Uint32Array,
    gPop: viewOf(c.gPop as never) as Int32Array,
    gPopYear: viewOf(c.gPopYear as never) as Uint16Array,
    govGroupStart: viewOf(c.govGroupStart as never) as Uint32Array,
    govGroups: viewOf(c.govGroups as never) as Uint32Array,
    govMeta: viewOf(c.govMeta as never) as Int32Array,
    keyStart: viewOf(c.keyStart as never) as Uint8Array,
    keyStride: c.keyStride,
  };
}
