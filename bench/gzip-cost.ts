// What gzip costs a CSV row on this machine, and what that leaves of the 2.5 M rows/s target (issue 32):
// one 50,000-row national CSV page (as the flat route writes it, in-process) deflated at each level
// the server could use for a stream, and inflated as a client would, CPU time per row measured with
// process.cpuUsage (so another process on the cores does not count). The bound printed is 2 cores
// divided by the page's deflate time alone: no CSV writing, no sending, no client.
// Beside it, in the same run: DuckDB (in this process, over the same parquet, its default threads) writing
// the same 50,000 rows (the page's provenance SQL, LIMIT 50000, as bench/load.ts does) by COPY to CSV and to
// CSV gzip: rows/s (wall), CPU a row (all its threads) and bytes a row; the gap between the two is what gzip
// costs DuckDB a row, beside our deflate's. DuckDB writes the SQL's columns, fewer than the page's.
//   npm run bench:gzip-cost [-- --data DIR] [--runs 10] [--quick]
// Written to bench/results/gzip-cost.md (not with --quick: 2 runs a figure, to check that the script works).

import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT } from '../scripts/lib/server.js';
import { readConfig } from '../src/config.js';
import { financeCtx, financeService, loadFinanceData } from '../src/finance/http/service.js';
import { inject } from '../src/server/inject.js';
import { duckCost, duckThreads, type DuckCost } from './lib/duck.js';
import { arg } from './lib/args.js';

const data = arg('data', path.join(ROOT, 'fixtures/finance/v6'));
const quick = process.argv.includes('--quick');
const runs = Number(arg('runs', quick ? '2' : '10'));
const ROWS = 50_000;

/** CPU microseconds of one call of f, the mean of n after one unmeasured. */
function cpuUs(f: () => unknown, n: number): number {
  f();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

const config = readConfig({ ...process.env, FINANCE_DATA: data, WORKERS: '1', RATE_LIMIT: '0', RESPONSE_CACHE_MB: '0' });
const ctx = await financeCtx(config, await loadFinanceData(config), { inline: true });
try {
  const service = financeService(ctx, config);
  const years = ctx.catalog.years;
  const url = `/api/v1/spending?type=city&years=${years[0]}-${years[years.length - 1]}&format=csv&limit=${ROWS}`;
  const page = (await inject(service, url)).body;
  const rows = page.toString('latin1').split('\n').length - 2;
  const lines = [
    `## ${new Date().toISOString().slice(0, 10)}: ${path.basename(data)}, Node ${process.version}, ${os.cpus().length} cores, ${runs} runs a figure${quick ? ' (QUICK: a check that the script works, not a measurement)' : ''}`,
    '',
    `\`${url}\`: ${rows.toLocaleString('en-US')} rows, ${(page.length / rows).toFixed(1)} bytes a row.`,
    '',
    '| gzip level | bytes a row | deflate ns a row | deflate MB/s (one core) | inflate ns a row | 2 cores / deflate alone (M rows/s) |',
    '|---|---|---|---|---|---|',
  ];
  for (const level of [1, 2, 4, 6]) {
    const z = zlib.gzipSync(page, { level });
    const dUs = cpuUs(() => zlib.gzipSync(page, { level }), runs);
    const iUs = cpuUs(() => zlib.gunzipSync(z), runs);
    const dNs = (1000 * dUs) / rows;
    lines.push(`| ${level} | ${(z.length / rows).toFixed(1)} | ${dNs.toFixed(0)} | ${(page.length / dUs).toFixed(0)} | ${((1000 * iUs) / rows).toFixed(0)} | ${(2e3 / dNs).toFixed(2)} |`);
  }
  // DuckDB: the same rows (the page's query, its provenance SQL) written by COPY, plain and gzip, warm.
  const sql = (JSON.parse((await inject(service, url.replace('&format=csv', '').replace(`&limit=${ROWS}`, '&limit=1'))).body.toString()) as { provenance: { sql_query: string } }).provenance.sql_query;
  const file = path.join(os.tmpdir(), `civicstream-gzip-cost-${process.pid}.csv`);
  const duck: { label: string; cost: DuckCost; bytes: number }[] = [];
  let duckRows = 0, duckColumns = 0;
  for (const [label, to, opts] of [['CSV', file, ''], ['CSV gzip', `${file}.gz`, ', COMPRESSION gzip']] as const) {
    const cost = await duckCost(`COPY (${sql} LIMIT ${ROWS}) TO '${to}' (FORMAT csv, HEADER${opts})`, runs);
    duck.push({ label, cost, bytes: statSync(to).size });
    if (to === file) {
      const text = readFileSync(to, 'latin1');
      duckRows = text.split('\n').length - 2;
      duckColumns = text.slice(0, text.indexOf('\n')).split(',').length;
    }
    rmSync(to, { force: true });
  }
  const [plain, gz] = duck as [(typeof duck)[0], (typeof duck)[0]];
  const pageColumns = page.subarray(0, page.indexOf(0x0a)).toString('latin1').split(',').length;
  lines.push(
    '',
    `DuckDB in the same run (in this process, ${await duckThreads()} threads, its default; warm): COPY of the same query (the page's provenance SQL, \`LIMIT ${ROWS}\`): ${duckRows.toLocaleString('en-US')} rows of ${duckColumns} columns (the page's have ${pageColumns}); median wall of ${runs} runs, CPU the mean of all its threads. DuckDB's gzip is its own (COMPRESSION gzip; no level to set).`,
    '',
    '| DuckDB COPY to | rows/s (wall) | CPU ns a row | bytes a row |',
    '|---|---|---|---|',
    ...duck.map((d) => `| ${d.label} | ${Math.round(duckRows / (d.cost.wallMs / 1000)).toLocaleString('en-US')} | ${((1e6 * d.cost.cpuMs) / duckRows).toFixed(0)} | ${(d.bytes / duckRows).toFixed(1)} |`),
    `| gzip alone (CSV gzip less CSV; beside our deflate ns a row above) | | ${((1e6 * (gz.cost.cpuMs - plain.cost.cpuMs)) / duckRows).toFixed(0)} | |`,
  );
  const out = path.join(ROOT, 'bench/results/gzip-cost.md');
  if (!quick) {
    if (!existsSync(out)) writeFileSync(out, '# What gzip costs a CSV row (issue 32)\n\nWritten by `npm run bench:gzip-cost` (bench/gzip-cost.ts).\n\n');
    appendFileSync(out, `${lines.join('\n')}\n\n`);
  }
  console.log(lines.join('\n'));
} finally {
  await ctx.pool.close();
}
