// The pool's batching of small jobs, on a real Piscina pool (no corpus).

import { afterAll, describe, expect, it } from 'vitest';
import { Pool } from '../dist/src/pool.js';

const pool = new Pool({ workers: 2, workerData: {}, maxQueue: 1000 });
afterAll(() => pool.close());

describe('small jobs', () => {
  it('of one turn go out as one batch per worker, a long turn\'s in chunks of 8 as they arrive', async () => {
    await pool.warm();
    const burst = async (n: number) => {
      const b0 = pool.batches, j0 = pool.batchedJobs;
      // All n are submitted in one synchronous run: one turn of the event loop.
      const out = await Promise.all(Array.from({ length: n }, () => pool.runSmall('ping', {})));
      for (const r of out) expect(r.threadId).toBeGreaterThan(0);
      return { messages: pool.batches - b0, jobs: pool.batchedJobs - j0 };
    };
    expect(await burst(6)).toEqual({ messages: 2, jobs: 6 });
    // 8 and 16 pending post at once (each split across the 2 workers), the last 4 at the end of the turn.
    expect(await burst(20)).toEqual({ messages: 6, jobs: 20 });
    expect(await burst(1)).toEqual({ messages: 1, jobs: 1 });
  });

  it('go out during the turn once each worker has 4, before the turn ends', async () => {
    const b0 = pool.batches;
    const first = Array.from({ length: 7 }, () => pool.runSmall('ping', {}));
    expect(pool.batches - b0).toBe(0);
    first.push(pool.runSmall('ping', {}));
    // Still inside the same synchronous run: the eighth job posted the batch.
    expect(pool.batches - b0).toBe(2);
    await Promise.all(first);
    expect(pool.batches - b0).toBe(2);
  });

  it('drop a job whose signal fired before its batch was posted, settling it as aborted', async () => {
    const c = new AbortController();
    const jobs = Array.from({ length: 3 }, () => pool.runSmall('ping', {}));
    const dropped = pool.runSmall('ping', {}, c.signal);
    c.abort(new Error('client left'));
    jobs.push(...Array.from({ length: 4 }, () => pool.runSmall('ping', {})));
    await expect(dropped).rejects.toThrow('client left');
    for (const r of await Promise.all(jobs)) expect(r.threadId).toBeGreaterThan(0);
  });
});
