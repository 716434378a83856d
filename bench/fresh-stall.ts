// A finding of 2026-11-27 (issue 32's pairs runs), reproduced, and the check
// of its fix: four clients pull the same identity CSV page at once and again
// as soon as each pull ends, one on the keep-alive socket of a warm-up pull
// and three on new sockets. With one pool worker a front thread (the default
// on 2 cores), one pull got its headers about 10 s late at full scale (0.5-2 s
// on the fixture) while hundreds of newer page jobs ran: Piscina put a page
// job with an abort signal, shifted off its queue when no worker was free, in
// a queue of its own that a newer task bypasses whenever the main queue is
// empty. With FRONT_THREADS=1 WORKERS=1 every round stalled; with the fix
// (src/finance/run-money.ts: a short page job posted without the signal;
// src/pool.ts stricterFIFO, src/pool-lanes.ts unshift) none in 6 rounds.
// Prints each round's slow pulls (over 500 ms).
// test/page-fifo.test.ts checks the same on the fixture by order, not time.
//   node dist/bench/fresh-stall.js [--data DIR] [--rounds 10] [--env K=V,K=V]

import http from 'node:http';
import path from 'node:path';
import { ROOT, startServer } from '../scripts/lib/server.js';
import { arg } from './lib/args.js';

const data = path.resolve(arg('data', path.join(ROOT, '.data/finance-46m')));
const rounds = Number(arg('rounds', '10'));
const env = Object.fromEntries(arg('env', '').split(',').filter((kv) => kv.includes('=')).map((kv) => kv.split('=') as [string, string]));

interface Pull { client: number; at: number; head: number; end: number; bytes: number; reused: boolean }

for (let r = 0; r < rounds; r++) {
  const s = await startServer({ FINANCE_DATA: data, RATE_LIMIT: '0', RESPONSE_CACHE_MB: '0', ...env }, 600_000);
  try {
    const health = ((await (await fetch(`${s.url}/api/v1/health`)).json()) as { data: { corpus: { years: number[] } }[] }).data[0]!;
    const ys = [...health.corpus.years].sort((a, b) => a - b);
    const page = `/api/v1/spending?state=CA&type=city&years=${ys[0]}-${ys[ys.length - 1]}&format=csv`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const used = new WeakSet<object>();
    const pull = (client: number, at: number): Promise<Pull> => new Promise((resolve, reject) => {
      const t0 = performance.now();
      let head = -1, bytes = 0, reused = false;
      const req = http.get({ host: '127.0.0.1', port: s.port, path: page, agent }, (res) => {
        head = performance.now() - t0;
        res.on('data', (b: Buffer) => { bytes += b.length; });
        res.on('end', () => resolve({ client, at, head: Math.round(head), end: Math.round(performance.now() - t0), bytes, reused }));
        res.on('error', reject);
      });
      req.on('socket', (sock) => { reused = used.has(sock); used.add(sock); });
      req.on('error', reject);
    });
    await pull(-1, 0);
    const t0 = performance.now(), got: Pull[] = [];
    await Promise.all([0, 1, 2, 3].map(async (c) => {
      while (performance.now() - t0 < 10_000) got.push(await pull(c, Math.round(performance.now() - t0)));
    }));
    agent.destroy();
    console.log(JSON.stringify({ round: r, pulls: got.length, slow: got.filter((p) => p.end > 500) }));
  } finally {
    await s.stop();
  }
}
