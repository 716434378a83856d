// Old code against new, in interleaved pairs, on one corpus: scenario 1 (one
// government's spending JSON, random governments, every request computed) and
// scenario 2 (a 50,000-row CSV page pulled again and again by 4 clients).
// This VM's speed drifts by half within an hour, so a change is judged by
// pairs run back to back, never by figures of different runs.
//
//   npm run bench:pairs -- --old /path/to/old/checkout --data .data/finance-46m [--rounds 4] [--seconds 10] [--env K=V,K=V] [--query Q]
//
// --query: scenario 1's query string (default category=Police, the issue's question; '' asks for all categories,
// about 200 KB an answer at full scale).
//
// --env sets variables for both servers (one that an old build does not know is ignored by it): issue 20
// measured the rate limits' cost with RATE_LIMIT=1000000,RATE_LIMIT_BURST=10000000 (every request
// charged, none refused) against the code before them.
// Both checkouts must be built (dist/src/main.js). The new code is this one.
// Once per run, after the rounds (no server running): DuckDB (in this process, over the same parquet, its default
// threads, warm) on each scenario's work, the SQL asked of the first round's server: scenario 1's question (the
// answers' provenance SQL over 15 of its governments, the median of a query) and scenario 2's page (COPY of its
// provenance SQL, LIMIT 50000, to CSV: rows/s); and the uWS ceiling for scenario 1's median body (bench/lib/ceiling.ts),
// under autocannon as the rounds and, when wrk is installed, under wrk.

import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load } from './lib/load.js';
import { csvPuller } from './lib/csv-pull.js';
import { median, timeRuns } from './lib/timing.js';
import { uwsCeiling, withHello } from './lib/ceiling.js';
import { wrkPath, wrkRate } from './lib/wrk.js';
import { duckCost, duckThreads } from './lib/duck.js';
import { query } from '../scripts/lib/duckdb.js';
import { ROOT, startServer, type Running } from '../scripts/lib/server.js';
import { servedGovernments } from './lib/governments.js';
import { arg } from './lib/args.js';

const oldRoot = arg('old', null);
if (oldRoot === null) { console.error('bench:pairs: --old <checkout> is required'); process.exit(2); }
const data = path.resolve(arg('data', path.join(ROOT, '.data/finance-46m'))!);
const rounds = Number(arg('rounds', '4'));
const seconds = Number(arg('seconds', '10'));
const q1 = arg('query', 'category=Police')!;
/** Scenario 1's query string, with its '?' (none for an empty --query). */
const QUERY1 = q1 === '' ? '' : `?${q1}`;
const env: Record<string, string> = Object.fromEntries((arg('env', '') ?? '').split(',').filter((kv) => kv.includes('=')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

interface Figures { s1: number; s1p99: number; s2: number }

/** What DuckDB and the ceiling are timed on, asked of the first round's server: scenario 1's SQL and body sizes, scenario 2's SQL. */
interface Work { s1Sql: string[]; s1Bytes: number[]; s2Sql: string }
let work: Work | null = null;
const workAsked = (): Work => { if (work === null) throw new Error('no round ran'); return work; };

async function measure(main: string): Promise<Figures> {
  const s: Running = await startServer({ FINANCE_DATA: data, WORKERS: String(os.cpus().length), RESPONSE_CACHE_MB: '0', ...env }, 1_800_000, main);
  try {
    const govs = await servedGovernments(s.url);
    let k = 0;
    const path1 = (): string => `/api/v1/governments/${govs[(k++ * 7919) % govs.length]}/spending${QUERY1}`;
    await load(s.url, path1, { connections: 32, seconds: Math.min(3, seconds) });
    const r1 = await load(s.url, path1, { connections: 32, seconds });
    const health = ((await (await fetch(`${s.url}/api/v1/health`)).json()) as { data: { corpus: { years: number[] } }[] }).data[0]!;
    const years = health.corpus.years;
    const csvPath = `/api/v1/spending?state=CA&type=city&years=${years[0]}-${years[years.length - 1]}&format=csv`;
    const puller = csvPuller(s.url);
    await puller.pull(csvPath);
    let rows = 0;
    const t0 = performance.now();
    await Promise.all([0, 1, 2, 3].map(async () => {
      // The pull awaited first, then added: `rows += await ...` reads rows before the await, so four clients
      // overwrote each other's counts (every scenario 2 figure before this fix, 2026-11-27, was undercounted).
      while (performance.now() - t0 < seconds * 1000) { const n = await puller.pull(csvPath); rows += n; }
    }));
    puller.close();
    if (work === null) {
      const answers = await Promise.all(govs.slice(0, 15).map(async (g) => Buffer.from(await (await fetch(`${s.url}/api/v1/governments/${g}/spending${QUERY1}`)).arrayBuffer())));
      work = {
        s1Sql: answers.map((b) => (JSON.parse(b.toString()) as { provenance: { sql_query: string } }).provenance.sql_query),
        s1Bytes: answers.map((b) => b.length),
        s2Sql: ((await (await fetch(`${s.url}${csvPath.replace('&format=csv', '&limit=1')}`)).json()) as { provenance: { sql_query: string } }).provenance.sql_query,
      };
    }
    return { s1: r1.requestsPerSec, s1p99: r1.p99, s2: rows / ((performance.now() - t0) / 1000) };
  } finally {
    await s.stop();
  }
}

const mains = { old: path.join(path.resolve(oldRoot), 'dist/src/main.js'), new: path.join(ROOT, 'dist/src/main.js') };
const got: Record<'old' | 'new', Figures[]> = { old: [], new: [] };
for (let r = 0; r < rounds; r++) {
  // Alternate which goes first, so neither always runs in the other's wake.
  const order: ('old' | 'new')[] = r % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
  for (const which of order) {
    const f = await measure(mains[which]);
    got[which].push(f);
    console.log(JSON.stringify({ round: r + 1, code: which, s1_rps: Math.round(f.s1), s1_p99_ms: f.s1p99, s2_rows_per_s: Math.round(f.s2) }));
  }
}
const med = (which: 'old' | 'new', key: keyof Figures): number => median(got[which].map((f) => f[key]));
const lines = [
  `| | old | new | new / old |`,
  `|---|---|---|---|`,
  `| scenario 1, req/s (median of ${rounds}) | ${med('old', 's1').toFixed(0)} | ${med('new', 's1').toFixed(0)} | ${(med('new', 's1') / med('old', 's1')).toFixed(3)} |`,
  `| scenario 1, p99 ms | ${med('old', 's1p99')} | ${med('new', 's1p99')} | |`,
  `| scenario 2, rows/s, 4 clients | ${med('old', 's2').toFixed(0)} | ${med('new', 's2').toFixed(0)} | ${(med('new', 's2') / med('old', 's2')).toFixed(3)} |`,
  '',
  `Per pair (new / old): scenario 1 ${got.new.map((f, i) => (f.s1 / got.old[i]!.s1).toFixed(3)).join(', ')}; scenario 2 ${got.new.map((f, i) => (f.s2 / got.old[i]!.s2).toFixed(3)).join(', ')}.`,
];
// DuckDB and the ceiling, once, the servers gone.
const w = workAsked();
await query(w.s1Sql[0]!);
let q = 0;
const duck1 = median(await timeRuns(w.s1Sql.length, () => query(w.s1Sql[q++]!)));
const file = path.join(os.tmpdir(), `civicstream-pairs-${process.pid}.csv`);
const copy = await duckCost(`COPY (${w.s2Sql} LIMIT 50000) TO '${file}' (FORMAT csv, HEADER)`, 5);
const copied = Number((await query(`SELECT count(*) AS n FROM read_csv('${file}')`))[0]!.n);
rmSync(file, { force: true });
const bytes1 = median(w.s1Bytes);
const hello = await uwsCeiling(Math.round(bytes1), seconds);
// The same ceiling under wrk, whose client costs less than half of autocannon's (about 15 against 35-40 us a request): most of the gap is autocannon's
// own CPU on the shared cores (bench/answer-served.ts measures the answers themselves under wrk).
const helloWrk = wrkPath() === null ? null : await withHello(Math.round(bytes1), (url) => {
  wrkRate(url, ['/'], { connections: 32, seconds: Math.min(3, seconds) });
  return wrkRate(url, ['/'], { connections: 32, seconds });
});
lines.push(
  '',
  `In the same run, once, after the rounds: DuckDB (in this process, ${await duckThreads()} threads, its default, warm, the same parquet) answered scenario 1's question (the answers' provenance SQL, ${w.s1Sql.length} governments) in ${duck1.toFixed(1)} ms a query (median), and wrote scenario 2's page (its provenance SQL, LIMIT 50000: ${copied.toLocaleString('en-US')} rows, COPY to CSV) at ${Math.round(copied / (copy.wallMs / 1000)).toLocaleString('en-US')} rows/s (median of 5); the uWS ceiling for scenario 1's median body (${Math.round(bytes1).toLocaleString('en-US')} bytes, 32 connections, ${seconds} s): ${Math.round(hello.rps).toLocaleString('en-US')} req/s, p99 ${hello.p99} ms (autocannon, as the rounds)${helloWrk === null ? '' : `; under wrk, ${Math.round(helloWrk).toLocaleString('en-US')} req/s`}.`,
);
console.log(lines.join('\n'));
