// The count index (src/finance/count-index.ts, issue 32): a flat bulk query's X-Total-Count and coverage
// (reporting and outside-lifespan units per year) from counts kept at load, no row read. Random flat
// queries over the fixture (cohorts by state and/or type, govid lists, years with and without data,
// no category, one, two or All Categories, both routes, both bases, every concept the routes take, a
// subtype filter now and then) must get from the index:
//   - the count DuckDB gives over the fixture parquet, by SQL written here from the spec's rules;
//   - the count job's MoneyCount (workers/finance/money-count.ts countRows), field for field;
//   - the same figures by each of its ways (a cohort's bucket sums, a cohort's groups bucket by bucket, and
//     any plan's groups government by government).
// And the shapes it cannot answer are undefined, so the caller counts with the count job.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { planOf } from '../dist/src/finance/plan-of.js';
import { cohortOf } from '../dist/src/finance/cohort.js';
import { indexedCount, indexedCountVia } from '../dist/src/finance/count-index.js';
import { countRows } from '../dist/workers/finance/money-count.js';
import { attachFinance } from '../dist/workers/finance/corpus.js';
import type { MoneyRoute } from '../dist/src/finance/money-table.js';
import type { MoneyPlan } from '../dist/src/finance/plan.js';
import { long, query, table } from './helpers/duckdb.js';
import { useFixtureCtx, type FixtureCtx } from './helpers/fixture-ctx.js';

const fixture = useFixtureCtx();

const SPENDING: MoneyRoute = { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false } as MoneyRoute;
const REVENUE: MoneyRoute = { verb: 'revenue', flows: ['revenue'], subtypeField: 'revenue_subtype', withFlow: false } as MoneyRoute;
const PROFILE: MoneyRoute = { verb: 'profile', flows: ['expenditure', 'revenue'], subtypeField: 'subtype', withFlow: true } as MoneyRoute;
const BALANCES: MoneyRoute = { verb: 'balances', flows: ['balance'], subtypeField: 'balance_subtype', withFlow: false } as MoneyRoute;

/** The concepts as the spec lists them (the flat /spending refuses total: the intergovernmental leg). */
const SCOPES: Record<string, string[]> = {
  primary: ['operations', 'capital', 'assistance'],
  direct: ['operations', 'capital', 'assistance', 'interest', 'insurance_benefits'],
  general: ['own_source', 'federal', 'state', 'local_aid'],
  total: ['own_source', 'federal', 'state', 'local_aid', 'utility', 'liquor_store', 'insurance_trust'],
};

interface Q {
  route: 'spending' | 'revenue';
  sel: { state?: string; type?: number } | { govids: number[] };
  years: number[];
  category: 'none' | 'all' | string[];
  basis: 'harmonized' | 'raw';
  concept: string;
  subtype: string | null;
  page: number;
  limit: number;
}

function queries(ctx: FixtureCtx): fc.Arbitrary<Q> {
  const { catalog, engine: e } = ctx;
  const states = [...new Set(catalog.governments.map((g) => g.fips_state))].sort();
  const withData = catalog.governments.map((_, i) => i).filter((i) => ctx.govYears[i]!.length > 0);
  const catsOf = (flow: number) => e.categories.filter((_, c) => e.categoryFlow[c] === flow);
  const gid = fc.oneof(fc.constantFrom(...withData), fc.integer({ min: 0, max: catalog.governments.length - 1 }));
  // 2015 has no partition: its counts are zero.
  const years = fc.subarray([2011, 2015, 2019, 2020], { minLength: 1 });
  return fc.constantFrom<'spending' | 'revenue'>('spending', 'revenue').chain((route) => {
    const cats = catsOf(route === 'spending' ? 1 : 2);
    const scopes = route === 'spending' ? ['primary', 'direct'] : ['general', 'total'];
    return fc.record({
      route: fc.constant(route),
      sel: fc.oneof(
        fc.record({ state: fc.constantFrom(...states), type: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }) }, { requiredKeys: ['state'] }),
        fc.record({ type: fc.integer({ min: 0, max: 3 }) }),
        fc.record({ govids: fc.oneof(fc.uniqueArray(gid, { minLength: 1, maxLength: 8 }), fc.uniqueArray(gid, { minLength: 1, maxLength: 400 })) }),
      ) as fc.Arbitrary<Q['sel']>,
      years,
      category: fc.oneof(
        fc.constant<'none'>('none'), fc.constant<'all'>('all'),
        fc.uniqueArray(fc.constantFrom(...cats), { minLength: 1, maxLength: 1 }),
        fc.uniqueArray(fc.constantFrom(...cats), { minLength: 2, maxLength: 3 }),
      ),
      basis: fc.constantFrom<'harmonized' | 'raw'>('harmonized', 'raw'),
      concept: fc.constantFrom(...scopes),
      subtype: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.constantFrom(...SCOPES[scopes[1]!]!), weight: 1 }),
      page: fc.integer({ min: 0, max: 3 }),
      limit: fc.constantFrom(1, 1000, 50_000),
    });
  });
}

/** The plan as the flat handler makes it (flat-routes.ts) from all its parameters: the cohort from cohortOf, or the list. */
function planFrom(ctx: FixtureCtx, q: Q, shaping: Record<string, unknown> = {}): MoneyPlan {
  const e = ctx.engine;
  const gids = 'govids' in q.sel ? q.sel.govids : cohortOf(ctx, q.sel.state, q.sel.type ?? -1);
  const category = q.category === 'none' ? undefined : q.category === 'all' ? { ids: null, all: true, names: ['All Categories'] }
    : { ids: q.category.map((n) => e.categories.indexOf(n)), all: false, names: q.category };
  const params = {
    ...shaping, basis: q.basis, page: q.page, limit: q.limit, category, subtype: q.subtype ?? undefined,
    ...(q.route === 'spending' ? { expenditure_concept: q.concept } : { revenue_concept: q.concept }),
  };
  return planOf(ctx, q.route === 'spending' ? SPENDING : REVENUE, { gids, years: q.years, params } as never);
}

const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * The count in DuckDB, from the spec's rules: the Direct and revenue legs read non-aggregate rows (whose
 * published code is neither intergovernmental nor a balance), classified by harmonized_code on the
 * harmonized basis (rows without one left out) and by item_code on the raw one; a row is one (year,
 * government, category, subtype) cell of the route's flow and concept (All Categories: one per subtype);
 * a government reports a year when it has a cell (before the subtype filter); outside its lifespan when
 * its registry first_year/last_year (null or 0: no bound) do not cover the year.
 */
async function duckCount(ctx: FixtureCtx, q: Q): Promise<{ total: number; reporting: number[]; outsideLifespan: number[] }> {
  const flow = q.route === 'spending' ? 'expenditure' : 'revenue';
  const cohort = 'govids' in q.sel
    ? `SELECT * FROM X WHERE g IN (${q.sel.govids.map((i) => lit(ctx.catalog.governments[i]!.canonical_govid)).join(', ') || "''"})`
    : `SELECT * FROM X WHERE ${q.sel.state !== undefined ? `fips = ${lit(q.sel.state)}` : 'TRUE'} AND ${q.sel.type !== undefined ? `govs_type = ${q.sel.type}` : 'TRUE'}`;
  const category = q.category === 'all' ? `'All Categories'` : 'sc.category';
  const catFilter = Array.isArray(q.category) ? `AND sc.category IN (${q.category.map(lit).join(', ')})` : '';
  const sql = `
    WITH cohort AS (${cohort}),
    cells AS (
      SELECT DISTINCT l.year, l.g, ${category} AS category, sc.subtype
      FROM L l JOIN cohort c ON c.g = l.g
      JOIN SC sc ON sc.item_code = l.${q.basis === 'harmonized' ? 'harmonized_code' : 'item_code'}
      LEFT JOIN SC pub ON pub.item_code = l.item_code
      WHERE NOT l.is_aggregate AND l.year IN (${q.years.join(', ')})
        AND NOT coalesce(pub.category_type = 'balance' OR (pub.category_type = 'expenditure' AND pub.subtype = 'intergovernmental'), FALSE)
        AND sc.category_type = ${lit(flow)} AND sc.subtype IN (${SCOPES[q.concept]!.map(lit).join(', ')}) ${catFilter}
    )
    SELECT cells.year,
      count(*) FILTER (WHERE ${q.subtype === null ? 'TRUE' : `cells.subtype = ${lit(q.subtype)}`}) AS n,
      count(DISTINCT cells.g) AS reporting,
      count(DISTINCT cells.g) FILTER (WHERE NOT ((coalesce(c.first_year, 0) = 0 OR c.first_year <= cells.year) AND (coalesce(c.last_year, 0) = 0 OR cells.year <= c.last_year))) AS outside
    FROM cells JOIN cohort c ON c.g = cells.g GROUP BY cells.year`;
  const rows = await query(sql);
  const by = new Map(rows.map((r) => [Number(r.year), r]));
  return {
    total: rows.reduce((n, r) => n + Number(r.n), 0),
    reporting: q.years.map((y) => Number(by.get(y)?.reporting ?? 0)),
    outsideLifespan: q.years.map((y) => Number(by.get(y)?.outside ?? 0)),
  };
}

describe('the count index', () => {
  beforeAll(async () => {
    await query(`CREATE OR REPLACE TABLE L AS SELECT canonical_govid AS g, year, item_code, harmonized_code, is_aggregate FROM ${long()}`);
    await query(`CREATE OR REPLACE TABLE SC AS SELECT item_code, category, category_type, COALESCE(spend_subtype, revenue_subtype, balance_subtype) AS subtype FROM ${table('summary_categories')}`);
    await query(`CREATE OR REPLACE TABLE X AS SELECT canonical_govid AS g, lpad(CAST(fips_state AS VARCHAR), 2, '0') AS fips, govs_type, first_year, last_year FROM ${table('canonical_fips_xwalk')}`);
  }, 180_000);

  it('gives the count DuckDB gives over the fixture parquet, for 300 random flat queries', async () => {
    const ctx = fixture();
    const { bytes, buildMs, buckets } = ctx.countIndex!.stats;
    console.log(`count index over the fixture (${ctx.stats.rows} rows, ${ctx.columns.nGroups} groups): ${(bytes / 1e6).toFixed(2)} MB shared, ${buckets} buckets, built in ${buildMs.toFixed(0)} ms`);
    const seed = Number(process.env.SEED ?? Date.now() % 1e9);
    const drawn = fc.sample(queries(ctx), { numRuns: 300, seed });
    const seen = { nonZero: 0, cohort: 0, list: 0, all: 0, one: 0, several: 0, none: 0, outside: 0, filtered: 0 };
    for (const q of drawn) {
      const got = indexedCount(ctx, planFrom(ctx, q));
      expect(got, `seed ${seed}: ${JSON.stringify(q)}`).toEqual(await duckCount(ctx, q));
      if (got!.total > 0) seen.nonZero++;
      if (got!.outsideLifespan.some((n) => n > 0)) seen.outside++;
      if (q.subtype !== null && got!.total > 0) seen.filtered++;
      seen['govids' in q.sel ? 'list' : 'cohort']++;
      seen[q.category === 'all' ? 'all' : q.category === 'none' ? 'none' : q.category.length === 1 ? 'one' : 'several']++;
    }
    // Every kind of query came up, most with rows.
    expect(seen.nonZero).toBeGreaterThan(150);
    for (const k of ['cohort', 'list', 'all', 'one', 'several', 'none', 'outside', 'filtered'] as const) expect(seen[k], k).toBeGreaterThan(3);
  }, 300_000);

  it("agrees with the count job's MoneyCount, and its ways with each other, for 2,000 random flat queries", () => {
    const ctx = fixture();
    const ix = ctx.countIndex!;
    const view = attachFinance(ctx.columns);
    let buckets = 0, bucketGroups = 0;
    fc.assert(fc.property(queries(ctx), (q) => {
      const plan = planFrom(ctx, q);
      const got = indexedCount(ctx, plan);
      expect(got, JSON.stringify(q)).toEqual(countRows(view, ctx.engine, plan));
      expect(indexedCountVia(ix, plan, 'groups')).toEqual(got);
      const viaBuckets = indexedCountVia(ix, plan, 'buckets');
      if (viaBuckets !== undefined) { expect(viaBuckets, JSON.stringify(q)).toEqual(got); buckets++; }
      const viaBucketGroups = indexedCountVia(ix, plan, 'bucket groups');
      if (viaBucketGroups !== undefined) { expect(viaBucketGroups, JSON.stringify(q)).toEqual(got); bucketGroups++; }
      // The page and its size are not in the count, nor what shapes the table: adjust, per_capita, identity, format.
      expect(indexedCount(ctx, { ...plan, offset: plan.offset + 7, limit: 3, stopAtPage: true })).toEqual(got);
      const shaped = planFrom(ctx, q, { adjust: 'real', base_year: 2011, per_capita: true, identity: true, format: 'parquet' });
      expect(shaped).toEqual(plan);
      expect(indexedCount(ctx, shaped)).toEqual(got);
    }), { numRuns: 2000 });
    // Cohorts of one category, none or All take the buckets' sums: about half the draws; every cohort, their groups.
    expect(buckets).toBeGreaterThan(500);
    expect(bucketGroups).toBeGreaterThan(buckets);
  }, 300_000);

  it('takes the buckets for the common bulk pulls, the same figures as the count job', () => {
    const ctx = fixture();
    const view = attachFinance(ctx.columns);
    const base = { basis: 'harmonized' as const, concept: 'primary', subtype: null, page: 0, limit: 50_000 };
    for (const q of [
      { ...base, route: 'spending', sel: { type: 2 }, years: [2020], category: 'none' },
      { ...base, route: 'spending', sel: { state: '06', type: 1 }, years: [2020], category: ['Police'] },
      { ...base, route: 'spending', sel: { type: 1 }, years: [2011, 2019, 2020], category: 'none' },
      { ...base, route: 'spending', sel: { type: 1 }, years: [2011, 2019, 2020], category: 'all' },
      { ...base, route: 'revenue', concept: 'general', sel: { state: '48' }, years: [2019, 2020], category: ['Property Tax'] },
    ] as Q[]) {
      const plan = planFrom(ctx, q);
      const viaBuckets = indexedCountVia(ctx.countIndex!, plan, 'buckets');
      expect(viaBuckets, JSON.stringify(q)).toBeDefined();
      expect(viaBuckets!.total, JSON.stringify(q)).toBeGreaterThan(0);
      expect(viaBuckets).toEqual(countRows(view, ctx.engine, plan));
    }
  });

  it('is undefined for the shapes it does not keep: recipe, complete, consistent, peers, dropped populations, the IG leg, two flows, balances', () => {
    const ctx = fixture();
    const gids = cohortOf(ctx, '10', -1);
    const years = [2019, 2020];
    const plan = (route: MoneyRoute, params: Record<string, unknown>): MoneyPlan =>
      planOf(ctx, route, { gids, years, params: { basis: 'harmonized', page: 0, limit: 1000, ...params } } as never);
    expect(indexedCount(ctx, plan(SPENDING, {}))).toBeDefined();
    const recipe = Math.max(0, ctx.recipeFlow.indexOf('expenditure'));
    for (const [why, p] of [
      ['recipe', plan(SPENDING, { recipe: { index: recipe, id: ctx.catalog.recipes[recipe]!.recipe_id } })],
      ['complete', plan(SPENDING, { complete: true, category: { ids: [ctx.engine.categories.indexOf('Police')], all: false, names: ['Police'] } })],
      ['consistent', { ...plan(SPENDING, {}), consistent: true }],
      ['peers', { ...plan(SPENDING, {}), peerTarget: gids[0]!, keepGovs: [gids[0]!] }],
      ['dropped populations', { ...plan(SPENDING, {}), dropNoPopulation: true }],
      ['IG leg', plan(SPENDING, { expenditure_concept: 'total', category: { ids: null, all: true, names: ['All Categories'] } })],
      ['two flows', plan(PROFILE, {})],
      ['balances', plan(BALANCES, {})],
    ] as const) expect(indexedCount(ctx, p as MoneyPlan), why).toBeUndefined();
  });
});
