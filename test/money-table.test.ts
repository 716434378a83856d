// The money table's hand-written cells (memoized names and ids, one code by
// id, two or three codes by their ids, integers as digits) against the plain
// reading of the same column: every CSV cell must be the bytes of
// csvField(get(i)) and every JSON cell JSON.stringify(get(i)), for random
// result rows over the fixture's catalog. Those readings are the table's own
// key functions; the rows they give are checked apart, against a naive
// rewrite of each field from the catalog (the last test).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moneyTable, tableOptions, type MoneyRoute } from '../dist/src/finance/money-table.js';
import { rowsOf, type MoneyResult } from '../dist/src/finance/plan.js';
import { ByteWriter } from '../dist/src/bytes/byte-writer.js';
import { rowObjects, writeMemo } from '../dist/src/bytes/column-table.js';
import { chunksOf, csvBytes, csvField } from '../dist/src/bytes/csv-writer.js';
import { jsonRows } from '../dist/src/bytes/json-rows.js';
import { useFixtureCtx } from './helpers/fixture-ctx.js';

const fixture = useFixtureCtx();

const routes: MoneyRoute[] = [
  { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false },
  { verb: 'profile', flows: ['expenditure', 'revenue'], subtypeField: 'subtype', withFlow: true },
];

interface Row { year: number; gov: number; flow: number; cat: number; sub: number; amt: number; flags: number; vs: number; pop: number; codes: number[] }

function result(rows: Row[]): MoneyResult {
  const r = rowsOf({ n: rows.length, nCodes: rows.reduce((n, a) => n + a.codes.length, 0) });
  let k = 0;
  rows.forEach((a, i) => {
    r.year[i] = a.year; r.gov[i] = a.gov; r.flow[i] = a.flow; r.cat[i] = a.cat; r.sub[i] = a.sub; r.amt[i] = a.amt;
    r.flags[i] = a.flags; r.valueSource[i] = a.vs; r.pop[i] = a.pop; r.codesStart[i] = k;
    // The job writes a row's codes in ascending id order.
    for (const c of [...a.codes].sort((p, q) => p - q)) r.codes[k++] = c;
  });
  r.codesStart[rows.length] = k;
  return { total: rows.length, rows: r, summary: { suppressedRecipes: {} } } as unknown as MoneyResult;
}

describe('money table cells', () => {
  it('write what csvField and JSON.stringify write of each column value, for random rows and parameters', () => {
    const ctx = fixture();
    const { catalog, engine } = ctx;
    const nCodes = catalog.codes.length;
    const row = fc.record({
      year: fc.constantFrom(...catalog.years, 1967),
      gov: fc.integer({ min: 0, max: catalog.governments.length - 1 }),
      flow: fc.constantFrom(1, 2, 3),
      cat: fc.integer({ min: -2, max: engine.categories.length - 1 }),
      sub: fc.integer({ min: 0, max: engine.subtypes.length - 1 }),
      // Thousands of dollars: integers of any size, fractions, and NaN for a cell not reported.
      amt: fc.oneof(fc.integer({ min: -3e9, max: 3e9 }), fc.double({ min: -1e12, max: 1e12, noNaN: true }), fc.constant(Number.NaN)),
      flags: fc.integer({ min: 0, max: 3 }),
      vs: fc.integer({ min: 0, max: 3 }),
      pop: fc.oneof(fc.constant(-1), fc.constant(0), fc.integer({ min: 1, max: 40_000_000 })),
      // Mostly a few small ids, so that code lists sharing a tail ([0, 1, 2] and [1, 2]) meet in one run.
      codes: fc.uniqueArray(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant(nCodes - 1), fc.integer({ min: 0, max: nCodes - 1 })), { maxLength: 5 }),
    });
    const params = fc.record({
      adjust: fc.constantFrom('nominal', 'real'),
      per_capita: fc.boolean(),
      complete: fc.boolean(),
      // Any recipe: the memos outlive an answer, so a label keyed wrongly would show in a later run.
      recipe: fc.option(fc.integer({ min: 0, max: catalog.recipes.length - 1 }).map((index) => ({ index })), { nil: undefined }),
    });
    fc.assert(fc.property(fc.array(row, { maxLength: 40 }), params, fc.constantFrom(...routes), fc.boolean(), (rows, p, route, withRole) => {
      // Recipe rows (category -2) come only from a recipe query, as in the job.
      const res = result(p.recipe ? rows : rows.map((a) => (a.cat === -2 ? { ...a, cat: -1 } : a)));
      const extra = withRole ? [{ name: 'role', get: (i: number) => (i % 2 ? 'target' : 'peer') }] : [];
      const t = moneyTable(ctx, route, tableOptions({ ...p, base_year: catalog.maxYear }), res, extra);
      for (let c = 0; c < t.names.length; c++) {
        for (let i = 0; i < t.n; i++) {
          const v = t.get[c]!(i);
          const csv = t.csv?.[c];
          if (csv) {
            const w = new ByteWriter(8);
            if (typeof csv === 'function') csv(i, w);
            else writeMemo(csv, i, w);
            expect(Buffer.from(w.written()), `${t.names[c]} row ${i}`).toEqual(Buffer.from(csvField(v)));
          }
          const json = t.json?.[c];
          if (json) {
            const w = new ByteWriter(8);
            if (typeof json === 'function') json(i, w);
            else writeMemo(json, i, w);
            expect(Buffer.from(w.written()).toString('utf8'), `${t.names[c]} row ${i}`).toBe(JSON.stringify(v ?? null));
          }
        }
      }
      // The JSON rows as the envelope writes them (memo cells in runs): the JSON of the row objects, byte for byte.
      expect(Buffer.from(jsonRows(t)).toString('utf8')).toBe(JSON.stringify(rowObjects(t)));
      // The whole body, as the stream writes it, parses back to the same cells.
      const next = chunksOf(csvBytes(t, 256));
      let body = '';
      for (let chunk = next(); chunk !== null; chunk = next()) body += Buffer.from(chunk).toString('utf8');
      const expected = [t.names.map(csvField).join(','), ...Array.from({ length: t.n }, (_, i) => t.get.map((g) => csvField(g(i))).join(','))].join('\r\n');
      expect(body).toBe(`${expected}\r\n`);
    }), { numRuns: 150 });
  });

  it('hold, row by row, what a naive rewrite of each field from the catalog gives (not the table\'s key functions)', () => {
    const ctx = fixture();
    const { catalog, engine } = ctx;
    const nCodes = catalog.codes.length;
    const row = fc.record({
      year: fc.constantFrom(...catalog.years),
      gov: fc.integer({ min: 0, max: catalog.governments.length - 1 }),
      flow: fc.constantFrom(1, 2),
      cat: fc.integer({ min: -2, max: engine.categories.length - 1 }),
      sub: fc.integer({ min: 0, max: engine.subtypes.length - 1 }),
      amt: fc.oneof(fc.integer({ min: -3e9, max: 3e9 }), fc.constant(Number.NaN)),
      flags: fc.integer({ min: 0, max: 3 }),
      vs: fc.integer({ min: 0, max: 3 }),
      pop: fc.oneof(fc.constant(-1), fc.constant(0), fc.integer({ min: 1, max: 40_000_000 })),
      codes: fc.uniqueArray(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: nCodes - 1 })), { minLength: 1, maxLength: 5 }),
    });
    const VS = ['reported', 'reported', 'census_zero', 'not_reported'];
    fc.assert(fc.property(fc.array(row, { maxLength: 30 }), fc.boolean(), fc.boolean(), fc.option(fc.integer({ min: 0, max: catalog.recipes.length - 1 }), { nil: undefined }),
      (drawn, perCapita, complete, recipe) => {
        const rows = recipe === undefined ? drawn.map((a) => (a.cat === -2 ? { ...a, cat: -1 } : a)) : drawn;
        const t = moneyTable(ctx, routes[0]!, tableOptions({ adjust: 'nominal', per_capita: perCapita, complete, recipe: recipe === undefined ? undefined : { index: recipe }, base_year: catalog.maxYear }), result(rows));
        const got = JSON.parse(Buffer.from(jsonRows(t)).toString('utf8')) as Record<string, unknown>[];
        expect(got.length).toBe(rows.length);
        rows.forEach((a, i) => {
          const g = catalog.governments[a.gov]!;
          const filled = a.vs === 2 || a.vs === 3;
          const want: Record<string, unknown> = {
            year: a.year,
            canonical_govid: g.canonical_govid,
            gov_name: g.gov_name,
            category: a.cat === -2 ? catalog.recipes[recipe!]!.label : a.cat === -1 ? 'All Categories' : engine.categories[a.cat],
            spend_subtype: a.cat === -2 ? 'recipe' : engine.subtypes[a.sub],
            amt_nominal: Number.isNaN(a.amt) ? null : a.amt * 1000,
            codes_included: filled ? null : a.codes.map((c) => catalog.codes[c]!).sort().join(','),
            aggregate_fallback: filled ? null : (a.flags & 1) === 1,
          };
          if (perCapita) {
            want.amt_per_capita_nominal = Number.isNaN(a.amt) || a.pop <= 0 ? null : (a.amt * 1000) / a.pop;
            want.pop_source = a.pop > 0 ? 'census_f33' : 'unavailable';
          }
          if (complete) want.value_source = VS[a.vs];
          const picked = Object.fromEntries(Object.keys(want).map((k) => [k, got[i]![k]]));
          expect(picked, `row ${i}`).toEqual(want);
        });
      }), { numRuns: 200 });
  });
});
