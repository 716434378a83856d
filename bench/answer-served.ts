// One government's JSON answer served, measured with a client that costs
// little (wrk, C, one thread) instead of autocannon, whose own 35-40 us a
// request on the same two cores caps every server it loads: with autocannon
// the uWS ceiling for a Police answer's 23 KB body is about 27,000 req/s, with
// wrk about 70,000. So the ceiling bench:pairs prints is the client's as much
// as uWS's; this prints both sides under wrk, in the same run, and where a
// served answer's CPU goes (user and kernel time of the whole server process,
// from /proc):
//   - each build (--old and this one, in interleaved rounds): req/s, and the
//     server's CPU an answer, user and system;
//   - the uWS ceiling (bench/lib/hello.ts) for a body of the first 15 answers' median size: req/s and its
//     CPU a request, user and system: what uWS and the kernel cost alone;
//   - DuckDB over the same parquet answering the same question (the answers'
//     provenance SQL).
// Every answer is computed (response cache off, no rate limit), 32 connections
// cycling over the 1,000 most populous governments with rows, as bench:pairs.
//   node dist/bench/answer-served.js [--old <checkout>] [--data DIR] [--rounds 3] [--seconds 10] [--query Q]
// --query: the answer's query string (default category=Police; '' for every category).
// Appended to bench/results/answer-served.md.

import { appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startServer } from '../scripts/lib/server.js';
import { withHello } from './lib/ceiling.js';
import { processCpu } from './lib/cpu.js';
import { duckCost, duckThreads } from './lib/duck.js';
import { median } from './lib/timing.js';
import { wrkPath, wrkRate } from './lib/wrk.js';
import { servedGovernments } from './lib/governments.js';
import { arg } from './lib/args.js';

const oldRoot = arg('old', '');
const data = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));
const rounds = Number(arg('rounds', '3'));
const seconds = Number(arg('seconds', '10'));
const q = arg('query', 'category=Police');
const query = q === '' ? '' : `?${q}`;
const f = (x: number): string => Math.round(x).toLocaleString('en-US');

interface Served { rps: number; user: number; system: number }

/** wrk over paths for `seconds` after a 3 s warm-up; the process's CPU a request over the timed part. */
function served(url: string, pid: number, paths: string[]): Served {
  wrkRate(url, paths, { connections: 32, seconds: Math.min(3, seconds) });
  const a = processCpu(pid);
  const rps = wrkRate(url, paths, { connections: 32, seconds });
  // wrk's rate is its count over its own run, which is `seconds` long; the CPU window around it adds only idle time.
  const requests = rps * seconds;
  const b = processCpu(pid);
  return { rps, user: (b.user - a.user) / requests, system: (b.system - a.system) / requests };
}

let sample: { sql: string[]; bytes: number[] } | null = null;

async function measure(main: string): Promise<Served> {
  const s = await startServer({ FINANCE_DATA: data, RESPONSE_CACHE_MB: '0', RATE_LIMIT: '0' }, 1_800_000, main);
  try {
    const govs = await servedGovernments(s.url);
    const paths = govs.map((_, i) => `/api/v1/governments/${govs[(i * 7919) % govs.length]}/spending${query}`);
    if (sample === null) {
      const bodies = await Promise.all(govs.slice(0, 15).map(async (g) => Buffer.from(await (await fetch(`${s.url}/api/v1/governments/${g}/spending${query}`, { headers: { 'Accept-Encoding': 'identity' } })).arrayBuffer())));
      sample = { sql: bodies.map((b) => (JSON.parse(b.toString()) as { provenance: { sql_query: string } }).provenance.sql_query), bytes: bodies.map((b) => b.length) };
    }
    return served(s.url, s.proc.pid!, paths);
  } finally {
    await s.stop();
  }
}

if (wrkPath() === null) throw new Error('wrk is not installed (apt-get install wrk)');
const builds: [string, string][] = [...(oldRoot ? [['old', path.join(path.resolve(oldRoot), 'dist/src/main.js')] as [string, string]] : []), ['new', path.join(ROOT, 'dist/src/main.js')]];
const got = new Map<string, Served[]>(builds.map(([name]) => [name, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, main] of r % 2 === 0 ? builds : [...builds].reverse()) {
    const m = await measure(main);
    got.get(name)!.push(m);
    console.log(JSON.stringify({ round: r + 1, code: name, rps: Math.round(m.rps), user_us: +m.user.toFixed(1), system_us: +m.system.toFixed(1) }));
  }
}

const bytes = median(sample!.bytes);
const hello = await withHello(Math.round(bytes), (url, pid) => served(url, pid, ['/']));
const duck: number[] = [];
for (const sql of sample!.sql) duck.push((await duckCost(sql, 1)).wallMs);

const lines = [
  `## ${new Date().toISOString()}: /api/v1/governments/{id}/spending${query}, ${path.basename(data)}, Node ${process.version}, ${os.availableParallelism()} cores, wrk 32 connections, ${seconds} s a figure, ${rounds} rounds`, '',
  '| | req/s (median) | server CPU an answer (us, median of the rounds) | user | system | every round: req/s, CPU an answer (us) |', '|---|---:|---:|---:|---:|---|',
  ...builds.map(([name]) => {
    const ms = got.get(name)!;
    return `| ${name} | ${f(median(ms.map((m) => m.rps)))} | ${median(ms.map((m) => m.user + m.system)).toFixed(1)} | ${median(ms.map((m) => m.user)).toFixed(1)} | ${median(ms.map((m) => m.system)).toFixed(1)} | ${ms.map((m) => `${f(m.rps)}, ${(m.user + m.system).toFixed(1)}`).join('; ')} |`;
  }),
  `| uWS ceiling (hello.ts, a body of the first 15 answers' median size: ${f(bytes)} bytes) | ${f(hello.rps)} | ${(hello.user + hello.system).toFixed(1)} | ${hello.user.toFixed(1)} | ${hello.system.toFixed(1)} | |`,
  '',
  `DuckDB in the same run (in this process, ${await duckThreads()} threads, warm, the same parquet), the answers' provenance SQL for ${sample!.sql.length} governments: ${median(duck).toFixed(1)} ms a question (median).`,
  '',
];
const text = `${lines.join('\n')}\n`;
process.stdout.write(text);
appendFileSync(path.join(ROOT, 'bench/results/answer-served.md'), text);
