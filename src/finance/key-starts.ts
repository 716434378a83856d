// Where each category's run starts inside every (government, year) group:
// derived at load (never cached), in shared memory like the columns.
//
// A group's rows are sorted by their category key (columns.ts
// rowCategoryKey). A harmonized query for a few categories used to find each
// run by a binary search of the group's hcode, after touching every line of
// it: at full scale, 30-40% of one government's Police job (issue 32). With
// these offsets the job goes to the run's rows at once and reads nothing else
// of the group. One byte an offset keeps the table at about 43 bytes a group
// (29 MB at full scale); a group too long for a byte is marked and searched.

import { allocColumn, type SharedColumn } from '../corpus/shared.js';
import type { FinanceColumns } from './columns.js';

/** keyStart's first entry of a group with LONG_GROUP rows or more: its offsets do not fit a byte, and the job searches it. */
export const LONG_GROUP = 255;

/** Keys a group's rows can have: each category, then codes with no category, then rows with no harmonized code. */
export const keyCount = (nCategories: number): number => nCategories + 2;

/**
 * Per group k (govGroups order), at k * (nKeys + 1): for each key j, the offset from the group's start of its
 * first row whose key is j or more; the last entry is the group's length. Key j's rows are then
 * [start + at[j], start + at[j + 1]).
 */
export function buildKeyStarts(c: Pick<FinanceColumns, 'nGroups' | 'hcode' | 'govMeta'>, codeKey: Uint16Array, nKeys: number): SharedColumn {
  const hcode = new Uint16Array(c.hcode.buffer as unknown as ArrayBuffer, 0, c.hcode.length);
  const gm = new Int32Array(c.govMeta.buffer as unknown as ArrayBuffer, 0, c.govMeta.length);
  const S = nKeys + 1;
  const out = allocColumn('u8', c.nGroups * S), ks = out.view as Uint8Array;
  const n = new Uint16Array(S);
  for (let k = 0; k < c.nGroups; k++) {
    const start = gm[4 * k]! >>> 0, end = gm[4 * k + 1]! >>> 0, at = k * S;
    if (end - start >= LONG_GROUP) { ks[at] = LONG_GROUP; continue; }
    // Counted, not searched: the offsets are the counts' running sums, the lower bounds of a sorted group.
    n.fill(0);
    for (let r = start; r < end; r++) n[codeKey[hcode[r]!]! + 1]!++;
    let sum = 0;
    for (let j = 0; j < S; j++) { sum += n[j]!; ks[at + j] = sum; }
  }
  return out.column;
}
