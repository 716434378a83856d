// Overload: a bounded queue in front of the pool. A burst far over capacity
// gets only 200s and 503s (with Retry-After, in the envelope), and the server
// answers normally right after.

import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, get } from './helpers/http.js';
import { startServer } from './helpers/server.js';

const HEAVY = '/api/v1/spending?type=city&years=2011-2020&limit=1000&page=';

describe('overload', () => {
  it('a burst of 150 fleet requests against 1 worker and a queue of 4: only 200s and 503s, then normal service', async () => {
    const s = await startServer({ WORKERS: '1', POOL_QUEUE: '4', RESPONSE_CACHE_MB: '0' });
    try {
      const fetchGot = (p: string) => get(p, undefined, s.url);
      const t0 = performance.now();
      const burst = await Promise.all(Array.from({ length: 150 }, (_, i) => fetchGot(`${HEAVY}${i % 20}`)));
      const ms = performance.now() - t0;
      const statuses = burst.map((g) => g.status);
      expect(new Set(statuses)).toEqual(new Set([200, 503]));
      const busy = burst.filter((g) => g.status === 503);
      // 1 running + 4 waiting at any moment: most of a simultaneous burst is refused at once.
      expect(busy.length).toBeGreaterThan(100);
      for (const g of busy) {
        expect(expectErrorEnvelope(g, 503)).toMatch(/^The server is at capacity \(\d+ jobs running or waiting\); retry after the Retry-After seconds\.$/);
        expect(g.headers.get('retry-after')).toBe('1');
      }
      for (const g of burst.filter((x) => x.status === 200)) expect(g.body.data.length).toBe(1000);
      const after = await fetchGot(`${HEAVY}0`);
      expect(after.status).toBe(200);
      const health = await fetchGot('/api/v1/health');
      expect(health.status).toBe(200);
      expect(health.body.data[0].pool_jobs).toBe(0);
      console.log(`overload burst: ${statuses.filter((x) => x === 200).length} x 200, ${busy.length} x 503 in ${Math.round(ms)} ms`);
    } finally {
      await s.stop();
    }
  });
});
