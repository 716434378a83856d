// An oracle for the money job's summary, written apart from the engine: the
// provenance fields a summary fills (scope.years_present, categories_found,
// categories_missing, codes_summed.observed, aggregate_fallback, meta.total)
// recomputed naively from the answer's own rows, which are in turn pinned to
// DuckDB over the fixture through the answer's sql_query. SummaryAcc
// (workers/finance/money-summary.ts) marks presence in scratch arrays as the
// walk goes; here each field is a plain set over whole rows. Governments are
// drawn from DuckDB: long histories, short ones, and each type.

import { describe, expect, it } from 'vitest';
import { get } from './helpers/http.js';
import { long, query } from './helpers/duckdb.js';

type Row = Record<string, any>;
const uniq = <T>(xs: T[]): T[] => [...new Set(xs)];
const asc = (xs: number[]): number[] => uniq(xs).sort((a, b) => a - b);

/** The summary fields of a per-government answer, from its rows alone (no subtype filter, no completion). */
function naive(rows: Row[]) {
  const years = asc(rows.map((r) => r.year));
  const cats = uniq(rows.map((r) => r.category as string));
  const yearsOf = (c: string): Set<number> => new Set(rows.filter((r) => r.category === c).map((r) => r.year));
  return {
    total: rows.length,
    years_present: years,
    categories_found: [...cats].sort(),
    categories_missing: cats.map((c) => ({ category: c, years: years.filter((y) => !yearsOf(c).has(y)) })).filter((m) => m.years.length > 0)
      .sort((a, b) => (a.category < b.category ? -1 : 1)),
    observed: uniq(rows.flatMap((r) => (r.codes_included ? String(r.codes_included).split(',') : []))).sort(),
    aggregate_years: asc(rows.filter((r) => r.aggregate_fallback === true).map((r) => r.year)),
  };
}

describe('the summary against a naive oracle over the rows', () => {
  it('per-government answers: years and categories present and missing, codes observed, aggregate years, total; rows as DuckDB runs sql_query', async () => {
    // Each type; long and short histories (short ones have categories missing in some years).
    const govs = await query(
      `SELECT canonical_govid, type, count(DISTINCT year)::INT AS ny FROM ${long()} GROUP BY 1, 2 ` +
      `QUALIFY row_number() OVER (PARTITION BY type, count(DISTINCT year) ORDER BY hash(canonical_govid)) <= 2 ORDER BY type, ny, canonical_govid`,
    );
    expect(govs.length).toBeGreaterThan(8);
    const variants = [
      'spending?years=2011,2019,2020',
      'spending?years=2011,2019,2020&category=Police,Highways,Parks%20%26%20Recreation,Fire&basis=raw',
      'spending?years=2011,2019,2020&category=Police,Highways,Parks%20%26%20Recreation,Fire',
      // Total spending: the intergovernmental leg, legacy years from aggregate-flagged rows (aggregate_fallback).
      'spending?years=2011,2019,2020&expenditure_concept=total',
      'revenue?years=2011,2019,2020&revenue_concept=total',
      'revenue?years=2011,2019,2020&category=Property%20Tax,IG%20State',
      'balances?years=2011,2019,2020',
      'profile?years=2011,2019,2020&adjust=nominal&per_capita=false',
    ];
    let compared = 0, withMissing = 0, withAggregate = 0;
    for (const g of govs) {
      for (const v of variants) {
        const url = `/api/v1/governments/${g.canonical_govid}/${v}&limit=1000`;
        const { status, body } = await get(url);
        expect(status, url).toBe(200);
        if (body.meta.total > 1000) continue;
        const rows: Row[] = body.data;
        const want = naive(rows);
        const scope = body.provenance.scope;
        expect(body.meta.total, url).toBe(want.total);
        expect(scope.years_present, url).toEqual(want.years_present);
        expect([...scope.categories_found].sort(), url).toEqual(want.categories_found);
        expect([...scope.categories_missing].sort((a: Row, b: Row) => (a.category < b.category ? -1 : 1)), url).toEqual(want.categories_missing);
        expect(body.provenance.codes_summed.observed, url).toEqual(want.observed);
        expect(body.provenance.aggregate_fallback, url).toEqual({ applied: want.aggregate_years.length > 0, years: want.aggregate_years });
        // The rows the oracle read are the corpus's: DuckDB runs the answer's SQL to the same rows.
        const sql = await query(body.provenance.sql_query);
        expect(sql.length, url).toBe(rows.length);
        expect(sql.map((r) => `${r.year}|${r.category}|${Number(r.amt_nominal)}`).sort(), url)
          .toEqual(rows.map((r) => `${r.year}|${r.category}|${r.amt_nominal}`).sort());
        compared++;
        if (want.categories_missing.length > 0) withMissing++;
        if (want.aggregate_years.length > 0) withAggregate++;
      }
    }
    // The oracle saw every field non-empty somewhere.
    expect(compared).toBeGreaterThan(40);
    expect(withMissing).toBeGreaterThan(3);
    expect(withAggregate).toBeGreaterThan(0);
  }, 120_000);
});
