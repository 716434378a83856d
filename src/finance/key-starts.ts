// Where each category's run starts inside every (government, year) group:
// derived at load (never cached), in shared memory like the columns.
//
// A group's rows are sorted by their category key (columns.ts
// rowCategoryKey). A harmonized query for a few categories used to find each
// run by a binary search of the group's hcode, after touching every line of
// it, twice (prefetch, then aggregate): at full scale, a fifth of one
// government's Police job went there (31 to 24.5 us cold, issue 32). With
// these offsets the job goes to the run's rows at once and reads nothing else
// of the group. One byte an offset keeps the table at 44 bytes a group
// (30 MB at full scale); a group too long for a byte is marked and searched.
//
// One more byte a group says whether its rows without a harmonized code hold
// any that a plan could count as not applicable (provenance's
// na_rows_excluded): a third of a government's rows at full scale have no
// harmonized code, and all but 5,115 of the corpus's 46 million are
// aggregates or codes no plan counts, so the job skips reading them.

import { allocColumn, type SharedColumn } from '../corpus/shared.js';
import { FLAG_AGGREGATE, NO_CODE, unmappedKey, type FinanceColumns } from './columns.js';
import { FLOW_ID, type EngineCatalog } from './engine-catalog.js';

/** keyStart's first entry of a group with LONG_GROUP rows or more: its offsets do not fit a byte, and the job searches it. */
export const LONG_GROUP = 255;

/** Keys a group's rows can have: each category, then codes with no category, then rows with no harmonized code. */
export const keyCount = (nCategories: number): number => unmappedKey(nCategories) + 1;

/** The entries a group has in keyStart: a start per key, the group's length, and whether it has not-applicable candidates. */
export const keyStride = (nKeys: number): number => nKeys + 2;

/** Where in a group's entries (keyStride of them) its flag is: the last, after the group's length. */
export const candidatesEntry = (stride: number): number => stride - 1;

/**
 * Per code id: 1 when a row of it without a harmonized code can count toward some plan's not-applicable
 * totals. Money-cells.ts's naUnmapped is this narrowed by the plan's flows and subtypes in scope: a Direct
 * or revenue code with a subtype, not intergovernmental (the scan sends those to their own leg).
 */
export function unmappedCandidates(e: Pick<EngineCatalog, 'nCodes' | 'codeFlow' | 'codeSub' | 'subtypes'>): Uint8Array {
  const igSub = e.subtypes.indexOf('intergovernmental');
  const out = new Uint8Array(e.nCodes);
  for (let code = 0; code < e.nCodes; code++) {
    const flow = e.codeFlow[code]!, sub = e.codeSub[code]!;
    if ((flow === FLOW_ID.expenditure || flow === FLOW_ID.revenue) && sub >= 0 && !(flow === FLOW_ID.expenditure && sub === igSub)) out[code] = 1;
  }
  return out;
}

/**
 * Per group k (govGroups order), at k * keyStride(nKeys): for each key j, the offset from the group's start
 * of its first row whose key is j or more; then the group's length (key j's rows are [start + at[j],
 * start + at[j + 1])); then 1 when one of its rows without a harmonized code is a candidate (not an
 * aggregate, and its code in `candidates`), else 0.
 */
export function buildKeyStarts(c: Pick<FinanceColumns, 'nGroups' | 'code' | 'hcode' | 'flags' | 'govMeta'>, codeKey: Uint16Array, nKeys: number, candidates: Uint8Array): SharedColumn {
  const code = new Uint16Array(c.code.buffer as unknown as ArrayBuffer, 0, c.code.length);
  const hcode = new Uint16Array(c.hcode.buffer as unknown as ArrayBuffer, 0, c.hcode.length);
  const flags = new Uint8Array(c.flags.buffer as unknown as ArrayBuffer, 0, c.flags.length);
  const gm = new Int32Array(c.govMeta.buffer as unknown as ArrayBuffer, 0, c.govMeta.length);
  const S = keyStride(nKeys);
  const out = allocColumn('u8', c.nGroups * S), ks = out.view as Uint8Array;
  const n = new Uint16Array(nKeys + 1);
  for (let k = 0; k < c.nGroups; k++) {
    const start = gm[4 * k]! >>> 0, end = gm[4 * k + 1]! >>> 0, at = k * S;
    if (end - start >= LONG_GROUP) { ks[at] = LONG_GROUP; continue; }
    // Counted, not searched: the offsets are the counts' running sums, the lower bounds of a sorted group.
    n.fill(0);
    let candidate = 0;
    for (let r = start; r < end; r++) {
      const h = hcode[r]!;
      n[codeKey[h]! + 1]!++;
      if (h === NO_CODE && (flags[r]! & FLAG_AGGREGATE) === 0 && candidates[code[r]!] === 1) candidate = 1;
    }
    let sum = 0;
    for (let j = 0; j <= nKeys; j++) { sum += n[j]!; ks[at + j] = sum; }
    ks[at + candidatesEntry(S)] = candidate;
  }
  return out.column;
}
