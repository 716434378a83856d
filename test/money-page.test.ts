// A flat query's page (CSV, Arrow or Parquet) as a worker writes it
// (workers/finance/money-page.ts, from the names that cross in workerData)
// against the same page written on the main thread from its own catalog: the
// same bytes, whether the page goes into its page slot or outgrows it; a page
// whose lease was given up first is not written (issue 32: nobody is left to read it).
// A CSV page that stops at its end is summed in steps, each step's rows
// written before the next groups are summed: the steps' rows are the page's,
// and such a page's bytes are those of the page written whole.

import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planOf } from '../dist/src/finance/plan-of.js';
import { moneyTable, tableOptions, type MoneyRoute } from '../dist/src/finance/money-table.js';
import { tableCtxOf, tableNames } from '../dist/src/finance/table-ctx.js';
import { csvBytes } from '../dist/src/bytes/csv-writer.js';
import { arrowBytes } from '../dist/src/bytes/arrow-writer.js';
import { parquetBytes } from '../dist/src/bytes/parquet-writer.js';
import { PageArena } from '../dist/src/bytes/page-arena.js';
import { attachFinance } from '../dist/workers/finance/corpus.js';
import { money, moneySteps } from '../dist/workers/finance/money.js';
import { moneyPage } from '../dist/workers/finance/money-page.js';
import { useFixtureCtx } from './helpers/fixture-ctx.js';

const fixture = useFixtureCtx();

const routes: MoneyRoute[] = [
  { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false },
  { verb: 'revenue', flows: ['revenue'], subtypeField: 'revenue_subtype', withFlow: false },
];

describe('pages written in a worker', () => {
  it('are the bytes the main thread writes of the same page, in a slot or out of one; with the lease given up, not written', () => {
    const ctx = fixture();
    const { catalog, engine } = ctx;
    const view = attachFinance(ctx.columns);
    const table = tableCtxOf(engine, structuredClone(tableNames(catalog)));
    const never = (): Promise<void> => new Promise(() => {});
    const big = new PageArena(1, 8 * 1024 * 1024, never);
    const tiny = new PageArena(1, 2048, never);
    const states = [...new Set(catalog.governments.map((g) => g.fips_state))];
    const query = fc.record({
      route: fc.constantFrom(...routes),
      state: fc.constantFrom(...states),
      type: fc.integer({ min: 0, max: 4 }),
      years: fc.subarray(catalog.years, { minLength: 1 }),
      adjust: fc.constantFrom('nominal', 'real'),
      per_capita: fc.boolean(),
      complete: fc.boolean(),
      basis: fc.constantFrom('harmonized', 'raw'),
      recipe: fc.option(fc.integer({ min: 0, max: catalog.recipes.length - 1 }), { nil: undefined }),
      category: fc.option(fc.integer({ min: 0, max: engine.categories.length - 1 }), { nil: undefined }),
      page: fc.integer({ min: 0, max: 2 }),
      limit: fc.constantFrom(1, 50, 1000, 50_000),
      where: fc.constantFrom('slot', 'tiny', 'given up'),
      identity: fc.boolean(),
      format: fc.constantFrom('csv', 'arrow', 'parquet'),
      // Coded by the worker as it writes the page (issue 32): one gzip or br stream, in the slot or out of it.
      coding: fc.constantFrom(undefined, 'gzip', 'br'),
    });
    const decode = { gzip: zlib.gunzipSync, br: zlib.brotliDecompressSync };
    const metadata: [string, string][] = [['civicstream.provenance', '{"verb":"x","call":"/api/v1/x?y=1"}']];
    let inSlot = 0, outOfSlot = 0;
    const codedIn: number[] = [], codedOut: number[] = [];
    fc.assert(fc.property(query, (q) => {
      const gids = catalog.governments.map((_, gid) => gid).filter((gid) => catalog.governments[gid]!.fips_state === q.state && catalog.governments[gid]!.type === q.type);
      const params: Record<string, unknown> = {
        basis: q.basis, page: q.page, limit: q.limit, adjust: q.adjust, per_capita: q.per_capita, base_year: catalog.maxYear,
        ...(q.complete && q.recipe === undefined ? { complete: true } : {}),
        ...(q.recipe !== undefined ? { recipe: { index: q.recipe, id: catalog.recipes[q.recipe]!.recipe_id } } : {}),
        ...(q.recipe === undefined && q.category !== undefined ? { category: { ids: [q.category], all: false, names: [engine.categories[q.category]!] } } : {}),
      };
      const plan = planOf(ctx, q.route, { gids, years: q.years, params });
      if (q.identity) params.identity = true;
      const mainTable = moneyTable(ctx, q.route, tableOptions(params), money(view, engine, { ...plan, stopAtPage: true }));
      const expected = Buffer.from(q.format === 'csv' ? csvBytes(mainTable, 64) : q.format === 'arrow' ? arrowBytes(mainTable, metadata) : parquetBytes(mainTable, metadata));
      const arena = q.where === 'tiny' ? tiny : big;
      const lease = arena.acquire()!;
      if (q.where === 'given up') arena.release(lease);
      let r, sent: Buffer | null = null;
      try {
        r = moneyPage(view, table, arena.slots, 1, { plan: { ...plan, stopAtPage: true }, route: q.route, table: tableOptions(params), lease: { slot: lease.slot, token: lease.token }, format: q.format, metadata, ...(q.coding ? { coding: { coding: q.coding, options: q.coding === 'gzip' ? { level: 1 } : {} } } : {}) });
        // Copied out while the lease is held: the slot's bytes are its holder's only until it is given back.
        if (!r.cut) sent = Buffer.from(r.inSlot ? arena.view(lease.slot, r.length) : r.bytes!);
      } finally {
        // Given back however the draw ends, so a failing draw's shrinking starts from a free slot.
        if (q.where !== 'given up') arena.release(lease);
      }
      expect(r.cut, `${JSON.stringify(q)}`).toBe(q.where === 'given up');
      if (q.where === 'given up') expect([r.inSlot, r.length, r.bytes]).toEqual([false, 0, null]);
      else {
        const got = q.coding ? decode[q.coding](sent!) : sent!;
        expect(got.equals(expected), `${JSON.stringify(q)}`).toBe(true);
      }
      // In the slot only when a lease was held and the page fit: a page far under the slot's size always fits.
      if (q.where === 'slot') expect(r.inSlot).toBe(true);
      if (q.where === 'given up') expect(r.inSlot).toBe(false);
      if (q.where === 'tiny' && q.coding === undefined && expected.length > 2048) expect(r.inSlot).toBe(false);
      if (q.where === 'tiny' && q.coding === undefined && expected.length < 1024) expect(r.inSlot).toBe(true);
      if (r.inSlot) inSlot++; else if (!r.cut) outOfSlot++;
      expect(arena.available).toBe(1);
      if (q.coding && !r.cut) (r.inSlot ? codedIn : codedOut).push(1);
    // A fixed seed (PROPERTY_SEED to sweep others): with a fresh one each run, a run of 240 draws now and then held
    // no coded page that outgrew its slot, and the coverage check below failed with the code right (a full npm test, 2026-11-28).
    }), { numRuns: 240, seed: Number(process.env.PROPERTY_SEED ?? 20261128) });
    // Coded pages both fit their slot and outgrew it.
    expect(codedIn.length).toBeGreaterThan(0);
    expect(codedOut.length).toBeGreaterThan(0);
    // Both paths taken, each in a few of the 240 draws at least (given-up leases are cut now, so fewer land out of the slot).
    expect(inSlot).toBeGreaterThan(3);
    expect(outOfSlot).toBeGreaterThan(3);
  });
});

/** The rows' fields as plain arrays, row by row: what two row sets must agree on. */
const rowList = (r: { n: number; year: Uint16Array; gov: Uint32Array; cat: Int16Array; sub: Uint8Array; amt: Float64Array; flags: Uint8Array; pop: Int32Array; codes: Uint16Array; codesStart: Uint32Array }): unknown[][] =>
  Array.from({ length: r.n }, (_, i) => [r.year[i], r.gov[i], r.cat[i], r.sub[i], r.amt[i], r.flags[i], r.pop[i], [...r.codes.subarray(r.codesStart[i], r.codesStart[i + 1])]]);

describe('a page summed in steps', () => {
  const spending = routes[0]!;
  /** California's cities (483 in the fixture) over its years: a few thousand rows a year. */
  const bigPlan = (limit: number, page: number, more: Record<string, unknown> = {}) => {
    const ctx = fixture();
    const gids = ctx.catalog.governments.map((_, gid) => gid).filter((gid) => ctx.catalog.governments[gid]!.fips_state === '06' && ctx.catalog.governments[gid]!.type === 2);
    const params = { basis: 'harmonized', page, limit, adjust: 'real', per_capita: true, base_year: ctx.catalog.maxYear, ...more };
    return { params, plan: { ...planOf(ctx, spending, { gids, years: ctx.catalog.years, params: params as never }), stopAtPage: true } };
  };

  // coverage=consistent walks a first pass before the steps; a named category's plan reads its runs by the key starts,
  // and looks up recipes as it walks (suggest, a summary field the steps do not keep).
  it.each([
    [50_000, 0, ''], [1000, 2, ''], [300, 7, ''], [1000, 1, 'consistent'], [300, 1, 'Police'],
  ] as const)('hands over the rows of money() in order, a step at a time (limit %i, page %i) %s', (limit, page, variant) => {
    const ctx = fixture();
    const view = attachFinance(ctx.columns);
    const police = ctx.engine.categories.indexOf('Police');
    const base = bigPlan(limit, page, variant === 'Police' ? { category: { ids: [police], all: false, names: ['Police'] } } : {}).plan;
    const plan = variant === 'consistent' ? { ...base, consistent: true } : base;
    if (variant === 'Police') expect(plan.suggest).toBe(true);
    const whole = money(view, ctx.engine, plan);
    const steps = moneySteps(view, ctx.engine, plan);
    const got: unknown[][] = [];
    const counted: number[] = [];
    for (let rows = steps.next(100); rows !== null; rows = steps.next(100)) {
      got.push(...rowList(rows));
      counted.push(steps.total());
    }
    expect(whole.rows.n).toBe(Math.min(limit, whole.total - limit * page));
    expect(got).toEqual(rowList(whole.rows));
    expect(steps.total()).toBe(whole.total);
    // It paused: the first step had counted only part of what the walk counts, and each step counted on.
    expect(counted.length).toBeGreaterThan(2);
    expect(counted[0]!).toBeLessThan(whole.total);
    for (let k = 1; k < counted.length; k++) expect(counted[k]!).toBeGreaterThanOrEqual(counted[k - 1]!);
  });

  it.each([undefined, 'gzip', 'br'] as const)('writes a multi-step CSV page as the page written whole, coded: %s', (coding) => {
    const ctx = fixture();
    const view = attachFinance(ctx.columns);
    const table = tableCtxOf(ctx.engine, structuredClone(tableNames(ctx.catalog)));
    const arena = new PageArena(1, 8 * 1024 * 1024, () => new Promise<void>(() => {}));
    for (const [limit, page] of [[50_000, 0], [1500, 1]] as const) {
      const { plan, params } = bigPlan(limit, page);
      const res = money(view, ctx.engine, plan);
      // More rows than several steps take (256, 512, 1,024 ...): the page is written in more than one.
      expect(res.rows.n).toBeGreaterThan(1000);
      const expected = Buffer.from(csvBytes(moneyTable(ctx, spending, tableOptions(params), res), 64));
      const lease = arena.acquire()!;
      let sent: Buffer;
      try {
        const r = moneyPage(view, table, arena.slots, 1, { plan, route: spending, table: tableOptions(params), lease: { slot: lease.slot, token: lease.token }, format: 'csv', metadata: [], ...(coding ? { coding: { coding, options: {} } } : {}) });
        expect([r.cut, r.inSlot, r.total]).toEqual([false, true, res.total]);
        sent = Buffer.from(arena.view(lease.slot, r.length));
      } finally {
        arena.release(lease);
      }
      const got = coding === 'gzip' ? zlib.gunzipSync(sent) : coding === 'br' ? zlib.brotliDecompressSync(sent) : sent;
      expect(got.equals(expected)).toBe(true);
    }
  });
});
