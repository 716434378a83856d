// The key starts (src/finance/key-starts.ts): where each category key's run
// begins inside every (government, year) group, which a category query reads
// instead of searching the group, and whether a group's rows without a
// harmonized code hold any a plan could count as not applicable. Checked here
// against a walk of each group; test/money-paths.test.ts checks that the money
// job answers the same with them as with the search.

import { describe, expect, it } from 'vitest';
import { share } from '../dist/src/corpus/shared.js';
import { buildKeyStarts, keyCount, LONG_GROUP } from '../dist/src/finance/key-starts.js';
import { attachFinance } from '../dist/workers/finance/corpus.js';
import { useFixtureCtx } from './helpers/fixture-ctx.js';

const fixture = useFixtureCtx();

/** The first row of [start, end) whose key is j or more, found by walking the group: the naive answer. */
function firstAtLeast(key: (r: number) => number, start: number, end: number, j: number): number {
  let r = start;
  while (r < end && key(r) < j) r++;
  return r;
}

describe('the key starts', () => {
  it('give, for every group of the fixture and every key, the first row of that key or later, and its not-applicable candidates', () => {
    const ctx = fixture();
    const e = ctx.engine;
    const v = attachFinance(ctx.columns);
    const nKeys = keyCount(e.categories.length);
    expect(v.keyStride).toBe(nKeys + 2);
    const key = (r: number): number => e.codeKey[v.hcode[r]!]!;
    // The definition, written out: no harmonized code, not an aggregate, a Direct (not intergovernmental) or revenue code with a subtype.
    const candidate = (r: number): boolean => {
      const code = v.code[r]!, flow = e.codeFlow[code]!, sub = e.codeSub[code]!;
      return v.hcode[r] === 0xffff && (v.flags[r]! & 1) === 0 && sub >= 0
        && (flow === 2 || (flow === 1 && e.subtypes[sub] !== 'intergovernmental')); // FLOW_ID: expenditure 1, revenue 2
    };
    let runs = 0, withCandidates = 0;
    for (let g = 0; g < v.nGroups; g++) {
      const start = v.govMeta[4 * g]! >>> 0, end = v.govMeta[4 * g + 1]! >>> 0, at = g * v.keyStride;
      expect(end - start).toBeLessThan(LONG_GROUP); // the fixture's longest group has 240 rows
      for (let j = 0; j <= nKeys; j++) {
        const want = firstAtLeast(key, start, end, j);
        if (start + v.keyStart[at + j]! !== want) expect([g, j, start + v.keyStart[at + j]!]).toEqual([g, j, want]);
        if (j < nKeys && v.keyStart[at + j + 1]! > v.keyStart[at + j]!) runs++;
      }
      let any = 0;
      for (let r = start; r < end; r++) if (candidate(r)) any = 1;
      if (v.keyStart[at + nKeys + 1] !== any) expect([g, v.keyStart[at + nKeys + 1]]).toEqual([g, any]);
      withCandidates += any;
    }
    // Most groups hold rows of many keys: a table of zeros or of group lengths would not pass the loop above, and this says it ran.
    expect(runs).toBeGreaterThan(10 * v.nGroups);
    // The fixture's few (its states' unmapped harmonized rows), found: a flag always 0 or always 1 would fail above.
    expect(withCandidates).toBeGreaterThan(0);
    expect(withCandidates).toBeLessThan(v.nGroups / 10);
  });

  it('mark a group too long for a byte, and fill the others of the same table', () => {
    // Three groups: 3 rows, LONG_GROUP rows (marked), 2 rows; keys from a table of 4 (codes 0-3 have keys 0-3).
    // Code 5 is a candidate: the last group's one row of it, without a harmonized code, sets its flag.
    const hcode = [2, 0, 3, ...Array.from({ length: LONG_GROUP }, (_, i) => i % 4), 1, 0xffff];
    const code = hcode.map((h, r) => (r === hcode.length - 1 ? 5 : h));
    const bounds = [0, 3, 3 + LONG_GROUP, 5 + LONG_GROUP];
    const meta = [0, 1, 2].flatMap((k) => [bounds[k]!, bounds[k + 1]!, 0, 0]);
    const codeKey = new Uint16Array(0x10000).fill(3);
    codeKey.set([0, 1, 2, 3]);
    const candidates = new Uint8Array(0x10000);
    candidates[5] = 1;
    const columns = { nGroups: 3, code: share('u16', code), hcode: share('u16', hcode), flags: share('u8', hcode.map(() => 0)), govMeta: share('i32', meta) };
    const ks = new Uint8Array(buildKeyStarts(columns, codeKey, 4, candidates).buffer as unknown as ArrayBuffer);
    // Counted per key, so an unsorted group (the first) still gives its counts' running sums; the loader sorts every group.
    expect(Array.from(ks.subarray(0, 6))).toEqual([0, 1, 1, 2, 3, 0]);
    expect(ks[6]).toBe(LONG_GROUP);
    expect(Array.from(ks.subarray(12, 18))).toEqual([0, 0, 1, 1, 2, 1]);
  });
});
