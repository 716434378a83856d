// Access logs: one JSON line per request with time, route path, status,
// duration, bytes and request id; never the query values.

import { describe, expect, it } from 'vitest';
import { startServer } from './helpers/server.js';

describe('access log', () => {
  it('one JSON line per request, carrying the request id and no query value', async () => {
    const s = await startServer({ WORKERS: '1', ACCESS_LOG: 'true' });
    let out = '';
    s.proc.stdout!.on('data', (d) => { out += d; });
    try {
      const ok = await fetch(`${s.url}/api/v1/governments?q=secret-token-123&limit=2`);
      await ok.text();
      const bad = await fetch(`${s.url}/api/v1/governments?limit=secret-limit-456`);
      await bad.text();
      const ids = [ok.headers.get('x-request-id'), bad.headers.get('x-request-id')];
      const ours = () => out.slice(0, out.lastIndexOf('\n') + 1).split('\n').filter((l) => l.includes('"request_id"')).map((l) => JSON.parse(l)).filter((l) => ids.includes(l.request_id));
      // The lines are written after the answers; a poll (up to 10 s), since a busy machine can delay them.
      await expect.poll(() => ours().length, { timeout: 10_000, interval: 20 }).toBe(ids.length);
      const mine = ours();
      expect(mine.map((l) => l.status)).toEqual([200, 400]);
      for (const l of mine) {
        expect(Object.keys(l).sort()).toEqual(['bytes', 'duration_ms', 'method', 'path', 'request_id', 'service', 'status', 'time']);
        expect(l).toMatchObject({ service: 'finance', method: 'GET', path: '/api/v1/governments' });
        expect(Number.isNaN(Date.parse(l.time))).toBe(false);
        expect(l.duration_ms).toBeGreaterThanOrEqual(0);
        expect(l.bytes).toBeGreaterThan(0);
      }
      expect(out).not.toContain('secret-token-123');
      expect(out).not.toContain('secret-limit-456');
    } finally {
      await s.stop();
    }
  });
});
