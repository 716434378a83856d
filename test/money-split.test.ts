// A fleet query split by year across the workers (src/finance/run-money.ts)
// answers exactly what the same query as one job answers: every summary
// field (workers/finance/money-summary.ts mergeSummaries, against the one
// job's SummaryAcc.finish), and over the pipeline the whole envelope, byte
// for byte: meta, data rows, provenance. The split answer comes from the
// fixture context with two workers; the whole one from the same context
// told it has one worker, so runMoney runs the plan as a single job.

import { describe, expect, it } from 'vitest';
import { readConfig } from '../dist/src/config.js';
import { planOf } from '../dist/src/finance/plan-of.js';
import type { MoneyRoute } from '../dist/src/finance/money-table.js';
import type { MoneyPlan, MoneyResult } from '../dist/src/finance/plan.js';
import { runMoney } from '../dist/src/finance/run-money.js';
import { financeService } from '../dist/src/finance/http/service.js';
import { inject } from '../dist/src/server/inject.js';
import { useFixtureCtx, type FixtureCtx } from './helpers/fixture-ctx.js';

const fixture = useFixtureCtx(2);
const config = readConfig({ ...process.env, FINANCE_DATA: 'fixtures/finance/v6', RESPONSE_CACHE_MB: '0', RATE_LIMIT: '0' });
const whole = (ctx: FixtureCtx): FixtureCtx => ({ ...ctx, workers: 1 });

const ROW_COLUMNS = ['year', 'gov', 'flow', 'cat', 'sub', 'amt', 'flags', 'valueSource', 'pop', 'codesStart', 'codes'] as const;
const route = (verb: string, flows: string[], subtypeField: string, withFlow = false): MoneyRoute => ({ verb, flows, subtypeField, withFlow }) as MoneyRoute;

/** Runs the plan through runMoney, counting the pool jobs it took. */
async function run(ctx: FixtureCtx, plan: MoneyPlan): Promise<{ res: MoneyResult; jobs: number }> {
  const before = ctx.pool.poolJobs;
  const res = await runMoney(ctx, plan);
  return { res, jobs: ctx.pool.poolJobs - before };
}

function expectSame(split: MoneyResult, one: MoneyResult): void {
  expect(split.total, 'total').toBe(one.total);
  for (const k of ROW_COLUMNS) expect(Array.from(split.rows[k]), `rows.${k}`).toEqual(Array.from(one.rows[k]));
  expect(Object.keys(split.summary), 'summary fields').toEqual(Object.keys(one.summary));
  for (const k of Object.keys(one.summary) as (keyof MoneyResult['summary'])[]) expect(split.summary[k], `summary.${k}`).toEqual(one.summary[k]);
}

describe('a fleet plan split across workers', () => {
  it('gives the one job\'s rows and every summary field (categories_missing included), on plans that split', async () => {
    const ctx = fixture();
    const e = ctx.engine, cat = (n: string): number => e.categories.indexOf(n);
    const counties = ctx.catalog.governments.map((_, i) => i).filter((i) => e.govType[i] === 1);
    const cities = ctx.catalog.governments.map((_, i) => i).filter((i) => e.govType[i] === 2);
    const years = ctx.catalog.years;
    const base = (r: MoneyRoute, gids: number[], params: Record<string, unknown>): MoneyPlan =>
      planOf(ctx, r, { gids, years, params: { basis: 'harmonized', limit: 1000, page: 0, ...params } as never });
    const spending = route('spending', ['expenditure'], 'spend_subtype');
    const plans: [string, MoneyPlan][] = [
      // Named categories split on basis=raw only: on harmonized the plan suggests recipes, and is run whole.
      ['counties, two categories, raw', base(spending, counties, { basis: 'raw', category: { ids: [cat('Police'), cat('Highways')], names: ['Police', 'Highways'], all: false } })],
      ['counties, every category', base(spending, counties, {})],
      ['cities, every category, a later page', { ...base(spending, cities, {}), offset: 2000 }],
      ['counties, complete', base(spending, counties, { basis: 'raw', category: { ids: [cat('Police')], names: ['Police'], all: false }, complete: true })],
      ['cities revenue, raw', base(route('revenue', ['revenue'], 'revenue_subtype'), cities, { basis: 'raw' })],
      ['counties balances', base(route('balances', ['balance'], 'balance_subtype'), counties, {})],
      ['cities, populations dropped', { ...base(spending, cities, {}), dropNoPopulation: true }],
    ];
    let missing = 0;
    for (const [name, plan] of plans) {
      const split = await run(ctx, plan);
      const one = await run(whole(ctx), plan);
      expect(split.jobs, `${name}: split`).toBeGreaterThan(1);
      expect(one.jobs, `${name}: one job`).toBe(1);
      expectSame(split.res, one.res);
      missing += one.res.summary.categoriesMissing.length;
    }
    // The field the old merge lost is there to lose.
    expect(missing).toBeGreaterThan(0);
  });
});

describe('the whole envelope', () => {
  it('is byte-identical split or not: flat spending and revenue, a complete slice, rollups with per-capita', async () => {
    const ctx = fixture();
    const split = financeService(ctx, config), one = financeService(whole(ctx), config);
    for (const url of [
      '/api/v1/spending?type=county&years=2011-2020&category=Police,Highways&basis=raw&limit=1000&page=1',
      '/api/v1/spending?type=county&years=2011-2020',
      '/api/v1/spending?type=city&years=2011-2020&complete=true&category=Police&basis=raw&per_capita=true&adjust=real',
      '/api/v1/revenue?type=city&years=2011-2020&basis=raw&identity=true',
      '/api/v1/rollups?layer=city&years=2011-2020&per_capita=true',
      '/api/v1/rollups?layer=county&years=2011-2020',
    ]) {
      const before = ctx.pool.poolJobs;
      const a = await inject(split, url);
      const jobs = ctx.pool.poolJobs - before;
      const b = await inject(one, url);
      expect(a.status, url).toBe(200);
      expect(jobs, `${url}: split`).toBeGreaterThan(1);
      expect(a.json(), url).toEqual(b.json());
      expect(a.text(), url).toBe(b.text());
    }
  });
});
