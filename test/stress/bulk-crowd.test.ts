// Small queries under a bulk crowd (issue 23, finding 9): 200 CSV clients
// (150 fast, 50 at 64 KB/s) honouring Retry-After, while a probe asks one
// government's spending again and again. On one front thread every job goes
// to the pool, so this is the case where small jobs could wait behind bulk
// ones. Before, the crowd filled the pool's queue: small queries were refused
// (503) or waited behind pages (p99 774 ms in the adversarial run). Now bulk
// work is bounded by the page slots and small jobs' batches go first
// (src/pool-lanes.ts): every probe is answered. Latency is measured by
// npm run bench:crowd, not asserted here.

import { spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, startServer, type Running } from '../helpers/server.js';

const PULL = '/api/v1/spending?type=city&format=csv';
const SECONDS = 20;
const SLOTS = 12;
const CROWD = fileURLToPath(new URL('../../scripts/lib/crowd.py', import.meta.url));

let s: Running;
type Health = { open_streams: number; pool_jobs: number };
const health = async (): Promise<Health> => ((await (await fetch(`${s.url}/api/v1/health`)).json()) as { data: Health[] }).data[0]!;

beforeAll(async () => { s = await startServer({ FRONT_THREADS: '1', WORKERS: '2', CSV_PAGE_SLOTS: String(SLOTS), RESPONSE_CACHE_MB: '0' }, 60_000, process.env.STRESS_MAIN ?? MAIN); });
afterAll(async () => { await s?.stop(); });

function crowd(n: number, rate: number, rcvbuf: number): Promise<void> {
  const p = spawn('python3', [CROWD, '127.0.0.1', String(s.port), PULL, String(n), String(rate), String(SECONDS), String(rcvbuf)], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => p.once('exit', () => resolve()));
}

describe('a bulk crowd', () => {
  it('keeps bulk work within the page slots and answers every small query', async () => {
    const govs = ((await (await fetch(`${s.url}/api/v1/governments?limit=500`)).json()) as { data: { canonical_govid: string; years_in_mirror: number[] }[] })
      .data.filter((g) => g.years_in_mirror.length > 0).map((g) => g.canonical_govid);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ask = (url: string): Promise<[number, number]> => new Promise((resolve, reject) => {
      const t0 = performance.now();
      http.get(url, { agent }, (res) => { res.resume(); res.on('end', () => resolve([res.statusCode ?? 0, performance.now() - t0])); }).on('error', reject);
    });
    const done = Promise.all([crowd(150, 0, 65536), crowd(50, 64 * 1024, 2048)]);
    await new Promise((r) => setTimeout(r, 2000));
    const statuses: Record<number, number> = {};
    const ms: number[] = [];
    let peakStreams = 0, peakJobs = 0, k = 0;
    const until = performance.now() + (SECONDS - 4) * 1000;
    while (performance.now() < until) {
      const [status, t] = await ask(`${s.url}/api/v1/governments/${govs[(k++ * 7919) % govs.length]}/spending?category=Police`);
      statuses[status] = (statuses[status] ?? 0) + 1;
      ms.push(t);
      if (k % 20 === 0) {
        const h = await health();
        peakStreams = Math.max(peakStreams, h.open_streams);
        peakJobs = Math.max(peakJobs, h.pool_jobs);
      }
    }
    await done;
    agent.destroy();
    ms.sort((a, b) => a - b);
    console.log(`bulk crowd: ${k} small queries ${JSON.stringify(statuses)}, p50 ${ms[Math.floor(ms.length / 2)]!.toFixed(1)} ms, p99 ${ms[Math.floor(ms.length * 0.99)]!.toFixed(1)} ms; streams at most ${peakStreams}, pool jobs at most ${peakJobs}`);
    expect(Object.keys(statuses)).toEqual(['200']);
    expect(k).toBeGreaterThan(100);
    expect(peakStreams).toBeLessThanOrEqual(SLOTS);
  });
});
