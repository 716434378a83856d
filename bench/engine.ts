// Micro-benchmarks of the finance engine jobs (tinybench), on a mirror
// (default: the bundled fixture). Each job runs in-process (the pure
// function) and through the Piscina pool (what a request pays).
//   npm run bench:engine [-- --data <mirror dir>]

import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import { readConfig } from '../src/config.js';
import { loadFinance } from '../src/finance/http/service.js';
import { planOf } from '../src/finance/plan-of.js';
import type { MoneyRoute } from '../src/finance/money-table.js';
import { attachFinance } from '../workers/finance/corpus.js';
import { money } from '../workers/finance/money.js';
import { ROOT } from '../scripts/lib/server.js';
import { arg } from './lib/args.js';

const data = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));
const ctx = await loadFinance(readConfig({ ...process.env, FINANCE_DATA: data, WORKERS: '2' }));
const view = attachFinance(ctx.columns);

// The most populous city with rows in the latest year: a long history, many categories.
const gid = ctx.catalog.governments.findIndex((g, i) => g.type === 2 && ctx.govYears[i]!.includes(ctx.catalog.maxYear));
const police = ctx.engine.categories.indexOf('Police');
const spending: MoneyRoute = { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false };
const profile: MoneyRoute = { verb: 'profile', flows: ['expenditure', 'revenue'], subtypeField: 'subtype', withFlow: true };
const base = { basis: 'harmonized' as const, page: 0, limit: 1000, adjust: 'nominal', per_capita: false, base_year: ctx.catalog.maxYear };
const q = (params: Record<string, unknown>) => ({ gids: [gid], years: ctx.catalog.years, params: { ...base, ...params } });
const plans = {
  'one government, all years, spending': planOf(ctx, spending, q({})),
  'one government, all years, one category': planOf(ctx, spending, q({ category: { ids: [police], all: false, names: ['Police'] } })),
  'one government, all years, profile': planOf(ctx, profile, q({ adjust: 'real', per_capita: true })),
};

const bench = new Bench({ time: 1500, warmupTime: 300 });
for (const [name, plan] of Object.entries(plans)) {
  bench.add(`${name} (job in-process)`, () => { money(view, ctx.engine, plan); });
  bench.add(`${name} (via pool)`, async () => { await ctx.pool.run('money', plan); });
}
await bench.run();

const rows = bench.tasks.map((t) => {
  const r = t.result as unknown as { latency: { p50: number; p99: number; mean: number }; throughput: { mean: number } };
  return `| ${t.name} | ${r.latency.p50.toFixed(3)} | ${r.latency.p99.toFixed(3)} | ${Math.round(r.throughput.mean).toLocaleString('en-US')} |`;
});
const g = ctx.catalog.governments[gid]!;
const table = [
  `Finance engine jobs, ${path.relative(ROOT, data) || data} (${ctx.stats.rows.toLocaleString('en-US')} rows, ${ctx.catalog.years.length} years), government ${g.canonical_govid} ${g.gov_name}; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores`,
  '',
  '| job | p50 (ms) | p99 (ms) | ops/s |',
  '|---|---|---|---|',
  ...rows,
].join('\n');
console.log(table);
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/engine.md'), `${table}\n`);
await ctx.pool.close();
