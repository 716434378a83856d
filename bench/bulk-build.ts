// The bulk set built on its build threads at nice 19 (issue 32; the
// threads and their niceness as the server's bulk_files log line reports
// them): a server started on a corpus
// with no bulk set built (its cache sets removed first; a prebuilt set beside
// the mirror is refused, since the server would serve it) builds every file,
// timed from its listening to the last file ready (and by the server's own
// bulk_files log line), while one client asks one government's JSON answer at
// a modest fixed rate (open loop: a request every 1/rate s, however long the
// others take); their p50/p99 during the build (after a warm-up of 2 s, not
// counted), and for as long again after it, beside the build's time, rows
// and bytes. Written to bench/results/bulk-build.md (not with --quick).
// Beside it, in the same run, once the server has stopped (so the two never share the cores): DuckDB (in this
// process, over the same corpus parquet) writing the same tables, each (year, table) of the set as the flat
// route's provenance SQL of every type of government (/<table>?type=<t>&years=<y>, asked of the server before it
// stops) made into one table and copied to the two formats the set holds (Parquet zstd, CSV with a header
// gzipped), timed, with its rows and bytes. DuckDB runs with its default threads (the core count: both cores);
// when that is not 2, again with SET threads = 2. --duck-threads 1,2 runs the settings given instead.
//   npm run bench:bulk-build [-- --data .data/finance-46m] [--rate 200] [--main path/to/dist/src/main.js --label old] [--duck-threads default,1 | none] [--quick]
// --main times another build's server (run the script once for each, one after the other); the table is appended.
// --quick runs on the fixture, to check that the script works (seconds, not a measurement).

import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAIN, ROOT, startServer, type Running } from '../scripts/lib/server.js';
import { query } from '../scripts/lib/duckdb.js';
import { GOV_TYPES } from '../src/finance/catalog.js';
import { cacheRoots } from '../src/finance/load-cache.js';
import { duckThreads, setDuckThreads } from './lib/duck.js';
import { median, pct } from './lib/timing.js';
import { servedGovernments } from './lib/governments.js';
import { arg } from './lib/args.js';

const quick = process.argv.includes('--quick');
const rate = Number(arg('rate', quick ? '50' : '200'));
/** --quick: a fresh copy of the fixture (no set beside it, none cached for its path). */
function quickCopy(): string {
  const src = path.join(ROOT, 'fixtures/finance/v6'), out = path.join(mkdtempSync(path.join(os.tmpdir(), 'civicstream-bench-bulk-')), 'v6');
  cpSync(src, out, { recursive: true, filter: (f) => !['.civicstream-cache', 'bulk'].includes(path.relative(src, f).split(path.sep)[0]!) });
  return out;
}
const serverMain = path.resolve(arg('main', MAIN));
const label = arg('label', serverMain === MAIN ? 'this checkout' : serverMain);
const dir = path.resolve(quick ? quickCopy() : arg('data', path.join(ROOT, '.data', 'finance-46m')));

interface Listing { data: { year: number; table: string; format: string; status: string; rows: number | null; bytes: number | null }[]; meta: { total: number; ready: number; failed: number } }
const get = async (s: Running, p: string): Promise<any> => (await fetch(`${s.url}${p}`)).json();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The server's cache sets of this corpus (what it would serve rather than build) removed. */
function removeCacheSets(): void {
  for (const root of cacheRoots(dir)) {
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root)) if (/^bulk-[0-9a-f]{16}$/.test(name)) rmSync(path.join(root, name), { recursive: true, force: true });
  }
}

/** One government's answers at `rate` a second until stop() resolves; each answer's milliseconds (a failed one counted apart). */
function oneGovernment(s: Running, govs: string[]): { stop: () => Promise<{ ms: number[]; failed: number }> } {
  const ms: number[] = [];
  let failed = 0, k = 0;
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const url = `${s.url}/api/v1/governments/${govs[(k++ * 7919) % govs.length]}/spending?category=Police`;
    const t0 = performance.now();
    const p = fetch(url).then(async (r) => { await r.arrayBuffer(); if (r.ok) ms.push(performance.now() - t0); else failed++; }, () => { failed++; });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }, 1000 / rate);
  return { stop: async () => { clearInterval(timer); await Promise.all(inFlight); return { ms, failed }; } };
}

/** The build's threads and the niceness they reported, from the server's bulk_files line (none reported: normal priority). */
const threadsText = (l: Record<string, unknown> | null): string => {
  const nice = l?.nice as number[] | undefined;
  return l?.build_threads === undefined ? 'n/a' : `${String(l.build_threads)}, ${nice !== undefined && nice.length > 0 ? `nice ${nice.join(', ')}` : 'normal priority'}`;
};

/** The flat routes the bulk tables are pages of (src/finance/http/bulk-build.ts ROUTES). */
const FLAT: Record<string, string> = { spending: '/api/v1/spending', revenue: '/api/v1/revenue' };

/** Each (year, table) of the set: the provenance SQL of the flat route's query for each type of government. */
async function bulkSql(s: Running, listing: Listing): Promise<{ year: number; table: string; sqls: string[] }[]> {
  const pairs = [...new Map(listing.data.map((e) => [`${e.table}-${e.year}`, { year: e.year, table: e.table }])).values()];
  const out: { year: number; table: string; sqls: string[] }[] = [];
  // One (year, table) at a time: each question is a first page of one row, but hundreds at once would still be a load.
  for (const { year, table } of pairs) {
    out.push({
      year, table,
      sqls: await Promise.all(GOV_TYPES.map(async (t) => {
        const r = await fetch(`${s.url}${FLAT[table]}?type=${t}&years=${year}&limit=1`);
        if (!r.ok) throw new Error(`${FLAT[table]}?type=${t}&years=${year}: ${r.status}`);
        return ((await r.json()) as { provenance: { sql_query: string } }).provenance.sql_query;
      })),
    });
  }
  return out;
}

interface DuckBuild { threads: string; ms: number; cpuMs: number; queryMs: number; parquetMs: number; csvMs: number; rows: number; parquetBytes: number; csvBytes: number; columns: string[] }

/** DuckDB writing every (year, table) as the set does: its rows made once (the types' queries, one after another), then a .parquet (zstd) and a .csv.gz. */
async function duckBuild(tables: { year: number; table: string; sqls: string[] }[], threads: number | 'default'): Promise<DuckBuild> {
  await setDuckThreads(threads);
  const out = mkdtempSync(path.join(os.tmpdir(), 'civicstream-bench-duck-bulk-'));
  const d: DuckBuild = { threads: `${await duckThreads()}${threads === 'default' ? ' (its default)' : ' (SET threads)'}`, ms: 0, cpuMs: 0, queryMs: 0, parquetMs: 0, csvMs: 0, rows: 0, parquetBytes: 0, csvBytes: 0, columns: [] };
  const timed = async (sql: string): Promise<number> => { const t = performance.now(); await query(sql); return performance.now() - t; };
  try {
    const c0 = process.cpuUsage(), t0 = performance.now();
    for (const { year, table, sqls } of tables) {
      const base = path.join(out, `${table}-${year}`);
      d.queryMs += await timed(`CREATE OR REPLACE TEMP TABLE bulk AS ${sqls.map((q) => `SELECT * FROM (${q})`).join(' UNION ALL ')}`);
      d.parquetMs += await timed(`COPY bulk TO '${base}.parquet' (FORMAT parquet, COMPRESSION zstd)`);
      d.csvMs += await timed(`COPY bulk TO '${base}.csv.gz' (FORMAT csv, HEADER, COMPRESSION gzip)`);
      d.rows += (await query('SELECT count(*) AS n FROM bulk'))[0]!.n as number;
      d.parquetBytes += statSync(`${base}.parquet`).size;
      d.csvBytes += statSync(`${base}.csv.gz`).size;
    }
    d.ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    d.cpuMs = (c.user + c.system) / 1000;
    d.columns = (await query('DESCRIBE bulk')).map((r) => r.column_name as string);
    await query('DROP TABLE bulk');
  } finally {
    rmSync(out, { recursive: true, force: true });
    await setDuckThreads('default');
  }
  return d;
}

const mb = (b: number): string => (b / 2 ** 20).toFixed(0);
const figures = (r: { ms: number[]; failed: number }): string =>
  `${r.ms.length} answers, p50 ${median(r.ms).toFixed(2)} ms, p99 ${pct(r.ms, 0.99).toFixed(2)} ms, max ${Math.max(...r.ms).toFixed(1)} ms, failed ${r.failed}`;

async function main(): Promise<void> {
  if (existsSync(path.join(dir, 'bulk', 'index.json'))) throw new Error(`${dir}/bulk/ holds a prebuilt set, which the server would serve: move it away to time a build`);
  removeCacheSets();
  let logged: Record<string, unknown> | null = null;
  const s = await startServer({ FINANCE_DATA: dir, WORKERS: String(os.availableParallelism()), BULK_BUILD: 'true' }, 1_800_000, serverMain);
  const t0 = performance.now();
  let stopped = false;
  s.proc.stdout!.on('data', (d: Buffer) => {
    const line = d.toString().split('\n').find((l) => l.includes('"event":"bulk_files"'));
    if (line !== undefined) logged = JSON.parse(line) as Record<string, unknown>;
  });
  try {
    const govs = await servedGovernments(s.url);
    // The first answers of a fresh server pay its warm-up (JIT, caches of names): not counted, the build going on meanwhile.
    const warm = oneGovernment(s, govs);
    await sleep(quick ? 500 : 2000);
    await warm.stop();
    const during = oneGovernment(s, govs);
    let listing: Listing = await get(s, '/api/v1/bulk');
    // The server's resident memory (all its threads, the build threads' isolates included) at each poll.
    const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${s.proc.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    const rssFirst = rss();
    let rssPeak = rssFirst;
    while (listing.meta.ready + listing.meta.failed < listing.meta.total) {
      await sleep(quick ? 50 : 250);
      rssPeak = Math.max(rssPeak, rss());
      listing = await get(s, '/api/v1/bulk');
    }
    const buildMs = performance.now() - t0;
    const d = await during.stop();
    // As long again (at most a minute) with no build: the same answers' latency on the same server.
    const after = oneGovernment(s, govs);
    await sleep(Math.min(60_000, Math.max(2000, buildMs)));
    const a = await after.stop();
    const rssAfter = rss();
    const rows = listing.data.filter((e) => e.status === 'ready').reduce((n, e) => n + (e.rows ?? 0), 0) / 2;
    const bytes = listing.data.reduce((n, e) => n + (e.bytes ?? 0), 0);
    const bytesOf = (format: string): number => listing.data.filter((e) => e.format === format).reduce((n, e) => n + (e.bytes ?? 0), 0);
    // DuckDB on the same tables, the server stopped first: the machine is DuckDB's alone, as it was the server's.
    const tables = await bulkSql(s, listing);
    await s.stop();
    stopped = true;
    const given = arg('duck-threads', '');
    // --duck-threads none: no DuckDB (a run that times the build alone).
    const settings: (number | 'default')[] = given === 'none' ? [] : given !== ''
      ? given.split(',').map((t) => (t === 'default' ? 'default' : Number(t)))
      : (await duckThreads()) === 2 ? ['default'] : ['default', 2];
    const ducks: DuckBuild[] = [];
    for (const t of settings) ducks.push(await duckBuild(tables, t));
    const f = (x: number): string => Math.round(x).toLocaleString('en-US');
    const duckLines = ducks.flatMap((k) => [
      `| DuckDB, the same tables (threads: ${k.threads}): rows made, then Parquet zstd and CSV gzip written | **${(k.ms / 1000).toFixed(1)} s** (${f(k.rows / (k.ms / 1000))} rows/s; CPU ${(k.cpuMs / 1000).toFixed(1)} s): rows ${(k.queryMs / 1000).toFixed(1)} s, .parquet ${(k.parquetMs / 1000).toFixed(1)} s, .csv.gz ${(k.csvMs / 1000).toFixed(1)} s |`,
      `| DuckDB's rows; bytes (.parquet + .csv.gz) | ${f(k.rows)}${k.rows === rows ? '' : ` (ours ${f(rows)})`}; ${f(k.parquetBytes + k.csvBytes)} (${f(k.parquetBytes)} + ${f(k.csvBytes)}) |`,
    ]);
    const lines = [
      `## ${new Date().toISOString()}: ${label}`, '',
      `Corpus ${dir}, ${os.availableParallelism()} cores; one government's JSON at ${rate}/s throughout.`, '',
      `| | figure |`, `|---|---|`,
      `| files ready / failed / total | ${listing.meta.ready} / ${listing.meta.failed} / ${listing.meta.total} |`,
      `| rows (each table-year counted once) | ${rows.toLocaleString('en-US')} |`,
      `| bytes (all files) | ${bytes.toLocaleString('en-US')} |`,
      `| build, listening to last file ready | ${(buildMs / 1000).toFixed(1)} s (${Math.round(rows / (buildMs / 1000)).toLocaleString('en-US')} rows/s) |`,
      `| build, the server's bulk_files log | ${logged === null ? 'n/a' : `${((logged as { ms: number }).ms / 1000).toFixed(1)} s`} |`,
      `| build threads, their niceness (the same log) | ${threadsText(logged)} |`,
      `| one government during the build | ${figures(d)} |`,
      `| one government after it | ${figures(a)} |`,
      `| server RSS: at the first poll (the build under way), peak during the build (polled every 250 ms), after the answers that follow it | ${mb(rssFirst)}, ${mb(rssPeak)}, ${mb(rssAfter)} MB |`,
      `| bytes (.parquet + .csv.gz) | ${f(bytesOf('parquet'))} + ${f(bytesOf('csv.gz'))} |`,
      ...duckLines,
      '',
      ducks.length === 0 ? 'DuckDB not run (--duck-threads none).' : `DuckDB ran in the bench's process after the server stopped, over the same parquet: for each (year, table) of the set, the flat route's provenance SQL for each type of government (${GOV_TYPES.join(', ')}) made into one table, then COPY to .parquet (zstd) and to .csv.gz (HEADER, its own gzip). Its files hold the SQL's ${ducks[0]?.columns.length ?? 0} columns (${ducks[0]?.columns.join(', ') ?? ''}), fewer than the set's, and its rows in no set order.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (!quick) appendFileSync(path.join(ROOT, 'bench/results/bulk-build.md'), `\n${lines.join('\n')}\n`);
  } finally {
    if (!stopped) await s.stop();
    if (quick) rmSync(path.dirname(dir), { recursive: true, force: true });
  }
}

main().catch((err: unknown) => { process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`); process.exit(1); });
