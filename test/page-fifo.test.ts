// The page-job stall end to end (bench/fresh-stall.ts, issue 32's pairs
// runs): four clients pull the same never-kept CSV page back to back with one
// pool worker. Piscina put a page job that it shifted off with no worker free,
// and that carried an abort signal, in a queue of its own that newer tasks
// bypassed: one pull waited 0.5-0.8 s on the fixture while a couple of hundred
// pulls sent after it were answered. The fix (a short page job posted without
// the signal, run-money.ts; stricterFIFO and LaneQueue.unshift, pool.ts and
// pool-lanes.ts) serves the page jobs in order. Checked by order, not by time:
// no pull may be overtaken by more pulls sent after it than the clients could
// have in flight around it. With either half of the fix undone alone, the
// worst pull was overtaken by 105-457 (2026-11-27); with both, by 0 or 1.

import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startServer } from './helpers/server.js';

const CLIENTS = 4;
const SECONDS = 8;
/**
 * Pulls sent after one and answered before its headers came. Served in order, only sends close together on
 * different sockets can arrive the other way round: at most the other clients' CLIENTS - 1. Twice CLIENTS is
 * slack, and still 13 times below the least a broken order gave (105).
 */
const OVERTAKEN_AT_MOST = 2 * CLIENTS;

interface Pull { sent: number; headersAt: number; done: number; bytes: number; status: number }

describe('page jobs in order', () => {
  it(`${CLIENTS} clients pulling one CSV page back to back with 1 worker: no pull is overtaken by more than ${OVERTAKEN_AT_MOST} sent after it`, async () => {
    const s = await startServer({ FRONT_THREADS: '1', WORKERS: '1', RESPONSE_CACHE_MB: '0', RATE_LIMIT: '0' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    try {
      const page = '/api/v1/spending?state=CA&type=city&years=2011-2020&format=csv';
      // Events in one sequence: a pull's send, its headers, its end.
      let clock = 0;
      const pull = (): Promise<Pull> => new Promise((resolve, reject) => {
        const p: Pull = { sent: clock++, headersAt: -1, done: -1, bytes: 0, status: 0 };
        const req = http.get({ host: '127.0.0.1', port: s.port, path: page, agent }, (res) => {
          p.headersAt = clock++;
          p.status = res.statusCode ?? 0;
          res.on('data', (b: Buffer) => { p.bytes += b.length; });
          res.on('end', () => { p.done = clock++; resolve(p); });
          res.on('error', reject);
        });
        req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
        req.on('error', reject);
      });
      const first = await pull();
      expect(first.status).toBe(200);
      const t0 = performance.now(), pulls: Pull[] = [];
      await Promise.all(Array.from({ length: CLIENTS }, async () => {
        while (performance.now() - t0 < SECONDS * 1000) pulls.push(await pull());
      }));
      // Every pull whole: the same page, the same bytes.
      expect(pulls.filter((p) => p.status !== 200 || p.bytes !== first.bytes).map((p) => `${p.status}: ${p.bytes} bytes`)).toEqual([]);
      // For each pull, the pulls sent after it that ended before its headers came.
      const overtaken = pulls.map((p) => pulls.filter((q) => q.sent > p.sent && q.done < p.headersAt).length);
      const worst = Math.max(...overtaken);
      console.log(`page jobs in order: ${pulls.length} pulls in ${SECONDS} s, at most ${worst} overtaken`);
      expect(pulls.length).toBeGreaterThan(100);
      expect(worst).toBeLessThanOrEqual(OVERTAKEN_AT_MOST);
    } finally {
      agent.destroy();
      await s.stop();
    }
  }, 60_000);
});
