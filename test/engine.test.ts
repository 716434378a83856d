// The money job in-process on the fixture: what a query costs in corpus rows
// read. A harmonized query for named categories reads only those categories'
// rows of each (government, year) run; the answers are compared with the
// unfiltered query in finance-money-numbers.test.ts.

import { describe, expect, it } from 'vitest';
import { planOf } from '../dist/src/finance/plan-of.js';
import type { MoneyRoute } from '../dist/src/finance/money-table.js';
import { share } from '../dist/src/corpus/shared.js';
import { governmentMajor, withGovMeta } from '../dist/src/finance/corpus-layout.js';
import { buildKeyStarts } from '../dist/src/finance/key-starts.js';
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
  }, 180_000);
});

describe('governmentMajor', () => {
  it('moves each (government, year) group whole, in government then year order, and leaves govGroups the identity', () => {
    // Year-major, as the loaders write: 2020's groups of govs 2, 0, then 2021's of govs 0, 1, 2.
    const groups = [
      { gov: 2, year: 2020, rows: [[5, 6, 100, 0], [7, 8, 200, 1]] },
      { gov: 0, year: 2020, rows: [[9, 9, 300, 0]] },
      { gov: 0, year: 2021, rows: [[1, 2, 400, 0], [3, 4, 500, 2], [5, 5, 600, 0]] },
      { gov: 1, year: 2021, rows: [] as number[][] },
      { gov: 2, year: 2021, rows: [[7, 7, 700, 1]] },
    ];
    const rows = groups.flatMap((g) => g.rows);
    const gStart = [0];
    for (const g of groups) gStart.push(gStart[gStart.length - 1]! + g.rows.length);
    const stored = {
      nRows: rows.length, nGroups: groups.length, nGov: 3,
      code: share('u16', rows.map((r) => r[0]!)), hcode: share('u16', rows.map((r) => r[1]!)),
      amt: share('i32', rows.map((r) => r[2]!)), flags: share('u8', rows.map((r) => r[3]!)),
      gGov: share('u32', groups.map((g) => g.gov)), gYear: share('u16', groups.map((g) => g.year)),
      gStart: share('u32', gStart), gPop: share('i32', groups.map((g) => g.gov * 10)), gPopYear: share('u16', groups.map((g) => g.year - 1)),
      govGroupStart: share('u32', [0, 2, 3, 5]), govGroups: share('u32', [1, 2, 3, 0, 4]), // gov 0: groups 1, 2; gov 1: 3; gov 2: 0, 4
    };
    const laidOut = withGovMeta(governmentMajor(stored));
    // The key starts are not this test's: one key (all zero) is enough for the view.
    const v = attachFinance({ ...laidOut, keyStart: buildKeyStarts(laidOut, new Uint16Array(0x10000), 1, new Uint8Array(0x10000)), keyStride: 3 });
    expect(Array.from(v.govGroups)).toEqual([0, 1, 2, 3, 4]);
    expect(Array.from(v.gGov)).toEqual([0, 0, 1, 2, 2]);
    expect(Array.from(v.gYear)).toEqual([2020, 2021, 2021, 2020, 2021]);
    expect(Array.from(v.gPop)).toEqual([0, 0, 10, 20, 20]);
    expect(Array.from(v.gPopYear)).toEqual([2019, 2020, 2020, 2019, 2020]);
    expect(Array.from(v.gStart)).toEqual([0, 1, 4, 4, 6, 7]);
    for (let k = 0; k < v.nGroups; k++) {
      const want = groups.find((g) => g.gov === v.gGov[k] && g.year === v.gYear[k])!.rows;
      const got = Array.from({ length: v.gStart[k + 1]! - v.gStart[k]! }, (_, j) => {
        const r = v.gStart[k]! + j;
        return [v.code[r], v.hcode[r], v.amt[r], v.flags[r]];
      });
      expect(got).toEqual(want);
      expect([v.govMeta[4 * k]! >>> 0, v.govMeta[4 * k + 1]! >>> 0]).toEqual([v.gStart[k], v.gStart[k + 1]]);
    }
  });

  it('is how the fixture is laid out, from parquet and from the load cache alike', async () => {
    for (const from of ['parquet', 'cache'] as const) {
      const loaded = await loadVia(from);
      await loaded.pool.close();
      const v = attachFinance(loaded.columns);
      for (let k = 0; k < v.nGroups; k++) expect(v.govGroups[k]).toBe(k);
      for (let k = 1; k < v.nGroups; k++) expect(v.gGov[k]! > v.gGov[k - 1]! || (v.gGov[k] === v.gGov[k - 1] && v.gYear[k]! > v.gYear[k - 1]!)).toBe(true);
      expect(v.gStart[v.nGroups]).toBe(v.nRows);
    }
  }, 180_000);
});

describe('the engine catalog, built once per catalog', () => {
  it('is the same build for the same catalog and a copy with equal years, and built again when the codes grow', async () => {
    const { buildEngineCatalog } = await import('../dist/src/finance/engine-catalog.js');
    const cat = structuredClone(fixture().catalog);
    const first = buildEngineCatalog(cat);
    expect(buildEngineCatalog(cat)).toBe(first);
    expect(buildEngineCatalog({ ...cat, years: [...cat.years] })).toBe(first);
    // A code found in the partitions grows the same array: the build after it has the code.
    cat.codes.push('ZZ9');
    cat.codeId.set('ZZ9', cat.codes.length - 1);
    const grown = buildEngineCatalog(cat);
    expect(grown).not.toBe(first);
    expect(grown.nCodes).toBe(first.nCodes + 1);
    // What a catalog never built before gives (a fresh clone): the same engine, field by field.
    expect(grown).toStrictEqual(buildEngineCatalog(structuredClone(cat)));
    // Other years: not the same catalog.
    expect(buildEngineCatalog({ ...cat, years: cat.years.slice(1) })).not.toBe(grown);
  });
});
