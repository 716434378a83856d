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
});
