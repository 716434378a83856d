// Start-up time and memory with 1 and 2 workers: the corpus lives once in
// shared memory, so RSS must not grow with the worker count beyond each
// thread's own V8 isolate.
//   npm run bench:startup [-- --data <mirror dir>]

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, startServer } from '../scripts/lib/server.js';
import { arg } from './lib/args.js';

const data = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

const mb = (b: number): string => (b / 1048576).toFixed(1);
const rows: string[] = [];
for (const workers of [1, 2]) {
  const runs: { startup: number; rss: number; rssAfter: number; shared: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const s = await startServer({ FINANCE_DATA: data, WORKERS: String(workers) }, 300_000);
    let health = 0;
    while (health !== 200) health = (await fetch(`${s.url}/api/v1/health`)).status;
    const startup = performance.now() - t0;
    const rss = rssOf(s.proc.pid!);
    for (let k = 0; k < 200; k++) await (await fetch(`${s.url}/api/v1/governments/062037161174`)).text();
    const rssAfter = rssOf(s.proc.pid!);
    runs.push({ startup, rss, rssAfter, shared: Number(s.ready.shared_bytes) });
    await s.stop();
  }
  const med = (k: keyof (typeof runs)[number]): number => runs.map((r) => r[k]).sort((a, b) => a - b)[1]!;
  rows.push(`| ${workers} | ${(med('startup') / 1000).toFixed(2)} | ${mb(med('rss'))} | ${mb(med('rssAfter'))} | ${mb(med('shared'))} |`);
}

const table = [
  `Start-up and memory, ${path.relative(ROOT, data) || data}, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores (median of 3 runs)`,
  '',
  '| workers | launch to /health 200 (s) | RSS at ready (MB) | RSS after 200 requests (MB) | corpus in shared memory (MB) |',
  '|---|---|---|---|---|',
  ...rows,
].join('\n');
console.log(table);
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/startup.md'), `${table}\n`);
