// The start log's shared_bytes counts every byte of shared memory the finance data holds: the corpus columns
// and the count index (issue 32), and count_index_bytes names the index's part. The expected sums are taken
// here by walking the data for SharedArrayBuffers, not by the loader's own counting.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../dist/src/config.js';
import { loadFinanceData } from '../dist/src/finance/http/service.js';
import { ROOT } from './helpers/server.js';

/** Bytes of the distinct SharedArrayBuffers reachable from v (one level of objects down, as columns are held). */
function sharedIn(v: unknown, seen = new Set<SharedArrayBuffer>()): number {
  let n = 0;
  if (v instanceof SharedArrayBuffer) {
    if (!seen.has(v)) { seen.add(v); n += v.byteLength; }
    return n;
  }
  if (typeof v === 'object' && v !== null && !ArrayBuffer.isView(v)) for (const x of Object.values(v)) n += sharedIn(x, seen);
  return n;
}

describe('shared memory in the start figures', () => {
  it('shared_bytes is the corpus columns and the count index; count_index_bytes the index alone', async () => {
    const data = await loadFinanceData(readConfig({ ...process.env, FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v6'), WORKERS: '1' }));
    const index = sharedIn(data.countIndex);
    const corpus = sharedIn(data.columns);
    expect(index).toBeGreaterThan(0);
    expect(data.stats.countIndexBytes).toBe(index);
    expect(data.stats.sharedBytes).toBe(corpus + index);
  }, 60_000);
});
