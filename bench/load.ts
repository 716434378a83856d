// The load benchmarks of the finance service at full scale, each beside DuckDB
// (warm, over the same parquet) in the same run, written to bench/results/load.md:
//   1. one government, all years, spending JSON, many governments at random:
//      req/s and p50/p99 under autocannon (32 connections); per-query time vs DuckDB
//   2. a 50,000-row CSV pull (flat /spending by state and type over all years):
//      rows/s with 1 and 4 concurrent clients vs DuckDB writing the same rows as CSV
//   3. /rollups, county layer, one year, All Categories: latency
//   4. /peer-comparison for a city over 10 years: latency
//   5. start-up: launch to /health 200, and RSS, with 1 and 2 workers, from parquet and from the load cache
//   6. how cost grows: scenarios 1 and 2 at several corpus sizes
// and the uWebSockets.js hello-world ceiling for the same response size.
//   npm run bench:load [-- --sizes 5000000,20000000,46000000] [--seconds 10] [--smoke]
// Corpora are generated under .data/ (npm run generate:finance-full) when missing.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { query } from '../scripts/lib/duckdb.js';
import { csvPuller } from './lib/csv-pull.js';
import { load } from './lib/load.js';
import { wrkPath, wrkRate } from './lib/wrk.js';
import { cpuPerRequest, cpuSnapshot } from './lib/cpu.js';
import { ROOT, startServer, type Running } from '../scripts/lib/server.js';
import { withHello } from './lib/ceiling.js';
import { median, timeRuns } from './lib/timing.js';
import { servedGovernments } from './lib/governments.js';
import { arg } from './lib/args.js';

const smoke = process.argv.includes('--smoke');
const seconds = Number(arg('seconds', smoke ? '1' : '10'));
const runs = smoke ? 2 : 15;
const sizes = smoke ? [] : arg('sizes', '46000000').split(',').map(Number);

export interface ScenarioFigures {
  label: string;
  rows: number;
  s1: { rps: number; p50: number; p99: number; errors: number; oursMs: number; duckMs: number; bytes: number; poolRows: number; poolBytes: number; oneYearMs: number; allRps: number; allP99: number; allBytes: number; wrk: number | null; allWrk: number | null; cpu: { main: number; other: number; client: number; idle: number }; rps64: number; idle64: number; failed64: number };
  s2: { rows: number; cold: number; one: number; four: number; duck: number; cpu: { main: number; other: number; client: number; idle: number } };
  s3: { ours: number; duck: number };
  s4: { ours: number; duck: number };
}

function corpus(rows: number): string {
  const dir = path.join(ROOT, '.data', `finance-${Math.round(rows / 1e6)}m`);
  if (!existsSync(path.join(dir, 'manifest.json'))) {
    execFileSync(process.execPath, [path.join(ROOT, 'dist/scripts/generate-finance-full.js'), '--out', dir, '--rows', String(rows)], { stdio: 'inherit' });
  }
  return dir;
}

async function get(s: Running, p: string): Promise<any> {
  return (await fetch(`${s.url}${p}`)).json();
}

async function scenarios(label: string, dir: string): Promise<ScenarioFigures> {
  // The response cache is off: every request below is computed.
  const s = await startServer({ FINANCE_DATA: dir, WORKERS: String(os.cpus().length), RESPONSE_CACHE_MB: '0' }, 1_800_000);
  try {
    const health = (await get(s, '/api/v1/health')).data[0];
    const years: number[] = health.corpus.years;
    const span = `${years[0]}-${years[years.length - 1]}`;
    // Governments with rows in the latest year, most populous first: a pool to draw from at random.
    const govs = await servedGovernments(s.url);
    let k = 0;
    const path1 = (): string => `/api/v1/governments/${govs[(k++ * 7919) % govs.length]}/spending?category=Police`;

    // 1.
    const sample = await (await fetch(`${s.url}${path1()}`)).text();
    await load(s.url, path1, { connections: 32, seconds: Math.min(3, seconds) });
    const cpu0 = cpuSnapshot(s.proc.pid!);
    const r1 = await load(s.url, path1, { connections: 32, seconds });
    const cpu1 = cpuPerRequest(s.proc.pid!, cpu0, cpuSnapshot(s.proc.pid!), r1.total);
    // Twice the connections: whether more requests in flight fill the idle share (a pipeline too shallow) or not.
    const c64 = cpuSnapshot(s.proc.pid!);
    const r64 = await load(s.url, path1, { connections: 64, seconds });
    const idle64 = cpuPerRequest(s.proc.pid!, c64, cpuSnapshot(s.proc.pid!), r64.total).idle;
    const seq = await timeRuns(runs * 4, () => fetch(`${s.url}${path1()}`).then((r) => r.text()));
    // Scenario 6: what an answer of the pool holds (a smaller corpus has fewer years a government, so
    // smaller answers), and one government's one year, the same work at every corpus size.
    // Every fifth of the pool: the load draws from all of it, and it is ordered by state and type.
    const poolSample: { rows: number; bytes: number }[] = [];
    for (const g of govs.filter((_, i) => i % 5 === 0)) {
      const r = await fetch(`${s.url}/api/v1/governments/${g}/spending?category=Police`);
      const text = await r.text();
      if (r.ok) poolSample.push({ rows: JSON.parse(text).meta.total as number, bytes: Buffer.byteLength(text) });
    }
    const poolRows = poolSample.reduce((n, x) => n + x.rows, 0) / poolSample.length;
    const poolBytes = poolSample.reduce((n, x) => n + x.bytes, 0) / poolSample.length;
    const last = years[years.length - 1]!;
    const withLast = ((await get(s, '/api/v1/governments?limit=1000')).data.find((g: any) => g.years_in_mirror.includes(last))?.canonical_govid ?? govs[0]) as string;
    const oneYear = `/api/v1/governments/${withLast}/spending?category=Police&years=${last}`;
    const oneYearMs = median(await timeRuns(runs * 4, () => fetch(`${s.url}${oneYear}`).then((r) => r.text())));
    const pathAll = (): string => `/api/v1/governments/${govs[(k++ * 7919) % govs.length]}/spending`;
    const sampleAll = await (await fetch(`${s.url}${pathAll()}`)).text();
    const rAll = await load(s.url, pathAll, { connections: 32, seconds });
    // wrk (bench/lib/wrk.ts) over the same governments: 12 us of CPU a request (uWS ceiling body, /usr/bin/time)
    // against autocannon's 30-34, so more of the two shared cores goes to the server. Not run when wrk is not installed.
    const wrkPaths = (suffix: string): string[] => govs.map((_, i) => `/api/v1/governments/${govs[(i * 7919) % govs.length]}/spending${suffix}`);
    const wrk1 = HAS_WRK ? wrkRate(s.url, wrkPaths('?category=Police'), { connections: 32, seconds }) : null;
    const wrkAll = HAS_WRK ? wrkRate(s.url, wrkPaths(''), { connections: 32, seconds }) : null;
    const sqls = await Promise.all(govs.slice(0, runs).map(async (g) => (await get(s, `/api/v1/governments/${g}/spending?category=Police`)).provenance.sql_query as string));
    await query(sqls[0]!);
    let q = 0;
    const duck1 = await timeRuns(runs, () => query(sqls[q++ % sqls.length]!));

    // 2.
    const state = (await get(s, '/api/v1/governments?type=state&limit=1')).data[0].state as string;
    const csvPath = `/api/v1/spending?state=${state}&type=city&years=${span}&format=csv`;
    let rows = 0;
    const puller = csvPuller(s.url);
    const pull = async (): Promise<void> => { rows = await puller.pull(csvPath); };
    // Cold: a query not seen before, so the job counts its whole result for X-Total-Count (years end one earlier each time).
    const coldRates: number[] = [];
    for (let c = 1; c <= Math.min(5, years.length - 1); c++) {
      const t0 = performance.now();
      const n = await puller.pull(`/api/v1/spending?state=${state}&type=city&years=${years[0]}-${years[years.length - 1 - c]}&format=csv`);
      coldRates.push(n / ((performance.now() - t0) / 1000));
    }
    await pull();
    const one = median(await timeRuns(runs, pull));
    // Four clients, each pulling again as soon as its pull ends (none waits for the others), for the load's seconds.
    const c2 = cpuSnapshot(s.proc.pid!);
    let fourRows = 0;
    const t4 = performance.now();
    await Promise.all([0, 1, 2, 3].map(async () => {
      while (performance.now() - t4 < seconds * 1000) { const n = await puller.pull(csvPath); fourRows += n; }
    }));
    const four = fourRows / ((performance.now() - t4) / 1000);
    const cpu2 = cpuPerRequest(s.proc.pid!, c2, cpuSnapshot(s.proc.pid!), fourRows / 1000);
    puller.close();
    const csvSql = (await get(s, `/api/v1/spending?state=${state}&type=city&years=${span}&limit=1`)).provenance.sql_query as string;
    const out = path.join(os.tmpdir(), `civicstream-load-${process.pid}.csv`);
    const copy = `COPY (${csvSql} LIMIT 50000) TO '${out}' (FORMAT csv, HEADER)`;
    await query(copy);
    const duck2 = median(await timeRuns(runs, () => query(copy)));
    rmSync(out, { force: true });

    // 3.
    const rollup = `/api/v1/rollups?layer=county&years=${years[years.length - 1]}`;
    const rollupSql = (await get(s, rollup)).provenance.sql_query as string;
    const ours3 = median(await timeRuns(runs, () => fetch(`${s.url}${rollup}`).then((r) => r.text())));
    await query(rollupSql);
    const duck3 = median(await timeRuns(runs, () => query(rollupSql)));

    // 4.
    const city = (await get(s, '/api/v1/governments?type=city&limit=1&page=150')).data[0].canonical_govid as string;
    const ten = years.slice(-10).join(',');
    const pcPath = `/api/v1/governments/${city}/peer-comparison?category=Police&years=${ten}`;
    const pc = await get(s, pcPath);
    const peersSql = (await get(s, `/api/v1/governments/${city}/peers`)).provenance.sql_query as string;
    const ours4 = median(await timeRuns(runs, () => fetch(`${s.url}${pcPath}`).then((r) => r.text())));
    const duck4 = median(await timeRuns(runs, async () => { await query(peersSql); await query(pc.provenance.sql_query); }));

    return {
      label, rows: health.corpus.rows,
      s1: {
        rps: r1.requestsPerSec, p50: r1.p50, p99: r1.p99, errors: r1.errors + r1.non2xx, oursMs: median(seq), duckMs: median(duck1), bytes: Buffer.byteLength(sample), poolRows, poolBytes, oneYearMs,
        allRps: rAll.requestsPerSec, allP99: rAll.p99, allBytes: Buffer.byteLength(sampleAll), wrk: wrk1, allWrk: wrkAll, cpu: cpu1, rps64: r64.requestsPerSec, idle64, failed64: r64.errors + r64.non2xx,
      },
      s2: { rows, cold: median(coldRates), one: rows / (one / 1000), four, duck: rows / (duck2 / 1000), cpu: cpu2 },
      s3: { ours: ours3, duck: duck3 },
      s4: { ours: ours4, duck: duck4 },
    };
  } finally {
    await s.stop();
  }
}

/** Scenario 1 with the response cache on (its default), after one pass over the same 1000 governments. */
async function warm(dir: string): Promise<{ rps: number; p50: number; p99: number }> {
  const s = await startServer({ FINANCE_DATA: dir, WORKERS: String(os.cpus().length) }, 1_800_000);
  try {
    const govs = await servedGovernments(s.url);
    let k = 0;
    const next = (): string => `/api/v1/governments/${govs[(k++ * 7919) % govs.length]}/spending?category=Police`;
    await load(s.url, next, { connections: 32, seconds: Math.min(3, seconds) });
    const r = await load(s.url, next, { connections: 32, seconds });
    return { rps: r.requestsPerSec, p50: r.p50, p99: r.p99 };
  } finally {
    await s.stop();
  }
}

/** Launch to /health 200 and RSS, by worker count, from parquet (cache off) and from the load cache. */
async function startup(dir: string): Promise<string[]> {
  const lines: string[] = [];
  // The smoke run checks the table is made, with one worker count: each row is two starts of the server.
  for (const workers of smoke ? [2] : [1, 2]) {
    for (const cache of ['off', 'on']) {
      if (cache === 'on') await (await startServer({ FINANCE_DATA: dir, WORKERS: String(workers) }, 1_800_000)).stop();
      const t0 = performance.now();
      const s = await startServer({ FINANCE_DATA: dir, WORKERS: String(workers), CIVICSTREAM_LOAD_CACHE: cache }, 1_800_000);
      const ms = performance.now() - t0;
      const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.proc.pid}/status`, 'utf8'))![1]) * 1024;
      await s.stop();
      lines.push(`| ${workers} | ${cache === 'on' ? 'load cache' : 'parquet'} | ${(ms / 1000).toFixed(1)} s | ${(rss / 1048576).toFixed(0)} MB |`);
    }
  }
  return lines;
}

/** The hello-world ceiling: uWS answering a fixed body of the given size. */
function ceiling(bytes: number): Promise<{ rps: number; p99: number; server: number; client: number; idle: number; wrk: number | null }> {
  return withHello(bytes, async (url, pid) => {
    await load(url, () => '/', { connections: 32, seconds: Math.min(3, seconds) });
    const c0 = cpuSnapshot(pid);
    const r = await load(url, () => '/', { connections: 32, seconds });
    const cpu = cpuPerRequest(pid, c0, cpuSnapshot(pid), r.total);
    const wrk = HAS_WRK ? wrkRate(url, ['/'], { connections: 32, seconds }) : null;
    return { rps: r.requestsPerSec, p99: r.p99, server: cpu.main + cpu.other, client: cpu.client, idle: cpu.idle, wrk };
  });
}

const HAS_WRK = wrkPath() !== null;
const results: ScenarioFigures[] = [];
const corpora: [string, string][] = smoke ? [['fixture', path.join(ROOT, 'fixtures/finance/v6')]] : sizes.map((n) => [`${(n / 1e6).toFixed(0)}M`, corpus(n)]);
for (const [label, dir] of corpora) results.push(await scenarios(label, dir));
const biggest = corpora[corpora.length - 1]!;
const warmed = await warm(biggest[1]);
const start = await startup(biggest[1]);
const hello = await ceiling(results[results.length - 1]!.s1.bytes);
const tiny = await ceiling(2);

const f = (x: number, d = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const table = [
  `Finance load benchmarks; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; autocannon 32 connections ${seconds} s on loopback (autocannon shares the two cores); DuckDB warm, in-process, same parquet, same run${smoke ? ' (SMOKE RUN: tiny durations, the fixture)' : ''}`,
  '',
  '### 1. One government, all years, spending JSON (category Police), random governments',
  '',
  'Every request computed (response cache off):',
  '',
  '| corpus rows | req/s | p50 ms | p99 ms | errors | ours, one request (ms) | DuckDB, same question (ms) | DuckDB / ours | response bytes | all categories: req/s, p99 ms, bytes |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...results.map((r) => `| ${f(r.rows)} | ${f(r.s1.rps)} | ${r.s1.p50} | ${r.s1.p99} | ${r.s1.errors} | ${f(r.s1.oursMs, 2)} | ${f(r.s1.duckMs, 1)} | ${f(r.s1.duckMs / r.s1.oursMs, 0)}x | ${f(r.s1.bytes)} | ${f(r.s1.allRps)}, ${r.s1.allP99}, ${f(r.s1.allBytes)} |`),
  '',
  ...(HAS_WRK ? [`With wrk as the load generator (one thread, 32 connections, the same governments), in the same runs: ${results.map((r) => `${f(r.rows)} rows: ${f(r.s1.wrk!)} req/s, all categories ${f(r.s1.allWrk!)} req/s`).join('; ')}.`, ''] : ['wrk is not installed (apt-get install wrk): no wrk figures in this run.', '']),
  `With the response cache on (default 64 MB; the data is immutable), the same 1000 governments on the ${biggest[0]} corpus after one pass: ${f(warmed.rps)} req/s, p50 ${warmed.p50} ms, p99 ${warmed.p99} ms.`,
  '',
  'Scenario 6, how a government\'s query grows with the corpus. The generator grows a smaller corpus with fewer years a government, so the pool\'s answers are smaller there, and a request\'s cost follows its answer, not the corpus. The last column times the same work at every size: one government\'s one year.',
  '',
  '| corpus rows | pool answers: mean rows, bytes | server CPU a request (us), per answer row (us) | one government, one year, one request (ms) |',
  '|---|---|---|---|',
  ...results.map((r) => `| ${f(r.rows)} | ${f(r.s1.poolRows, 1)}, ${f(r.s1.poolBytes)} | ${f(r.s1.cpu.main + r.s1.cpu.other)}, ${f((r.s1.cpu.main + r.s1.cpu.other) / r.s1.poolRows, 2)} | ${f(r.s1.oneYearMs, 2)} |`),
  '',
  'CPU per request in scenario 1, measured in the same runs (server threads from /proc, the load generator from its own process): with every request computed, the two cores can serve at most 2 s / (the sum) requests a second. "Cores idle meanwhile" is the share of both cores left idle during the load (/proc/stat): why a run falls short of its bound. The last column repeats the load with twice the connections: if the idle share were a pipeline too shallow, more requests in flight would fill it.',
  '',
  '| corpus rows | server main thread (us) | front threads, workers and other server threads (us) | load generator (us) | sum (us) | bound on 2 cores (req/s) | cores idle meanwhile | with 64 connections: req/s, cores idle |',
  '|---|---|---|---|---|---|---|---|',
  ...results.map((r) => { const c = r.s1.cpu, sum = c.main + c.other + c.client; return `| ${f(r.rows)} | ${f(c.main)} | ${f(c.other)} | ${f(c.client)} | ${f(sum)} | ${f(2e6 / sum)} | ${f(100 * c.idle)}% | ${f(r.s1.rps64)}, ${f(100 * r.s1.idle64)}%${r.s1.failed64 ? ` (${f(r.s1.failed64)} failed or refused: not served)` : ''} |`; }),
  '',
  `uWebSockets.js ceiling in the same run: ${f(hello.rps)} req/s for a fixed ${f(results[results.length - 1]!.s1.bytes)}-byte body (p99 ${hello.p99} ms; CPU per request: server ${f(hello.server)} us, load generator ${f(hello.client)} us; cores idle ${f(100 * hello.idle)}%); ${f(tiny.rps)} req/s for a 2-byte body.${hello.wrk !== null ? ` With wrk: ${f(hello.wrk)} req/s for the same body, ${f(tiny.wrk!)} for 2 bytes.` : ''}`,
  '',
  '### 2. 50,000-row CSV pull (flat /spending, one state\'s cities, all years)',
  '',
  'A query\'s first pull counts its whole result for X-Total-Count ("first pull"); the count is then kept (the corpus is immutable), so repeat pulls and later pages walk only to their page\'s end. The response cache is off throughout.',
  '',
  `| corpus rows | rows per pull | 1 client, first pull rows/s | 1 client rows/s | 4 clients rows/s (each pulling again as its pull ends, ${seconds} s) | DuckDB COPY rows/s | ours (4 clients) / DuckDB |`,
  '|---|---|---|---|---|---|---|',
  ...results.map((r) => `| ${f(r.rows)} | ${f(r.s2.rows)} | ${f(r.s2.cold)} | ${f(r.s2.one)} | ${f(r.s2.four)} | ${f(r.s2.duck)} | ${f(r.s2.four / r.s2.duck, 2)}x |`),
  '',
  'CPU per 1,000 rows in the 4-client pulls, measured in the same runs (as for scenario 1; the load generator here is the benchmark itself, pulling with node:http and counting rows in the bytes):',
  '',
  '| corpus rows | server main thread (ms) | front threads, workers and other server threads (ms) | load generator (ms) | sum (ms) | bound on 2 cores (rows/s) | cores idle meanwhile |',
  '|---|---|---|---|---|---|---|',
  ...results.map((r) => { const c = r.s2.cpu, sum = c.main + c.other + c.client; return `| ${f(r.rows)} | ${f(c.main / 1000, 2)} | ${f(c.other / 1000, 2)} | ${f(c.client / 1000, 2)} | ${f(sum / 1000, 2)} | ${f(2e9 / sum)} | ${f(100 * c.idle)}% |`; }),
  '',
  '### 3 and 4. Rollup and peer comparison latency (median)',
  '',
  '| corpus rows | /rollups county, one year (ms) | DuckDB (ms) | /peer-comparison city, 10 years (ms) | DuckDB (ms) |',
  '|---|---|---|---|---|',
  ...results.map((r) => `| ${f(r.rows)} | ${f(r.s3.ours, 1)} | ${f(r.s3.duck, 1)} | ${f(r.s4.ours, 1)} | ${f(r.s4.duck, 1)} |`),
  '',
  `### 5. Start-up on the ${biggest[0]} corpus`,
  '',
  `With the default front threads (FRONT_THREADS: the core count, ${os.availableParallelism()} here), each given at least one of the WORKERS.`,
  '',
  '| workers | from | launch to /health 200 | RSS |',
  '|---|---|---|---|',
  ...start,
].join('\n');
console.log(table);
const out = path.join(ROOT, 'bench/results', smoke ? 'load-smoke.md' : 'load.md');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${table}\n`);
process.exit(0);
