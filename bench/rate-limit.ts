// Micro-benchmarks of the rate limiter (issue 20), which every request will
// pass: take() on a hot key and under a flood of distinct keys (every call a
// new client, evicting), the address a request is charged to, and two
// threads taking from one key at once (the front threads' worst case: one
// cache line bouncing between cores). Each tinybench task runs a batch of
// BATCH calls, so that the timer's own cost is not what is measured.
//   npm run bench:rate-limit   (writes bench/results/rate-limit.md)

import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Bench } from 'tinybench';
import { RateLimiter, clientAddress, parseTrustedProxies } from '../src/server/rate-limit.js';
import { ROOT } from '../scripts/lib/server.js';

const BATCH = 1000;
const FLOOD = 1 << 20;

const addresses = Array.from({ length: FLOOD }, (_, i) => `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`);
const v6 = Array.from({ length: FLOOD }, (_, i) => `2001:db8:${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`);
const served = new RateLimiter({ rate: 1e9, burst: 1_000_000 }, RateLimiter.table());
const refused = new RateLimiter({ rate: 1, burst: 10 }, RateLimiter.table());
const flood = new RateLimiter({ rate: 10, burst: 100 }, RateLimiter.table());
const trusted = parseTrustedProxies('127.0.0.1, 10.0.0.0/8, ::1');
let next = 0;

const bench = new Bench({ time: 1500, warmupTime: 300 });
bench
  .add('take(): one hot key, served', () => { for (let i = 0; i < BATCH; i++) served.take('198.51.100.7', 1); })
  .add('take(): one hot key, refused', () => { for (let i = 0; i < BATCH; i++) refused.take('198.51.100.7', 1); })
  .add('take(): a flood, every call a new IPv4 client (65,536 slots, evicting)', () => {
    for (let i = 0; i < BATCH; i++) flood.take(addresses[next++ & (FLOOD - 1)]!, 1);
  })
  .add('take(): a flood, every call a new IPv6 client (65,536 slots, evicting)', () => {
    for (let i = 0; i < BATCH; i++) flood.take(v6[next++ & (FLOOD - 1)]!, 1);
  })
  .add('clientAddress(): untrusted IPv4 peer', () => { for (let i = 0; i < BATCH; i++) clientAddress('198.51.100.7', '', trusted); })
  .add('clientAddress(): IPv4-mapped peer from a dual-stack listener', () => {
    for (let i = 0; i < BATCH; i++) clientAddress('0000:0000:0000:0000:0000:ffff:c633:6407', '', trusted);
  })
  .add('clientAddress(): trusted proxy, X-Forwarded-For of 2 hops', () => {
    for (let i = 0; i < BATCH; i++) clientAddress('127.0.0.1', '198.51.100.7, 10.0.0.5', trusted);
  });
await bench.run();

const nsPerCall = (meanMs: number): string => (meanMs * 1e6 / BATCH).toFixed(0);
const rows = bench.tasks.map((t) => {
  const r = t.result as unknown as { latency: { mean: number; p99: number } };
  return `| ${t.name} | ${nsPerCall(r.latency.mean)} | ${nsPerCall(r.latency.p99)} | ${Math.round(BATCH * 1000 / r.latency.mean).toLocaleString('en-US')} |`;
});

/** Two threads taking from one key of one table until it is empty: ns per call, per thread. */
async function contended(threads: number, calls: number): Promise<{ ns: number; total: number }> {
  const table = RateLimiter.table();
  const start = new SharedArrayBuffer(4);
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    import(${JSON.stringify(new URL('../src/server/rate-limit.js', import.meta.url).href)}).then(({ RateLimiter }) => {
      const rl = new RateLimiter({ rate: 0.001, burst: workerData.calls }, workerData.table);
      const start = new Int32Array(workerData.start);
      rl.take('warm-up', 1);
      Atomics.add(start, 0, 1);
      while (Atomics.load(start, 0) < workerData.threads) {}
      const t0 = performance.now();
      let ok = 0;
      while (rl.take('198.51.100.7', 1).ok) ok++;
      parentPort.postMessage({ ok, ms: performance.now() - t0 });
    });`;
  const workers = Array.from({ length: threads }, () => new Worker(source, { eval: true, workerData: { table, start, threads, calls } }));
  const got = await Promise.all(workers.map((w) => new Promise<{ ok: number; ms: number }>((r) => w.once('message', r))));
  await Promise.all(workers.map((w) => w.terminate()));
  const ms = Math.max(...got.map((g) => g.ms));
  const total = got.reduce((a, g) => a + g.ok, 0);
  return { ns: (ms * 1e6) / (total / threads), total };
}
const two = await contended(2, 2_000_000);
const one = await contended(1, 1_000_000);

const table = [
  `Rate limiter (src/server/rate-limit.ts), ns per call, batches of ${BATCH}; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg()[0]!.toFixed(2)} at the end`,
  '',
  '| case | mean ns/call | p99 of the batches, ns/call | calls/s |',
  '|---|---|---|---|',
  ...rows,
  '',
  `One key from worker threads until empty (lock held across the cores): 1 thread ${one.ns.toFixed(0)} ns/call; ` +
    `2 threads ${two.ns.toFixed(0)} ns/call each, ${two.total.toLocaleString('en-US')} tokens taken of 2,000,000.`,
].join('\n');
console.log(table);
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/rate-limit.md'), `${table}\n`);
