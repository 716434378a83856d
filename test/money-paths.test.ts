// The money job's two paths (workers/finance/money.ts) on the same plans: the
// fast path, which counts scratch cells where they lie, and the materialized
// path, which makes row objects, must give the same rows and the same summary,
// field by field, for every plan both can run. Random plans over the bundled
// fixture: governments, years (loaded or not), routes, categories (named, or
// All Categories), subtypes, recipes, bases, concepts, pages, peers, dropped
// populations and coverage=consistent.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planOf } from '../dist/src/finance/plan-of.js';
import type { MoneyRoute } from '../dist/src/finance/money-table.js';
import type { MoneyPlan, MoneyResult } from '../dist/src/finance/plan.js';
import { attachFinance } from '../dist/workers/finance/corpus.js';
import { LONG_GROUP, unmappedCandidates } from '../dist/src/finance/key-starts.js';
import { shapeOf } from '../dist/workers/finance/money-shape.js';
import { countable, countOfSummary, ROW_AGGREGATE } from '../dist/src/finance/plan.js';
import { fastCapable, money, moneyVia } from '../dist/workers/finance/money.js';
import { countRows } from '../dist/workers/finance/money-count.js';
import { useFixtureCtx, type FixtureCtx } from './helpers/fixture-ctx.js';

const fixture = useFixtureCtx();

const route = (verb: string, flows: string[], subtypeField: string, withFlow = false): MoneyRoute => ({ verb, flows, subtypeField, withFlow }) as MoneyRoute;
const ROUTES = [
  route('spending', ['expenditure'], 'spend_subtype'),
  route('revenue', ['revenue'], 'revenue_subtype'),
  route('balances', ['balance'], 'balance_subtype'),
  route('profile', ['expenditure', 'revenue'], 'subtype', true),
];
const FLOW_ID: Record<string, number> = { expenditure: 1, revenue: 2, balance: 3 };
const ROW_COLUMNS = ['year', 'gov', 'flow', 'cat', 'sub', 'amt', 'flags', 'valueSource', 'pop', 'codesStart', 'codes'] as const;

/** The two results, column by column and summary field by summary field. */
function expectSame(fast: MoneyResult, rows: MoneyResult): void {
  expect(fast.total, 'total').toBe(rows.total);
  expect(fast.rows.n, 'rows.n').toBe(rows.rows.n);
  for (const k of ROW_COLUMNS) expect(Array.from(fast.rows[k]), `rows.${k}`).toEqual(Array.from(rows.rows[k]));
  expect(Object.keys(fast.summary), 'summary fields').toEqual(Object.keys(rows.summary));
  for (const k of Object.keys(rows.summary) as (keyof MoneyResult['summary'])[]) expect(fast.summary[k], `summary.${k}`).toEqual(rows.summary[k]);
}

/** Random money queries over the fixture's catalog: the parameters of a route, and what peers, rollups and coverage add. */
function queries(ctx: FixtureCtx) {
  const { catalog, engine: e } = ctx;
  // States (the most codes, intergovernmental aggregates, and the fixture's only unmapped harmonized rows), governments
  // with rows in every year (long histories), in some, and any at all (most of the fixture's have none).
  const ids = catalog.governments.map((_, i) => i);
  const states = ids.filter((i) => e.govType[i] === 0 && ctx.govYears[i]!.length > 0);
  const full = ids.filter((i) => ctx.govYears[i]!.length === catalog.years.length), some = ids.filter((i) => ctx.govYears[i]!.length > 0);
  const gov = fc.oneof(fc.constantFrom(...states), fc.constantFrom(...full), fc.constantFrom(...some), fc.integer({ min: 0, max: ids.length - 1 }));
  // Loaded years and, in between, years with no partition (no groups: filled in as not reported).
  const years = fc.subarray([...new Set([...catalog.years, catalog.minYear + 1, catalog.maxYear - 2])].sort((a, b) => a - b), { minLength: 1 });
  const ofFlows = (flows: number[], cats: number[]): number[] => cats.filter((c) => flows.includes(e.categoryFlow[c]!));
  const allCats = e.categories.map((_, i) => i);
  const withRecipes = allCats.filter((i) => e.categoryRecipes[i]!.length > 0);
  // Categories of the codes the harmonization map discontinues (no harmonized code): a plan counts those rows only when it names them.
  const discontinued = (catalog.tables.harmonization_map ?? []).filter((r) => r.harmonized_code === null).map((r) => catalog.codeId.get(String(r.item_code))!);
  const withUnmapped = [...new Set(discontinued.map((code) => e.codeCat[code]!).filter((c) => c >= 0))];
  const sometimes = <T>(arb: fc.Arbitrary<T>, otherwise: T): fc.Arbitrary<T> => fc.oneof({ arbitrary: fc.constant(otherwise), weight: 3 }, { arbitrary: arb, weight: 1 });
  return fc.constantFrom(...ROUTES).chain((route) => {
    const flows = route.flows.map((f) => FLOW_ID[f]!);
    const named = ofFlows(flows, allCats), recovered = ofFlows(flows, withRecipes), unmapped = ofFlows(flows, withUnmapped);
    return fc.record({
      route: fc.constant(route),
      govs: fc.oneof(fc.array(gov, { minLength: 1, maxLength: 3 }), fc.array(gov, { minLength: 1, maxLength: 40 })),
      years,
      // none, All Categories, or named ones (often one a recipe would stand in for: suggestions, suppressed Direct legs)
      category: fc.oneof(
        fc.constant<'none' | 'all'>('none'), fc.constant<'none' | 'all'>('all'),
        fc.uniqueArray(fc.oneof(...[recovered, named, unmapped].filter((c) => c.length > 0).map((c) => fc.constantFrom(...c))), { minLength: 1, maxLength: 3 }),
      ),
      recipe: sometimes(fc.integer({ min: 0, max: catalog.recipes.length - 1 }), null as number | null),
      subtype: sometimes(fc.integer({ min: 0, max: e.subtypes.length - 1 }), null as number | null),
      basis: fc.constantFrom('harmonized', 'harmonized', 'raw'),
      expenditure_concept: fc.constantFrom('primary', 'direct', 'total'),
      revenue_concept: fc.constantFrom('general', 'total'),
      complete: sometimes(fc.constant(true), false),
      // adjust and per_capita shape the table, not the plan: drawn so that a plan that ever read them is covered.
      adjust: fc.constantFrom('nominal', 'real'),
      per_capita: fc.boolean(),
      page: sometimes(fc.integer({ min: 1, max: 3 }), 0),
      limit: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.constant(1000)),
      peer: sometimes(fc.constant(true), false),
      dropNoPopulation: sometimes(fc.constant(true), false),
      consistent: sometimes(fc.constant(true), false),
    });
  });
}

type Query = ReturnType<typeof queries> extends fc.Arbitrary<infer Q> ? Q : never;

/** A query's plan, as the routes make it (planOf), with the fields peers, rollups and coverage set. */
function planFrom(ctx: FixtureCtx, q: Query): MoneyPlan {
  const { catalog, engine: e } = ctx;
  const category = q.category === 'all' ? { ids: null, all: true, names: ['All Categories'] }
    : Array.isArray(q.category) ? { ids: q.category, all: false, names: q.category.map((c) => e.categories[c]!) } : undefined;
  const recipe = q.recipe !== null && category === undefined ? { index: q.recipe, id: catalog.recipes[q.recipe]!.recipe_id } : undefined;
  const params = {
    basis: q.basis, page: q.page, limit: q.limit, adjust: q.adjust, per_capita: q.per_capita, base_year: catalog.maxYear, complete: q.complete,
    expenditure_concept: q.route.flows.includes('expenditure') ? q.expenditure_concept : undefined,
    revenue_concept: q.route.flows.includes('revenue') ? q.revenue_concept : undefined,
    category, recipe, subtype: q.subtype === null ? undefined : e.subtypes[q.subtype],
  };
  return {
    ...planOf(ctx, q.route, { gids: q.govs, years: q.years, params } as never),
    peerTarget: q.peer ? q.govs[0]! : null,
    dropNoPopulation: q.dropNoPopulation,
    consistent: q.consistent,
    keepGovs: q.peer ? [q.govs[0]!] : [],
  };
}

/** Whether a summary field (or the rows, or the total) has anything in it. */
function nonEmpty(k: string, v: unknown): boolean {
  if (k === 'reporting') return (v as number[]).some((n) => n > 0);
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'number') return v > 0;
  if (v !== null && typeof v === 'object') return Object.values(v).some((x) => x !== 0);
  return v === true;
}

describe('the money job down its fast and materialized paths', () => {
  it('gives the same rows and summary for random plans over the fixture', () => {
    const ctx = fixture();
    const view = attachFinance(ctx.columns);
    let compared = 0;
    // Per summary field: how many compared plans had it non-empty (a property that only ever compared empty fields would prove little).
    const seen: Record<string, number> = {};
    fc.assert(fc.property(queries(ctx), (q) => {
      const plan = planFrom(ctx, q);
      const rows = moneyVia(view, ctx.engine, plan, 'materialized');
      // The job's own choice of path answers the same.
      expectSame(money(view, ctx.engine, plan), rows);
      if (!fastCapable(plan)) return;
      expectSame(moneyVia(view, ctx.engine, plan, 'fast'), rows);
      compared++;
      for (const [k, v] of Object.entries({ ...rows.summary, rows: rows.rows.n, total: rows.total })) if (nonEmpty(k, v)) seen[k] = (seen[k] ?? 0) + 1;
    }), { numRuns: 2000 });
    expect(compared).toBeGreaterThan(800);
    // Every field the fast path can produce was produced, and compared (the rarest, suggestions and naRows, come
    // about 10 times in 2000 runs). noPopulationGovs needs a group without population: the fixture has none, only
    // the filled-in years of complete=true, which the fast path cannot run.
    for (const k of ['rows', 'total', 'yearsPresent', 'categoriesFound', 'categoriesMissing', 'codesObserved', 'aggregateYears', 'naRows', 'rowsRead', 'suggestions',
      'popYears', 'popCounts', 'balanceSubtypes', 'govsWithoutRows', 'inconsistentGovs', 'reporting', 'peerCells']) {
      expect(seen[k] ?? 0, k).toBeGreaterThan(0);
    }
  }, 120_000);

  it('reads a category query\'s runs where the key starts put them, as a search of each group finds them', () => {
    // The key starts (key-starts.ts) against the search they replaced, which the job still runs for a group too
    // long for their bytes: the same view with every group so marked must give the same rows and summary.
    const ctx = fixture();
    const view = attachFinance(ctx.columns);
    const marked = new Uint8Array(view.keyStart);
    for (let g = 0; g < view.nGroups; g++) marked[g * view.keyStride] = LONG_GROUP;
    const searched = { ...view, keyStart: marked };
    const candidates = unmappedCandidates(ctx.engine);
    let keyed = 0, na = 0;
    fc.assert(fc.property(queries(ctx), (q) => {
      const plan = planFrom(ctx, q);
      const got = money(view, ctx.engine, plan);
      expectSame(got, money(searched, ctx.engine, plan));
      // The groups' flag says no row could count when no code of its unmapped rows is a candidate: so no plan may count a non-candidate.
      const shape = shapeOf(ctx.engine, plan);
      for (let code = 0; code < ctx.engine.nCodes; code++) if (shape.cells.naUnmapped[code]! > candidates[code]!) expect(code, 'a code this plan counts, not a candidate').toBe(-1);
      // The plans that read runs from the key starts (Shape.keys), and of them those that counted not-applicable rows.
      if (shape.keys === null) return;
      keyed++;
      if (got.summary.naRows > 0) na++;
    }), { numRuns: 1500 });
    expect(keyed).toBeGreaterThan(150);
    expect(na).toBeGreaterThan(0);
  }, 120_000);

  it('gives, down either path, the summary a naive oracle computes from the whole query\'s rows', () => {
    // The two paths share one accumulator (SummaryAcc), so comparing them cannot catch its faults: here each
    // field is recomputed as plain sets over the rows of plans whose one page holds every row (no subtype
    // filter, completion, peers or dropped populations: then the rows are exactly what the summary saw).
    const ctx = fixture();
    const view = attachFinance(ctx.columns);
    let checked = 0;
    const seen: Record<string, number> = {};
    fc.assert(fc.property(queries(ctx), (q) => {
      const plan = { ...planFrom(ctx, { ...q, subtype: null, complete: false, peer: false, dropNoPopulation: false }), offset: 0, limit: 100_000 };
      for (const path of ['materialized', 'fast'] as const) {
        if (path === 'fast' && !fastCapable(plan)) continue;
        const { rows: r, summary: s, total } = moneyVia(view, ctx.engine, plan, path);
        expect(r.n, 'one page holds every row').toBe(total);
        const idx = Array.from({ length: r.n }, (_, i) => i);
        const yearsOf = (keep: (i: number) => boolean): number[] => [...new Set(idx.filter(keep).map((i) => r.year[i]!))].sort((a, b) => a - b);
        const present = yearsOf(() => true);
        const cats = [...new Set(idx.map((i) => r.cat[i]!).filter((c) => c >= 0))];
        const govs = [...new Set(idx.map((i) => r.gov[i]!))];
        const want = {
          yearsPresent: govs.map((g) => [g, yearsOf((i) => r.gov[i] === g)]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
          categoriesFound: [...cats].sort((a, b) => a - b),
          categoriesMissing: cats.map((c) => [c, present.filter((y) => !yearsOf((i) => r.cat[i] === c).includes(y))]).filter(([, ys]) => (ys as number[]).length > 0)
            .sort((a, b) => (a[0] as number) - (b[0] as number)),
          codesObserved: [...new Set(Array.from(r.codes))].sort((a, b) => a - b),
          aggregateYears: yearsOf((i) => (r.flags[i]! & ROW_AGGREGATE) !== 0),
          reporting: plan.years.map((y) => new Set(idx.filter((i) => r.year[i] === y).map((i) => r.gov[i])).size),
          popCounts: { census_f33: idx.filter((i) => r.pop[i]! > 0).length, unavailable: idx.filter((i) => !(r.pop[i]! > 0)).length },
          govsWithoutRows: [...new Set(plan.govs)].filter((g) => !govs.includes(g) && !s.inconsistentGovs.includes(g)).sort((a, b) => a - b),
        };
        const got = {
          yearsPresent: [...s.yearsPresent].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
          categoriesFound: [...s.categoriesFound].sort((a, b) => a - b),
          categoriesMissing: [...s.categoriesMissing].sort((a, b) => a[0] - b[0]),
          codesObserved: s.codesObserved,
          aggregateYears: s.aggregateYears,
          reporting: s.reporting,
          popCounts: s.popCounts,
          govsWithoutRows: [...s.govsWithoutRows].sort((a, b) => a - b),
        };
        expect(got, `${path} ${JSON.stringify(q)}`).toEqual(want);
        for (const [k, v] of Object.entries(want)) if (nonEmpty(k, v)) seen[k] = (seen[k] ?? 0) + 1;
        checked++;
      }
    }), { numRuns: 600 });
    expect(checked).toBeGreaterThan(600);
    for (const k of ['yearsPresent', 'categoriesFound', 'categoriesMissing', 'codesObserved', 'aggregateYears', 'reporting', 'popCounts', 'govsWithoutRows']) {
      expect(seen[k] ?? 0, k).toBeGreaterThan(0);
    }
  }, 120_000);

  it('counts, without the walk, the total and coverage the money job gives for every plan the count job takes', () => {
    const ctx = fixture();
    const view = attachFinance(ctx.columns);
    let counted = 0, nonZero = 0, filtered = 0;
    fc.assert(fc.property(queries(ctx), (drawn) => {
      // Mostly the flat routes' plans (no peers, rollups or coverage); the others only to see them refused.
      const q = drawn.page === 2 ? drawn : { ...drawn, peer: false, dropNoPopulation: false, consistent: false };
      const plan = planFrom(ctx, q);
      if (!countable(plan)) {
        expect(() => countRows(view, ctx.engine, plan)).toThrow(/needs the money job/);
        return;
      }
      const whole = money(view, ctx.engine, { ...plan, offset: 0, limit: 0, stopAtPage: false });
      const total = whole.total;
      // The page fields are ignored: a page plan that stops early counts the whole query all the same. The
      // coverage (reporting, and reporters outside their lifespan) is the money job's summary's (issue 22, item 7).
      expect(countRows(view, ctx.engine, { ...plan, stopAtPage: true }), JSON.stringify(q)).toEqual(countOfSummary(ctx.engine, plan.years, total, whole.summary));
      counted++;
      if (total > 0) nonZero++;
      if (total > 0 && plan.subtype !== null) filtered++;
    }), { numRuns: 1500 });
    expect(counted).toBeGreaterThan(500);
    expect(nonZero).toBeGreaterThan(200);
    expect(filtered).toBeGreaterThan(10);
  }, 120_000);

  it('refuses to send down the fast path a plan only the materialized path can answer', () => {
    const ctx = fixture();
    const plan = planOf(ctx, ROUTES[0]!, { gids: [0], years: ctx.catalog.years, params: { basis: 'harmonized', page: 0, limit: 10, complete: true } } as never);
    expect(() => moneyVia(attachFinance(ctx.columns), ctx.engine, plan, 'fast')).toThrow(/materialized path/);
  });
});
