// The per-request time budget: past it a 504 envelope at once, the job is
// cancelled, and the server goes on answering.

import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, get } from './helpers/http.js';
import { startServer } from './helpers/server.js';

describe('time budget', () => {
  it('a request past REQUEST_TIMEOUT_MS gets a 504 envelope near the budget; cheap requests and the next ones are served', async () => {
    const s = await startServer({ WORKERS: '1', REQUEST_TIMEOUT_MS: '30', RESPONSE_CACHE_MB: '0' });
    try {
      const got = (p: string) => get(p, undefined, s.url);
      // A whole-registry fleet slice of all years takes 60-100 ms on one worker (and only longer on a loaded machine).
      const t0 = performance.now();
      const heavy = await got('/api/v1/spending?type=city&years=2011-2020&limit=1000&page=30');
      const ms = performance.now() - t0;
      expect(expectErrorEnvelope(heavy, 504)).toBe('The request took longer than 30 ms and was cancelled; ask for less at once (fewer years or governments, a smaller limit) or page through it.');
      expect(ms).toBeLessThan(1000);
      expect((await got('/api/v1/categories?type=spending')).status).toBe(200);
      const health = await got('/api/v1/health');
      expect(health.status).toBe(200);
      // The cancelled job does not linger in the pool.
      await new Promise((r) => setTimeout(r, 300));
      expect((await got('/api/v1/health')).body.data[0].pool_jobs).toBe(0);
    } finally {
      await s.stop();
    }
  });

  // The request's AbortController is made only when a handler asks for the signal (http.ts): whether the
  // budget or the client comes first, a job running on the pool must still be cancelled, not left to run.
  it('the budget and a client that leaves each cancel a job running on the pool (its worker freed long before the job would end)', async () => {
    const s = await startServer({ WORKERS: '1', REQUEST_TIMEOUT_MS: '100', RESPONSE_CACHE_MB: '0', CIVICSTREAM_FAULTS: '1', FRONT_THREADS: '1' });
    try {
      const got = (p: string) => get(p, undefined, s.url);
      const poolJobs = async (): Promise<number> => (await got('/api/v1/health')).body.data[0].pool_jobs as number;
      const settled = async (): Promise<number> => {
        // A hanging job blocks its worker for 10 s; cancelled, it is gone within a second.
        for (let t = 0; t < 20 && (await poolJobs()) > 0; t++) await new Promise((r) => setTimeout(r, 100));
        return poolJobs();
      };
      // (A small job batched to the pool is not cancelled once posted, by design: it is short.)
      const hung = await got('/__faults__/worker?kind=hang');
      expect(expectErrorEnvelope(hung, 504)).toMatch(/^The request took longer than 100 ms and was cancelled/);
      expect(await settled(), 'budget').toBe(0);
      const leaving = new AbortController();
      const asked = fetch(`${s.url}/__faults__/worker?kind=hang`, { signal: leaving.signal }).catch(() => 'left');
      await new Promise((r) => setTimeout(r, 50));
      expect(await poolJobs()).toBe(1);
      leaving.abort();
      expect(await asked).toBe('left');
      expect(await settled(), 'client left').toBe(0);
      expect((await got('/api/v1/categories?type=spending')).status).toBe(200);
    } finally {
      await s.stop();
    }
  });
});
