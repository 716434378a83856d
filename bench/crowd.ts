// Small queries under a bulk crowd (issue 23, finding 9): 200 CSV clients
// (150 reading as fast as they can, 50 at 64 KB/s with 2 KB receive
// buffers), each asking for a 50,000-row page again and again and honouring
// Retry-After on a 503, while two probes ask one government's spending (JSON,
// a random government each time) and one school district's estimates, one
// request at a time. The figures: the probes' latency alone and under the
// crowd, and what the crowd got. Bounded in time; loopback only.
//
//   npm run bench:crowd [-- --data .data/finance-46m] [--seconds 30] [--main path/to/dist/src/main.js]

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ROOT, startServer, type Running } from '../scripts/lib/server.js';
import { servedGovernments } from './lib/governments.js';
import { arg } from './lib/args.js';

const data = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));
const seconds = Number(arg('seconds', '30'));
const main = arg('main', path.join(ROOT, 'dist/src/main.js'));
const PULL = '/api/v1/spending?type=city&format=csv';
const CROWD = path.join(ROOT, 'scripts/lib/crowd.py');

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const timed = (url: string): Promise<number> => new Promise((resolve, reject) => {
  const t0 = performance.now();
  http.get(url, { agent }, (res) => {
    res.resume();
    res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${url}: ${res.statusCode}`))));
  }).on('error', reject);
});

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const summary = (xs: number[]): string => `${xs.length} requests, p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

/** Two probes, one request at a time each, for `ms`: one government's spending, one district's estimates. */
async function probe(s: Running, govs: string[], leaids: string[], ms: number): Promise<{ gov: number[]; school: number[] }> {
  const gov: number[] = [], school: number[] = [];
  const until = performance.now() + ms;
  let k = 0;
  await Promise.all([
    (async () => { while (performance.now() < until) gov.push(await timed(`${s.url}/api/v1/governments/${govs[(k++ * 7919) % govs.length]}/spending?category=Police`)); })(),
    (async () => { while (performance.now() < until) school.push(await timed(`${s.arrestsUrl}/api/v1/estimates/${leaids[(k++ * 31) % leaids.length]}`)); })(),
  ]);
  return { gov, school };
}

function crowd(s: Running, n: number, rate: number, rcvbuf: number): { done: Promise<Record<string, unknown>> } {
  const p = spawn('python3', [CROWD, '127.0.0.1', String(s.port), PULL, String(n), String(rate), String(seconds), String(rcvbuf)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout!.on('data', (d) => { out += d; });
  return { done: new Promise((resolve) => p.once('exit', () => resolve(JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>))) };
}

const s = await startServer({ FINANCE_DATA: data, WORKERS: '2', RESPONSE_CACHE_MB: '0' }, 1_800_000, main);
try {
  const govs = await servedGovernments(s.url);
  const leaids = ((await (await fetch(`${s.arrestsUrl}/api/v1/districts?limit=1000`)).json()) as { data: { leaid: string }[] }).data.map((d) => String(d.leaid));
  await probe(s, govs, leaids, 2000);
  const alone = await probe(s, govs, leaids, 10_000);
  const fast = crowd(s, 150, 0, 65536), slow = crowd(s, 50, 64 * 1024, 2048);
  // The crowd ramps up over its first second; probe the rest of its time.
  await new Promise((r) => setTimeout(r, 2000));
  const under = await probe(s, govs, leaids, (seconds - 4) * 1000);
  const [f, w] = await Promise.all([fast.done, slow.done]);
  const lines = [
    `# Small queries under a bulk crowd (${new Date().toISOString().slice(0, 10)}, ${path.relative(ROOT, data) || data})`,
    '',
    `Crowd: 150 fast and 50 slow (64 KB/s, 2 KB receive buffers) clients pulling \`${PULL}\` for ${seconds} s, honouring Retry-After. Probes: one request at a time each.`,
    '',
    '| probe | alone | under the crowd |',
    '|---|---|---|',
    `| one government's spending (JSON) | ${summary(alone.gov)} | ${summary(under.gov)} |`,
    `| one district's estimates (school) | ${summary(alone.school)} | ${summary(under.school)} |`,
    '',
    `Fast clients: ${JSON.stringify(f)}. Slow clients: ${JSON.stringify(w)}.`,
  ];
  console.log(lines.join('\n'));
  mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(path.join(ROOT, 'bench/results/crowd.md'), `${lines.join('\n')}\n`);
} finally {
  agent.destroy();
  await s.stop();
}
