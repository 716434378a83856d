// Descriptor exhaustion (issue 23, finding 2): a server under `ulimit -n
// 1200` takes 1,500 connections that say nothing. Before, accept() failed
// with EMFILE in uWS's loop, both front threads spun at 100% CPU, a new
// client waited about 25 s and /health failed on a system call. Now the
// connection gate closes the listening sockets at MAX_CONNECTIONS (by default
// three quarters of the descriptors free at start): nothing spins, a new
// client is refused at once, /health on a connection already open answers
// and reports the cap, and once the idle connections go the server listens
// again.

import net from 'node:net';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, startServer, type Running } from '../helpers/server.js';

const LIMIT = 1200;
const CLIENTS = 1500;

let s: Running;
beforeAll(async () => { s = await startServer({ WORKERS: '1' }, 60_000, process.env.STRESS_MAIN ?? MAIN, { nofile: LIMIT }); });
afterAll(async () => { await s?.stop(); });

/** CPU seconds the server process has used (user + system, all threads). */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

type Conn = { open_connections: number | null; max_connections: number; descriptor_limit: number | null; paused: boolean; pauses: number };

describe('descriptor exhaustion', () => {
  it(`${CLIENTS} silent connections under ulimit -n ${LIMIT}: no spin, a new client refused at once, /health answers with the cap, and the server listens again once they go`, async () => {
    // A kept-alive connection opened first, used every second (uWS closes one idle for 10 s).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const health = (): Promise<{ status: number; conn: Conn }> => new Promise((resolve, reject) => {
      http.get(`${s.url}/api/v1/health`, { agent }, (res) => {
        let t = '';
        res.on('data', (d) => { t += d; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, conn: (JSON.parse(t) as { data: { connections: Conn }[] }).data[0]!.connections }));
      }).on('error', reject);
    });
    const first = await health();
    expect(first.status).toBe(200);
    expect(first.conn.descriptor_limit).toBe(LIMIT);
    expect(first.conn.max_connections).toBeLessThan(LIMIT);
    expect(first.conn.paused).toBe(false);

    const socks: net.Socket[] = [];
    let refused = 0, reset = 0;
    await Promise.all(Array.from({ length: CLIENTS }, () => new Promise<void>((resolve) => {
      const c = net.connect(s.port, '127.0.0.1');
      socks.push(c);
      c.once('connect', () => resolve());
      c.on('error', (e: NodeJS.ErrnoException) => { if (e.code === 'ECONNREFUSED') refused++; else reset++; resolve(); });
    })));
    await new Promise((r) => setTimeout(r, 1000));

    const c0 = cpuSeconds(s.proc.pid!);
    const samples: Conn[] = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const h = await health();
      expect(h.status).toBe(200);
      samples.push(h.conn);
    }
    const cpu = (cpuSeconds(s.proc.pid!) - c0) / 3;
    expect(samples.every((c) => c.paused)).toBe(true);

    // A new client is refused at once, not left waiting.
    const t0 = performance.now();
    const fresh = await new Promise<string>((resolve) => {
      const c = net.connect(s.port, '127.0.0.1');
      c.once('connect', () => { c.destroy(); resolve('connected'); });
      c.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    const waited = performance.now() - t0;
    console.log(`descriptors: ${CLIENTS} connections, ${refused} refused and ${reset} reset at connect; cap ${first.conn.max_connections} of ${LIMIT}; CPU ${(cpu * 100).toFixed(0)}% of a core while held; a new client: ${fresh} in ${waited.toFixed(0)} ms; gate ${JSON.stringify(samples.at(-1))}`);
    expect(fresh).toBe('ECONNREFUSED');
    expect(waited).toBeLessThan(1000);
    expect(cpu).toBeLessThan(0.3);

    // They go: the server listens again.
    for (const c of socks) c.destroy();
    let back: Conn | undefined;
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 200));
      back = (await health()).conn;
      if (!back.paused) break;
    }
    expect(back!.paused).toBe(false);
    expect(back!.pauses).toBeGreaterThanOrEqual(1);
    const again = await fetch(`${s.url}/api/v1/health`);
    expect(again.status).toBe(200);
    agent.destroy();
  });
});
