// The money job in-process on the fixture: what a query costs in corpus rows
// read. A harmonized query for named categories reads only those categories'
// rows of each (government, year) run; the answers are compared with the
// unfiltered query in finance-money-numbers.test.ts.

import { describe, expect, it } from 'vitest';
import { planOf } from '../dist/src/finance/money.js';
import type { MoneyRoute } from '../dist/src/finance/money-table.js';
import { attachFinance } from '../dist/workers/finance/corpus.js';
import { money } from '../dist/workers/finance/money.js';
import { loadFixtureCtx, useFixtureCtx, type FixtureCtx } from './helpers/fixture-ctx.js';

const fixture = useFixtureCtx();

const spending: MoneyRoute = { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false };

describe('money job cost', () => {
  it('a harmonized one-category query reads a small part of each run; raw basis and the IG leg read whole runs', () => {
    const ctx = fixture();
    const view = attachFinance(ctx.columns);
    const police = ctx.engine.categories.indexOf('Police');
    const gid = ctx.catalog.governments.findIndex((g) => g.canonical_govid === '062037161174');
    const base = { basis: 'harmonized', page: 0, limit: 1000, adjust: 'nominal', per_capita: false, base_year: ctx.catalog.maxYear };
    const run = (params: Record<string, unknown>) => money(view, ctx.engine, planOf(ctx, spending, { gids: [gid], years: ctx.catalog.years, params: { ...base, ...params } })).summary.rowsRead;
    const category = { category: { ids: [police], all: false, names: ['Police'] } };
    const whole = run({});
    const one = run(category);
    expect(whole).toBeGreaterThan(300);
    expect(one).toBeGreaterThan(0);
    expect(one).toBeLessThan(whole / 5);
    expect(run({ ...category, basis: 'raw' })).toBe(whole);
    expect(run({ ...category, expenditure_concept: 'total' })).toBe(whole);
  });
});

/** The fixture loaded with the load cache off (from parquet) or, after a first load that writes it, from the cache. */
async function loadVia(from: 'parquet' | 'cache'): Promise<FixtureCtx> {
  const before = process.env.CIVICSTREAM_LOAD_CACHE;
  process.env.CIVICSTREAM_LOAD_CACHE = from === 'parquet' ? 'off' : 'on';
  try {
    if (from === 'cache') await (await loadFixtureCtx()).pool.close();
    return await loadFixtureCtx();
  } finally {
    if (before === undefined) delete process.env.CIVICSTREAM_LOAD_CACHE; else process.env.CIVICSTREAM_LOAD_CACHE = before;
  }
}

describe('government-major group columns (govMeta)', () => {
  it.each(['parquet', 'cache'] as const)('hold, for every government and in its year order, the row range, population and years of the year-major group columns (loaded from %s)', async (from) => {
    const loaded = await loadVia(from);
    await loaded.pool.close();
    expect(loaded.stats.loaders === 0).toBe(from === 'cache');
    const v = attachFinance(loaded.columns);
    expect(v.govMeta.length).toBe(4 * v.nGroups);
    let checked = 0;
    for (let gov = 0; gov < v.nGov; gov++) {
      let lastYear = -1;
      for (let k = v.govGroupStart[gov]!; k < v.govGroupStart[gov + 1]!; k++) {
        const g = v.govGroups[k]!, m = v.govMeta.subarray(4 * k, 4 * k + 4);
        expect(v.gGov[g]).toBe(gov);
        expect([m[0]! >>> 0, m[1]! >>> 0, m[2], m[3]! >>> 16, m[3]! & 0xffff]).toEqual([v.gStart[g], v.gStart[g + 1], v.gPop[g], v.gYear[g], v.gPopYear[g]]);
        expect(v.gYear[g]!).toBeGreaterThan(lastYear);
        lastYear = v.gYear[g]!;
        checked++;
      }
    }
    expect(checked).toBe(v.nGroups);
  }, 60_000);
});
