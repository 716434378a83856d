// What gzip costs a CSV row on this machine, and what that leaves of the 2.5 M rows/s target (issue 32):
// one 50,000-row national CSV page (as the flat route writes it, in-process) deflated at each level
// the server could use for a stream, and inflated as a client would, CPU time per row measured with
// process.cpuUsage (so another process on the cores does not count). The bound printed is 2 cores
// divided by the page's deflate time alone: no CSV writing, no sending, no client.
//   npm run bench:gzip-cost [-- --data DIR] [--runs 10]
// Written to bench/results/gzip-cost.md.

import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT } from '../scripts/lib/server.js';
import { readConfig } from '../src/config.js';
import { financeCtx, financeService, loadFinanceData } from '../src/finance/http/service.js';
import { inject } from '../src/server/inject.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
};
const data = arg('data', path.join(ROOT, 'fixtures/finance/v6'));
const runs = Number(arg('runs', '10'));
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
    `## ${new Date().toISOString().slice(0, 10)}: ${path.basename(data)}, Node ${process.version}, ${os.cpus().length} cores, ${runs} runs a figure`,
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
  const out = path.join(ROOT, 'bench/results/gzip-cost.md');
  if (!existsSync(out)) writeFileSync(out, '# What gzip costs a CSV row (issue 32)\n\nWritten by `npm run bench:gzip-cost` (bench/gzip-cost.ts).\n\n');
  appendFileSync(out, `${lines.join('\n')}\n\n`);
  console.log(lines.join('\n'));
} finally {
  await ctx.pool.close();
}
