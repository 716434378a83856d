// Money rows cross threads as one buffer (plan.ts packRows/rowsOf). Packed and
// unpacked on one thread (a small job run inline on a front thread), the rows
// are the views they were packed from; a buffer that crossed a thread (a
// structured clone) gets views of its own with the same values.

import { describe, expect, it } from 'vitest';
import { packRows, rowsOf } from '../dist/src/finance/plan.js';

function someRows(n: number, nCodes: number) {
  const r = rowsOf({ n, nCodes });
  for (let i = 0; i < n; i++) { r.year[i] = 2000 + i; r.gov[i] = 7 * i; r.amt[i] = i * 1.5; r.cat[i] = -i; r.pop[i] = 100 * i; r.codesStart[i] = i; }
  r.codesStart[n] = nCodes;
  for (let k = 0; k < nCodes; k++) r.codes[k] = 3 * k;
  return r;
}

describe('packed money rows', () => {
  it('unpacked on the thread that packed them: the same views', () => {
    const r = someRows(5, 5);
    const back = rowsOf(packRows(r));
    expect(back).toBe(r);
  });

  it('unpacked from a clone (another thread): new views over the clone, the same values', () => {
    const r = someRows(6, 6);
    const clone = structuredClone(packRows(r));
    const back = rowsOf(clone);
    expect(back).not.toBe(r);
    expect(back.amt.buffer).toBe(clone.buffer);
    for (const k of ['year', 'gov', 'amt', 'cat', 'pop', 'codesStart', 'codes'] as const) expect([...back[k]]).toEqual([...r[k]]);
  });
});
