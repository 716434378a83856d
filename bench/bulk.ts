// Bulk delivery at full scale (issue 19), each figure beside DuckDB over the
// same parquet in the same run where it applies, written to bench/results/bulk.md:
//   1. first pulls: 4 clients each pulling 50,000-row flat CSV pages of queries
//      never asked before (each a new state and span of years), so each pull
//      counts its query for X-Total-Count; and one client doing the same
//   2. repeat pulls of one query, 4 clients (its count known)
//   3. the same first and repeat pulls with Accept-Encoding gzip, and br
//   4. the same first and repeat pulls as Arrow and as Parquet (format=arrow|parquet)
//   5. DuckDB writing the same 50,000 rows as CSV and as Parquet (COPY), warm
//   6. repeat gzip pulls with the response cache on (a compressed page kept), beside identity
//   7. one government's JSON answer, response cache warm, identity against
//      gzip (autocannon, 32 connections)
//   8. the uWS ceiling with the same client: a fixed body of the identity and
//      of the gzip page's size (bench/lib/hello.ts), 4 clients
//   npm run bench:bulk [-- --data .data/finance-46m] [--seconds 10] [--main <another build's dist/src/main.js>] [--smoke]
// Without --data the 46M corpus is generated under .data/ when missing.

import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { query } from '../scripts/lib/duckdb.js';
import { ROOT, startServer, type Running } from '../scripts/lib/server.js';
import { cpuPerRequest, cpuSnapshot } from './lib/cpu.js';
import { csvPuller, type CsvPuller } from './lib/csv-pull.js';
import { withHello } from './lib/ceiling.js';
import { load } from './lib/load.js';
import { median, timeRuns } from './lib/timing.js';
import { wrkPath, wrkRate } from './lib/wrk.js';
import { servedGovernments } from './lib/governments.js';
import { arg } from './lib/args.js';

const smoke = process.argv.includes('--smoke');
const seconds = Number(arg('seconds', smoke ? '1' : '10'));
/** Rows a pull: the CSV cap; the smoke run's fixture has no query of two such pages, so it pulls 1,000. */
const PAGE = smoke ? 1000 : 50_000;

function corpusDir(): string {
  if (smoke) return path.join(ROOT, 'fixtures/finance/v6');
  const given = arg('data', '');
  if (given !== '') return path.resolve(given);
  const dir = path.join(ROOT, '.data', 'finance-46m');
  if (!existsSync(path.join(dir, 'manifest.json'))) {
    execFileSync(process.execPath, [path.join(ROOT, 'dist/scripts/generate-finance-full.js'), '--out', dir, '--rows', '46000000'], { stdio: 'inherit' });
  }
  return dir;
}

const get = async (s: Running, p: string): Promise<any> => (await fetch(`${s.url}${p}`)).json();

/**
 * Never-asked queries whose first page is full: flat /spending of one state's cities over a span of
 * years, each (state, first year, last year) once, widest spans first. Their totals are not asked
 * here (a HEAD would count them, and the pull would no longer be a first one): a span is taken when
 * its state's rows a year, from one wide query asked once per state, say it holds a page.
 */
async function firstPullQueries(s: Running, years: number[], need: number): Promise<string[]> {
  const states: string[] = (await get(s, '/api/v1/governments?type=state&limit=100')).data.map((r: any) => r.state);
  const out: string[] = [];
  const span = `${years[0]}-${years[years.length - 1]}`;
  for (const st of states) {
    const head = await fetch(`${s.url}/api/v1/spending?state=${st}&type=city&years=${span}&format=csv`, { method: 'HEAD' });
    const perYear = Number(head.headers.get('x-total-count')) / years.length;
    if (!(perYear > 0)) continue;
    // At least 1.5 pages' worth of years, so a span is full whatever years it happens to miss.
    const minSpan = Math.ceil((1.5 * PAGE) / perYear);
    for (let len = years.length - 1; len >= minSpan; len--) {
      for (let a = 0; a + len < years.length; a++) out.push(`/api/v1/spending?state=${st}&type=city&years=${years[a]}-${years[a + len]}&format=csv&limit=${PAGE}`);
    }
  }
  if (out.length < need) throw new Error(`only ${out.length} never-asked full-page queries in this corpus, ${need} wanted`);
  // Interleave the states, so clients are not all on one state's groups at once.
  return out.sort((x, y) => (hash(x) - hash(y))).slice(0, need);
}
const hash = (t: string): number => { let h = 2166136261; for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619); return h >>> 0; };

interface Rate { rowsPerSec: number; bytesPerRow: number; pulls: number; short: number; cpuMsPer1000: number; idle: number }

/** clients pulling as fast as they can for the run's seconds, each taking its next path from next(). */
async function rate(s: Running, puller: CsvPuller, clients: number, next: () => string | undefined, headers: Record<string, string> = {}): Promise<Rate> {
  const c0 = cpuSnapshot(s.proc.pid!);
  let rows = 0, bytes = 0, pulls = 0, short = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() - t0 < seconds * 1000) {
      const p = next();
      if (p === undefined) return;
      const got = await puller.pullWith(p, headers);
      rows += got.rows; bytes += got.bytes; pulls++;
      if (got.rows < PAGE) short++;
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  const cpu = cpuPerRequest(s.proc.pid!, c0, cpuSnapshot(s.proc.pid!), rows / 1000);
  return { rowsPerSec: rows / secs, bytesPerRow: bytes / rows, pulls, short, cpuMsPer1000: (cpu.main + cpu.other + cpu.client) / 1000, idle: cpu.idle };
}

/** The uWS ceiling with the same client: bodies/s of a fixed body of `bytes` (bench/lib/hello.ts), pulled by 4 clients for the run's seconds. */
function ceiling(bytes: number): Promise<number> {
  return withHello(Math.round(bytes), async (url) => {
    const p = csvPuller(url);
    let n = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (performance.now() - t0 < seconds * 1000) { await p.pullWith('/', {}); n++; }
    }));
    p.close();
    return n / ((performance.now() - t0) / 1000);
  });
}

const dir = corpusDir();
const main = arg('main', '');
const s = await startServer({ FINANCE_DATA: dir, WORKERS: String(os.cpus().length), RESPONSE_CACHE_MB: '0' }, 1_800_000, main === '' ? undefined : path.resolve(main));
const lines: string[] = [];
try {
  const health = (await get(s, '/api/v1/health')).data[0];
  const years: number[] = health.corpus.years;
  const puller = csvPuller(s.url);
  // Enough never-asked queries for the 4-client run at twice today's best rate, and the 1-client run.
  // Five 4-client runs of first pulls (identity, gzip, br, Arrow, Parquet) and the 1-client one.
  const fresh = await firstPullQueries(s, years, smoke ? 20 : 5 * Math.ceil((4e6 * seconds) / PAGE) + 400);
  let k = 0;
  const nextFresh = (): string | undefined => fresh[k++];
  const one = await rate(s, puller, 1, nextFresh);
  const four = await rate(s, puller, 4, nextFresh);
  const coded: [string, Rate, Rate][] = [];
  const fixed = `/api/v1/spending?state=CA&type=city&years=${years[0]}-${years[years.length - 1]}&format=csv&limit=${PAGE}`;
  await puller.pull(fixed);
  const repeat = await rate(s, puller, 4, () => fixed);
  for (const coding of ['gzip', 'br']) {
    const h = { 'Accept-Encoding': coding };
    coded.push([coding, await rate(s, puller, 4, nextFresh, h), await rate(s, puller, 4, () => fixed, h)]);
  }
  const binary: [string, Rate, Rate][] = [];
  for (const format of ['arrow', 'parquet']) {
    const as = (p: string | undefined): string | undefined => p?.replace('format=csv', `format=${format}`);
    const fixedAs = as(fixed)!;
    const first = await rate(s, puller, 4, () => as(nextFresh()));
    await puller.pull(fixedAs);
    binary.push([format, first, await rate(s, puller, 4, () => fixedAs)]);
  }
  puller.close();

  // 5. One government's JSON, every answer from the response cache after a first pass.
  const s5 = await startServer({ FINANCE_DATA: dir, WORKERS: String(os.cpus().length) }, 1_800_000, main === '' ? undefined : path.resolve(main));
  const json: Record<string, number> = {};
  const jsonCpu: Record<string, { server: number; client: number }> = {};
  const jsonWrk: Record<string, number> = {};
  let cachedGzip: Rate | undefined, cachedIdentity: Rate | undefined;
  try {
    const govs = await servedGovernments(s5.url);
    let g = 0;
    const next = (): string => `/api/v1/governments/${govs[(g++ * 7919) % govs.length]}/spending?category=Police`;
    for (const [label, headers] of [['identity', {}], ['gzip', { 'Accept-Encoding': 'gzip' }], ['identity', {}], ['gzip', { 'Accept-Encoding': 'gzip' }]] as const) {
      await load(s5.url, next, { connections: 32, seconds: Math.min(3, seconds), headers });
      const c0 = cpuSnapshot(s5.proc.pid!);
      const r = await load(s5.url, next, { connections: 32, seconds, headers });
      const cpu = cpuPerRequest(s5.proc.pid!, c0, cpuSnapshot(s5.proc.pid!), r.total);
      if (r.requestsPerSec > (json[label] ?? 0)) { json[label] = r.requestsPerSec; jsonCpu[label] = { server: cpu.main + cpu.other, client: cpu.client }; }
    }
    // Repeat gzip pulls of one page with the response cache on: the compressed page kept once streamed whole (kept-streams.ts).
    const puller5 = csvPuller(s5.url);
    for (let i = 0; i < 8; i++) await puller5.pullWith(fixed, { 'Accept-Encoding': 'gzip' });
    cachedGzip = await rate(s5, puller5, 4, () => fixed, { 'Accept-Encoding': 'gzip' });
    cachedIdentity = await rate(s5, puller5, 4, () => fixed);
    puller5.close();
    // The same answers through wrk, which never decodes a body (bench/lib/wrk.ts), interleaved, best of two.
    if (wrkPath() !== null) {
      const paths = govs.map((_, i) => `/api/v1/governments/${govs[(i * 7919) % govs.length]}/spending?category=Police`);
      for (const [label, headers] of [['identity', {}], ['gzip', { 'Accept-Encoding': 'gzip' }], ['identity', {}], ['gzip', { 'Accept-Encoding': 'gzip' }]] as const) {
        wrkRate(s5.url, paths, { connections: 32, seconds: Math.min(2, seconds), headers });
        jsonWrk[label] = Math.max(jsonWrk[label] ?? 0, wrkRate(s5.url, paths, { connections: 32, seconds, headers }));
      }
    }
  } finally {
    await s5.stop();
  }

  // The uWS ceiling for bodies of the identity and the gzip page's sizes, after the server's runs (never beside them).
  const pageBytes = { identity: repeat.bytesPerRow * PAGE, gzip: coded[0]![2].bytesPerRow * PAGE };
  const hello = { identity: await ceiling(pageBytes.identity), gzip: await ceiling(pageBytes.gzip) };

  const sql = (await get(s, fixed.replace('&format=csv', '').replace(`&limit=${PAGE}`, '&limit=1'))).provenance.sql_query as string;
  const out = path.join(os.tmpdir(), `civicstream-bulk-${process.pid}.csv`);
  const copy = `COPY (${sql} LIMIT ${PAGE}) TO '${out}' (FORMAT csv, HEADER)`;
  await query(copy);
  const duck = PAGE / (median(await timeRuns(smoke ? 2 : 9, () => query(copy))) / 1000);
  rmSync(out, { force: true });
  const copyParquet = `COPY (${sql} LIMIT ${PAGE}) TO '${out}.parquet' (FORMAT parquet, COMPRESSION snappy)`;
  await query(copyParquet);
  const duckParquet = PAGE / (median(await timeRuns(smoke ? 2 : 9, () => query(copyParquet))) / 1000);
  rmSync(`${out}.parquet`, { force: true });

  const f = (x: number, d = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const row = (label: string, r: Rate): string =>
    `| ${label} | ${f(r.rowsPerSec)} | ${f(r.rowsPerSec / duck, 1)}x | ${f(r.bytesPerRow, 1)} | ${f(r.pulls)}${r.short ? ` (${r.short} short)` : ''} | ${f(r.cpuMsPer1000, 2)} | ${f(100 * r.idle)}% |`;
  lines.push(
    `Bulk delivery; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores; corpus ${f(health.corpus.rows)} rows; ${seconds} s a run on loopback, the load generator (node:http) sharing the cores; response cache off; DuckDB warm, in-process, same parquet, same run${smoke ? ' (SMOKE RUN: the fixture)' : ''}`,
    '',
    `Pages of ${f(PAGE)} rows. A first pull is of a query never asked before (a new state and span of years each time), so it counts the query for X-Total-Count; a repeat pull's count is known.`,
    '',
    '| pulls | rows/s | / DuckDB COPY | bytes a row on the wire | pulls made | CPU per 1,000 rows, server + load generator (ms) | cores idle |',
    '|---|---|---|---|---|---|---|',
    row('CSV, first pulls, 1 client', one),
    row('CSV, first pulls, 4 clients', four),
    row('CSV, repeat pulls, 4 clients', repeat),
    ...coded.flatMap(([c, first, again]) => [row(`CSV ${c}, first pulls, 4 clients`, first), row(`CSV ${c}, repeat pulls, 4 clients`, again)]),
    row('CSV gzip, repeat pulls, 4 clients, response cache on (a kept page)', cachedGzip!),
    row('CSV, repeat pulls, 4 clients, response cache on (identity is never kept)', cachedIdentity!),
    ...binary.flatMap(([b, first, again]) => [row(`${b === 'arrow' ? 'Arrow' : 'Parquet'}, first pulls, 4 clients`, first), row(`${b === 'arrow' ? 'Arrow' : 'Parquet'}, repeat pulls, 4 clients`, again)]),
    `| uWS ceiling: a fixed body of the identity page's size (${f(pageBytes.identity)} bytes), the same client (which counts no lines in it: not CSV), 4 clients, a page's rows a body | ${f(hello.identity * PAGE)} | ${f((hello.identity * PAGE) / duck, 1)}x | | about ${f(hello.identity * seconds)} | | |`,
    `| uWS ceiling: the same, the gzip page's size (${f(pageBytes.gzip)} bytes) | ${f(hello.gzip * PAGE)} | ${f((hello.gzip * PAGE) / duck, 1)}x | | about ${f(hello.gzip * seconds)} | | |`,
    `| DuckDB COPY of the same ${f(PAGE)} rows to CSV | ${f(duck)} | 1.0x | | | | |`,
    `| DuckDB COPY of the same ${f(PAGE)} rows to Parquet (snappy) | ${f(duckParquet)} | ${f(duckParquet / duck, 1)}x | | | | |`,
    '',
    `Bytes on the wire against identity (repeat pulls): ${coded.map(([c, , again]) => `${c} ${f(repeat.bytesPerRow / again.bytesPerRow, 1)}x fewer`).join(', ')}.`,
    '',
    `One government's JSON answer (spending, Police, governments at random from 1,000), response cache warm, 32 connections, ${seconds} s, best of two runs each, interleaved.`,
    jsonWrk.identity !== undefined
      ? `- wrk (a load generator that does not decode bodies): identity ${f(jsonWrk.identity)} req/s, gzip ${f(jsonWrk.gzip!)} req/s (${f((100 * jsonWrk.gzip!) / jsonWrk.identity)}% of identity).`
      : '- wrk not installed (apt-get install wrk): no figure from a load generator that does not decode bodies.',
    `- autocannon: identity ${f(json.identity!)} req/s, gzip ${f(json.gzip!)} req/s (${f((100 * json.gzip!) / json.identity!)}% of identity). CPU a request, server / load generator: identity ${f(jsonCpu.identity!.server, 1)} / ${f(jsonCpu.identity!.client, 1)} us, gzip ${f(jsonCpu.gzip!.server, 1)} / ${f(jsonCpu.gzip!.client, 1)} us; by the server's CPU alone, gzip answers at ${f((100 * jsonCpu.identity!.server) / jsonCpu.gzip!.server)}% of identity's rate. autocannon appends each body to a string, a UTF-8 decode whose slow path is a binary (gzip) body, so on two shared cores its own cost, not the server's, makes most of the gap.`,
  );
} finally {
  await s.stop();
}
const text = lines.join('\n') + '\n';
process.stdout.write(text);
if (!smoke && main === '') writeFileSync(path.join(ROOT, 'bench/results/bulk.md'), text);
