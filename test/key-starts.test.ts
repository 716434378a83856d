// The key starts (src/finance/key-starts.ts): where each category key's run
// begins inside every (government, year) group, which a category query reads
// instead of searching the group. Checked here against a linear scan of each
// group; test/money-paths.test.ts checks that the money job answers the same
// with them as with the search.

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
  it('give, for every group of the fixture and every key, the first row of that key or later', () => {
    const ctx = fixture();
    const v = attachFinance(ctx.columns);
    const nKeys = keyCount(ctx.engine.categories.length);
    expect(v.keyStride).toBe(nKeys + 1);
    const key = (r: number): number => ctx.engine.codeKey[v.hcode[r]!]!;
    let runs = 0;
    for (let g = 0; g < v.nGroups; g++) {
      const start = v.govMeta[4 * g]! >>> 0, end = v.govMeta[4 * g + 1]! >>> 0, at = g * v.keyStride;
      expect(end - start).toBeLessThan(LONG_GROUP); // the fixture's longest group has 240 rows
      for (let j = 0; j <= nKeys; j++) {
        const want = firstAtLeast(key, start, end, j);
        if (start + v.keyStart[at + j]! !== want) expect([g, j, start + v.keyStart[at + j]!]).toEqual([g, j, want]);
        if (j < nKeys && v.keyStart[at + j + 1]! > v.keyStart[at + j]!) runs++;
      }
    }
    // Most groups hold rows of many keys: a table of zeros or of group lengths would not pass the loop above, and this says it ran.
    expect(runs).toBeGreaterThan(10 * v.nGroups);
  });

  it('mark a group too long for a byte, and fill the others of the same table', () => {
    // Three groups: 3 rows, LONG_GROUP rows (marked), 2 rows; keys from a table of 4 (codes 0-3 have keys 0-3).
    const hcode = [2, 0, 3, ...Array.from({ length: LONG_GROUP }, (_, i) => i % 4), 1, 1];
    const bounds = [0, 3, 3 + LONG_GROUP, 5 + LONG_GROUP];
    const meta = [0, 1, 2].flatMap((k) => [bounds[k]!, bounds[k + 1]!, 0, 0]);
    const codeKey = new Uint16Array(0x10000);
    codeKey.set([0, 1, 2, 3]);
    const ks = new Uint8Array(buildKeyStarts({ nGroups: 3, hcode: share('u16', hcode), govMeta: share('i32', meta) }, codeKey, 4).buffer as unknown as ArrayBuffer);
    // Counted per key, so an unsorted group (the first) still gives its counts' running sums; the loader sorts every group.
    expect(Array.from(ks.subarray(0, 5))).toEqual([0, 1, 1, 2, 3]);
    expect(ks[5]).toBe(LONG_GROUP);
    expect(Array.from(ks.subarray(10, 15))).toEqual([0, 0, 2, 2, 2]);
  });
});
