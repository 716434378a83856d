// Parquet zstd against Snappy (issue 32), on the bulk files and on answer
// pages. The bulk files of the corpus's years are built once on the build
// threads (bulk-build.ts, zstd); each is read back into Arrow and written again with
// each codec by parquet-wasm (the bulk files' properties: dictionary pages,
// row groups up to 2^20 rows), and a few 50,000-row pages of national flat
// queries are written as a page is (arrow-writer.ts's typed columns, one row
// group) with each codec. For each: bytes, write rows/s, parquet-wasm read
// rows/s, and DuckDB reading the same file whole (into a temp table) in the
// same run. Written to bench/results/parquet-codecs.md (not with --quick).
//   npm run bench:parquet-codecs [-- --data .data/finance-46m] [--years 3] [--pages 6] [--quick]
// --quick runs on the fixture's latest year and two pages, to check that the script works.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tableToIPC } from 'apache-arrow';
import * as pw from 'parquet-wasm';
import { query } from '../scripts/lib/duckdb.js';
import { ROOT } from '../scripts/lib/server.js';
import { arrowTable } from '../src/bytes/arrow-writer.js';
import { readConfig } from '../src/config.js';
import { GOV_TYPES } from '../src/finance/catalog.js';
import { cohortOf } from '../src/finance/cohort.js';
import { BuildThreads } from '../src/finance/build-threads.js';
import { buildTable } from '../src/finance/http/bulk-build.js';
import { financeService, loadFinance } from '../src/finance/http/service.js';
import { moneyTable, tableOptions } from '../src/finance/money-table.js';
import { corpusBasis, planOf } from '../src/finance/plan-of.js';
import { tableCtxOf, tableNames } from '../src/finance/table-ctx.js';
import { attachFinance } from '../workers/finance/corpus.js';
import { money } from '../workers/finance/money.js';
import { arg } from './lib/args.js';

const quick = process.argv.includes('--quick');
const dir = path.resolve(quick ? path.join(ROOT, 'fixtures/finance/v6') : arg('data', path.join(ROOT, '.data', 'finance-46m')));
const nYears = Number(arg('years', quick ? '1' : '3'));
const nPages = Number(arg('pages', quick ? '2' : '6'));
const CODECS = { zstd: pw.Compression.ZSTD, snappy: pw.Compression.SNAPPY } as const;
type Codec = keyof typeof CODECS;
const PAGE = 50_000;
/** Timings taken of each write and read; the least is kept. */
const RUNS = quick ? 2 : 3;

const props = (codec: Codec, rowGroup: number): pw.WriterProperties =>
  new pw.WriterPropertiesBuilder().setCompression(CODECS[codec]).setDictionaryEnabled(true).setMaxRowGroupSize(rowGroup).build();

interface Tally { files: number; rows: number; bytes: number; writeMs: number; readMs: number; duckMs: number }
const tallies = new Map<string, Tally>();
const tally = (k: string): Tally => { let t = tallies.get(k); if (t === undefined) tallies.set(k, (t = { files: 0, rows: 0, bytes: 0, writeMs: 0, readMs: 0, duckMs: 0 })); return t; };

/** The least of `runs` timings of f (the first run is a warm-up when runs > 1, as the least drops it). */
async function least<T>(runs: number, f: () => T | Promise<T>): Promise<{ ms: number; value: T }> {
  let best = Number.POSITIVE_INFINITY, value!: T;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    value = await f();
    best = Math.min(best, performance.now() - t0);
  }
  return { ms: best, value };
}

/** Writes the Arrow IPC stream with each codec, reads it back, and has DuckDB read the file whole; each the least of RUNS. */
async function measure(kind: string, ipc: Uint8Array, rows: number, rowGroup: number, tmp: string): Promise<void> {
  for (const codec of Object.keys(CODECS) as Codec[]) {
    // writeParquet consumes its table: a fresh one a run, made before the clock starts.
    const tables = Array.from({ length: RUNS }, () => pw.Table.fromIPCStream(ipc));
    const write = await least(RUNS, () => pw.writeParquet(tables.pop()!, props(codec, rowGroup)));
    const bytes = write.value;
    const read = await least(RUNS, () => pw.readParquet(bytes).free());
    const file = path.join(tmp, `${kind.replace(' ', '-')}-${codec}.parquet`);
    writeFileSync(file, bytes);
    const duck = await least(RUNS, () => query(`CREATE OR REPLACE TEMP TABLE codec_read AS SELECT * FROM read_parquet('${file}')`));
    const t = tally(`${kind} ${codec}`);
    t.files++; t.rows += rows; t.bytes += bytes.byteLength; t.writeMs += write.ms; t.readMs += read.ms; t.duckMs += duck.ms;
  }
}

const perSecond = (rows: number, ms: number): string => Math.round(rows / (ms / 1000)).toLocaleString('en-US');

async function main(): Promise<void> {
  const config = readConfig({ ...process.env, FINANCE_DATA: dir, WORKERS: String(os.availableParallelism()) });
  const ctx = await loadFinance(config);
  const service = { ...financeService(ctx, config), cache: undefined, timeoutMs: undefined, accessLog: false };
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-codecs-'));
  const threads = new BuildThreads(ctx, 1, () => {});
  try {
    const years = [...ctx.catalog.years].sort((a, b) => b - a).slice(0, nYears);
    // 1. The bulk files of the latest years, built on a build thread, then each written again with each codec.
    for (const year of years) {
      for (const table of ['spending', 'revenue'] as const) {
        const files = await buildTable(service, threads, tmp, year, table);
        const pq = files.find((f) => f.format === 'parquet')!;
        const wasmTable = pw.readParquet(new Uint8Array(readFileSync(path.join(tmp, pq.name))));
        await measure('bulk file', wasmTable.intoIPCStream(), pq.rows, 1 << 20, tmp);
        for (const f of files) rmSync(path.join(tmp, f.name), { force: true });
      }
    }
    // 2. Answer pages: the first 50,000-row pages of the latest year's national city spending, typed as a page is.
    const c = attachFinance(ctx.columns);
    const t = tableCtxOf(ctx.engine, tableNames(ctx.catalog));
    const route = { verb: 'spending', flows: ['expenditure' as const], subtypeField: 'spend_subtype', withFlow: false };
    const gids = GOV_TYPES.flatMap((_, typeNo) => cohortOf(ctx, undefined, typeNo));
    for (let page = 0; page < nPages; page++) {
      const plan = planOf(ctx, route, { gids, years: [years[0]!], params: { basis: corpusBasis(ctx), limit: PAGE, page } });
      const res = money(c, ctx.engine, plan);
      if (res.rows.n === 0) break;
      const answer = moneyTable(t, route, tableOptions({}), res);
      await measure('answer page', tableToIPC(arrowTable(answer, []), 'stream'), answer.n, 1 << 20, tmp);
    }
    const lines = [
      `# Parquet zstd against Snappy (issue 32)`, '',
      `Corpus ${dir}, ${os.availableParallelism()} cores, ${new Date().toISOString()}; bulk files of ${years.join(', ')}; answer pages of ${PAGE.toLocaleString('en-US')} rows.`,
      `Write and read by parquet-wasm in this process (one thread); DuckDB reads the same file into a temp table; each the least of ${RUNS} runs.`, '',
      '| what | codec | files | rows | bytes | bytes/row | write rows/s | read rows/s | DuckDB read rows/s |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
      ...[...tallies].map(([k, x]) => {
        const [what, codec] = [k.slice(0, k.lastIndexOf(' ')), k.slice(k.lastIndexOf(' ') + 1)];
        return `| ${what} | ${codec} | ${x.files} | ${x.rows.toLocaleString('en-US')} | ${x.bytes.toLocaleString('en-US')} | ${(x.bytes / x.rows).toFixed(1)} | ${perSecond(x.rows, x.writeMs)} | ${perSecond(x.rows, x.readMs)} | ${perSecond(x.rows, x.duckMs)} |`;
      }),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (!quick) writeFileSync(path.join(ROOT, 'bench/results/parquet-codecs.md'), `${lines.join('\n')}\n`);
  } finally {
    await threads.close();
    await ctx.pool.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => { process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`); process.exit(1); });
