// Completion counts only what the answer keeps. A plan that both completes
// cells and drops governments without a population (no route asks for both
// today; the job allows it) must not count the filled cells of a dropped
// government in summary.rowsFilled or unsummedCells: the expected counts
// are read off the rows the job returns, not from the summary code.

import { describe, expect, it } from 'vitest';
import { planOf } from '../dist/src/finance/plan-of.js';
import type { MoneyRoute } from '../dist/src/finance/money-table.js';
import { VS_CENSUS_ZERO, VS_NOT_REPORTED, type MoneyPlan } from '../dist/src/finance/plan.js';
import { runMoney } from '../dist/src/finance/run-money.js';
import { useFixtureCtx } from './helpers/fixture-ctx.js';

const fixture = useFixtureCtx(1);

describe('completion with governments dropped for want of a population', () => {
  it('counts rows_filled and published_not_summed over the kept governments only', async () => {
    const ctx = fixture();
    const e = ctx.engine;
    const cities = ctx.catalog.governments.map((_, i) => i).filter((i) => e.govType[i] === 2);
    const spending = { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false } as unknown as MoneyRoute;
    const base = planOf(ctx, spending, { gids: cities, years: ctx.catalog.years, params: { basis: 'harmonized', limit: 1000, page: 0, complete: true } as never });
    const plan: MoneyPlan = { ...base, dropNoPopulation: true, offset: 0, limit: 10_000_000, suggest: false };
    const res = await runMoney(ctx, plan);
    const s = res.summary;
    // The case is there: some cities are dropped, and rows are filled for the kept ones.
    expect(s.noPopulationGovs.length).toBeGreaterThan(0);
    const vs = res.rows.valueSource, year = res.rows.year, n = res.total;
    expect(vs.length).toBe(n);
    let filled = 0;
    const notReported = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      if (vs[i] === VS_CENSUS_ZERO || vs[i] === VS_NOT_REPORTED) filled++;
      if (vs[i] === VS_NOT_REPORTED) notReported.set(year[i]!, (notReported.get(year[i]!) ?? 0) + 1);
    }
    expect(filled).toBeGreaterThan(0);
    expect(s.rowsFilled).toBe(filled);
    // Each published-not-summed cell is a not_reported row of the answer in that year.
    for (const [y, cells] of s.unsummedCells) expect(cells, `year ${y}`).toBeLessThanOrEqual(notReported.get(y) ?? 0);
  }, 120_000);
});
