// The per-request time budget: past it a 504 envelope at once, the job is
// cancelled, and the server goes on answering.

import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, get } from './helpers/http.js';
import { startServer } from './helpers/server.js';

describe('time budget', () => {
  // The job is the fault hook's hang (it blocks its worker for 10 s), not a query guessed to be slow
  // enough: the test holds on a machine of any speed.
  it('a request past REQUEST_TIMEOUT_MS gets a 504 envelope near the budget; cheap requests and the next ones are served', async () => {
    const s = await startServer({ WORKERS: '1', REQUEST_TIMEOUT_MS: '200', RESPONSE_CACHE_MB: '0', CIVICSTREAM_FAULTS: '1', FRONT_THREADS: '1' });
    try {
      const got = (p: string) => get(p, undefined, s.url);
      const t0 = performance.now();
      const hung = await got('/__faults__/worker?kind=hang');
      const ms = performance.now() - t0;
      expect(expectErrorEnvelope(hung, 504)).toBe('The request took longer than 200 ms and was cancelled; ask for less at once (fewer years or governments, a smaller limit) or page through it.');
      // At the budget, not when the 10 s job would have ended.
      expect(ms).toBeGreaterThanOrEqual(190);
      expect(ms).toBeLessThan(3000);
      expect((await got('/api/v1/categories?type=spending')).status).toBe(200);
      expect((await got('/api/v1/health')).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  // The request's AbortController is made only when a handler asks for the signal (http.ts): whether the
  // budget or the client comes first, a job running on the pool must still be cancelled, not left to run.
  it('the budget and a client that leaves each cancel a job running on the pool (its worker freed long before the job would end)', async () => {
    // The budget (2 s) leaves room, on a machine busy with other test files, for the client's part to see its job
    // on the pool and leave before the budget would cancel it; each wait below is a poll against a deadline, and
    // every deadline ends well before the 10 s a job left to run would take.
    const s = await startServer({ WORKERS: '1', REQUEST_TIMEOUT_MS: '2000', RESPONSE_CACHE_MB: '0', CIVICSTREAM_FAULTS: '1', FRONT_THREADS: '1' });
    try {
      const got = (p: string) => get(p, undefined, s.url);
      const poolJobs = async (): Promise<number> => (await got('/api/v1/health')).body.data[0].pool_jobs as number;
      // A hanging job blocks its worker for 10 s; cancelled, it is gone within a second (5 s allowed).
      const settled = (why: string): Promise<void> => expect.poll(poolJobs, { timeout: 5000, interval: 20, message: why }).toBe(0);
      // (A small job batched to the pool is not cancelled once posted, by design: it is short.)
      const hung = await got('/__faults__/worker?kind=hang');
      expect(expectErrorEnvelope(hung, 504)).toMatch(/^The request took longer than 2000 ms and was cancelled/);
      await settled('budget');
      const leaving = new AbortController();
      const asked = fetch(`${s.url}/__faults__/worker?kind=hang`, { signal: leaving.signal }).catch(() => 'left');
      await expect.poll(poolJobs, { timeout: 1500, interval: 20, message: 'the job reached the pool' }).toBe(1);
      leaving.abort();
      expect(await asked).toBe('left');
      await settled('client left');
      expect((await got('/api/v1/categories?type=spending')).status).toBe(200);
    } finally {
      await s.stop();
    }
  });
});
