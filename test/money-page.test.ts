// A flat query's page (CSV, Arrow or Parquet) as a worker writes it
// (workers/finance/money-page.ts, from the names that cross in workerData)
// against the same page written on the main thread from its own catalog: the
// same bytes, whether the page goes into its page slot or outgrows it; a page
// whose lease was given up first is not written (issue 32: nobody is left to read it).

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
import { money } from '../dist/workers/finance/money.js';
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
      let r;
      try {
        r = moneyPage(view, table, arena.slots, 1, { plan: { ...plan, stopAtPage: true }, route: q.route, table: tableOptions(params), lease: { slot: lease.slot, token: lease.token }, format: q.format, metadata, ...(q.coding ? { coding: { coding: q.coding, options: q.coding === 'gzip' ? { level: 1 } : {} } } : {}) });
      } catch (err) {
        if (q.where !== 'given up') arena.release(lease);
        throw err;
      }
      expect(r.cut, `${JSON.stringify(q)}`).toBe(q.where === 'given up');
      if (q.where === 'given up') expect([r.inSlot, r.length, r.bytes]).toEqual([false, 0, null]);
      else {
        const sent = Buffer.from(r.inSlot ? arena.view(lease.slot, r.length) : r.bytes!);
        const got = q.coding ? decode[q.coding](sent) : sent;
        expect(got.equals(expected), `${JSON.stringify(q)}`).toBe(true);
      }
      // In the slot only when a lease was held and the page fit: a page far under the slot's size always fits.
      if (q.where === 'slot') expect(r.inSlot).toBe(true);
      if (q.where === 'given up') expect(r.inSlot).toBe(false);
      if (q.where === 'tiny' && q.coding === undefined && expected.length > 2048) expect(r.inSlot).toBe(false);
      if (q.where === 'tiny' && q.coding === undefined && expected.length < 1024) expect(r.inSlot).toBe(true);
      if (r.inSlot) inSlot++; else if (!r.cut) outOfSlot++;
      if (q.where !== 'given up') arena.release(lease);
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
