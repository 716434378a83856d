// A client that pipelines many requests and never reads their answers holds at most one answer on the server:
// the rest is not made, the connection is closed, memory stays flat and other clients are answered at once.
// (An audit of 2026-11-28: 600 requests of a 1.5 MB script in one 50 KB write took the server from 0.7 to
// 1.7 GB, and /livez did not answer within 5 s.)

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServer, type Running } from './helpers/server.js';

let s: Running;
beforeAll(async () => { s = await startServer({ WORKERS: '1' }); });
afterAll(async () => { await s?.stop(); });

/** The whole process's resident memory, in MB (every thread's). */
const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function livezMs(base: string): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(`${base}/livez`, { signal: AbortSignal.timeout(5_000) });
  expect(r.status).toBe(200);
  return performance.now() - t0;
}

describe('a pipelining client that never reads', () => {
  for (const [what, target, n] of [['a 1.5 MB script', '/__docs__/swagger-ui-bundle.js', 600], ['a cached 80 KB answer', '/api/v1/data-dictionary', 10000]] as const) {
    it(`of ${what}, ${n} times in one go: memory stays flat and others are answered`, async () => {
      const base = s.url;
      const port = Number(new URL(base).port);
      await fetch(`${base}${target}`).then((r) => r.arrayBuffer()); // made and cached before the flood
      const before = rssMb(s.proc.pid!);
      const py = spawn('python3', [path.join(ROOT, 'test/helpers/pipeline-unread.py'), '127.0.0.1', String(port), target, String(n)], { stdio: ['pipe', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => py.stdout!.on('data', (d: Buffer) => { if (d.toString().startsWith('sent')) resolve(); }));
      let peak = before, slowest = 0;
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 250));
        peak = Math.max(peak, rssMb(s.proc.pid!));
        slowest = Math.max(slowest, await livezMs(base));
      }
      py.stdin!.end('\n');
      await new Promise((r) => py.once('exit', r));
      // The old server held every answer: hundreds of MB more within a second.
      expect(peak - before, `RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MB`).toBeLessThan(120);
      expect(slowest, '/livez during the flood (ms)').toBeLessThan(1_000);
      // The connection was closed, not held: the server still serves that file whole to a client that reads.
      const again = await fetch(`${base}${target}`);
      expect(again.status).toBe(200);
      expect((await again.arrayBuffer()).byteLength).toBeGreaterThan(50_000);
    });
  }
});
