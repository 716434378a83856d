// complete=true fills only governments that existed (issue 31, item 1): a
// cohort's filled rows name the governments whose registry lifespan covers the
// year, and those that reported it, never more than meta.n_units_expected.
// The expected sets are DuckDB's, over the registry (canonical_fips_xwalk) and
// the long table of the mirror, written here from the corpus columns.

import { describe, expect, it } from 'vitest';
import { parseCsv } from './helpers/csv.js';
import { long, query, table } from './helpers/duckdb.js';
import { GENERAL, PRIMARY } from './helpers/finance-sql.js';
import { get } from './helpers/http.js';

const FIPS: Record<string, string> = { SD: '46', VT: '50', TX: '48', MA: '25', NH: '33', CA: '06' };
const TYPE: Record<string, number> = { county: 1, city: 2, township: 3 };

/** Every row of a complete=true cohort answer, in one CSV page: [year, canonical_govid, value_source][]. */
async function filledRows(route: 'revenue' | 'spending', state: string, type: string, years: number[]): Promise<{ rows: [number, string, string][]; meta: any }> {
  const q = `/api/v1/${route}?state=${state}&type=${type}&years=${years.join(',')}&complete=true`;
  const meta = (await get(q)).body.meta;
  const r = await get(`${q}&format=csv&limit=50000`);
  expect(r.status, q).toBe(200);
  const [head, ...body] = await parseCsv(r.text);
  const [yi, gi, vi] = ['year', 'canonical_govid', 'value_source'].map((c) => head!.indexOf(c));
  expect(body.length, q).toBe(Number(r.headers.get('x-total-count')));
  return { rows: body.map((c) => [Number(c[yi!]), c[gi!]!, c[vi!]!]), meta };
}

/**
 * The governments expected in a cohort's year, by DuckDB: the registry's of that state and type whose
 * first_year..last_year covers it (a missing bound does not limit), and any that reported a row of the
 * flow's default concept that year (harmonized codes, non-aggregate).
 */
async function expectedGovs(route: 'revenue' | 'spending', state: string, type: string, year: number): Promise<Set<string>> {
  const [flow, col, subs] = route === 'revenue' ? ['revenue', 'revenue_subtype', GENERAL] : ['expenditure', 'spend_subtype', PRIMARY];
  const rows = await query(`
    WITH cohort AS (SELECT canonical_govid, first_year, last_year FROM ${table('canonical_fips_xwalk')}
                    WHERE fips_state = '${FIPS[state]}' AND govs_type = ${TYPE[type]})
    SELECT canonical_govid FROM cohort
      WHERE coalesce(first_year, ${year}) <= ${year} AND ${year} <= coalesce(last_year, ${year})
    UNION
    SELECT DISTINCT l.canonical_govid FROM ${long()} l
      JOIN ${table('summary_categories')} c ON c.item_code = l.harmonized_code
      WHERE l.year = ${year} AND NOT l.is_aggregate AND c.category_type = '${flow}' AND c.${col} IN (${subs.map((s) => `'${s}'`).join(', ')})
        AND l.canonical_govid IN (SELECT canonical_govid FROM cohort)`);
  return new Set(rows.map((r) => r.canonical_govid as string));
}

const govsOf = (rows: [number, string, string][], year: number): Set<string> => new Set(rows.filter((r) => r[0] === year).map((r) => r[1]));
const sorted = (s: Set<string>): string[] => [...s].sort();

describe('complete=true fills only governments alive that year', () => {
  it("SD counties in 2011: the issue's WASHABAUGH COUNTY (registry 1978 only) gets no row, and the filled governments are DuckDB's expected set, as many as n_units_expected", async () => {
    const { rows, meta } = await filledRows('revenue', 'SD', 'county', [2011]);
    const got = govsOf(rows, 2011);
    expect(got.has('461131900000')).toBe(false);
    const want = await expectedGovs('revenue', 'SD', 'county', 2011);
    expect(sorted(got)).toEqual(sorted(want));
    expect(got.size).toBe(meta.n_units_expected);
    expect(rows.some((r) => r[2] === 'not_reported' || r[2] === 'census_zero')).toBe(true);
  });

  it("VT cities in each year of the mirror: the filled governments are DuckDB's expected set, year by year as coverage_by_year counts them", async () => {
    const years = [2011, 2019, 2020];
    const { rows, meta } = await filledRows('revenue', 'VT', 'city', years);
    for (const [i, year] of years.entries()) {
      const got = govsOf(rows, year), want = await expectedGovs('revenue', 'VT', 'city', year);
      expect(sorted(got), String(year)).toEqual(sorted(want));
      expect(got.size, String(year)).toBe(meta.coverage_by_year[i].n_units_expected);
    }
  });

  it('names no more governments than n_units_expected, in every year of several state, type and flow cohorts', async () => {
    const years = [2011, 2019, 2020];
    for (const [route, state, type] of [
      ['revenue', 'SD', 'township'], ['spending', 'SD', 'county'], ['spending', 'VT', 'township'], ['revenue', 'NH', 'city'],
      ['spending', 'MA', 'township'], ['revenue', 'TX', 'county'],
    ] as const) {
      const { rows, meta } = await filledRows(route, state, type, years);
      for (const [i, year] of years.entries()) {
        const row = meta.coverage_by_year[i];
        expect(row.year).toBe(year);
        expect(govsOf(rows, year).size, `${route} ${state} ${type} ${year}`).toBeLessThanOrEqual(row.n_units_expected);
      }
    }
  });

  it("a government's own complete=true answer has no rows for a year outside its lifespan in which it did not report, and rows for one inside", async () => {
    const out = (await get('/api/v1/governments/461131900000/revenue?years=2011&complete=true')).body;
    expect(out.status).toBe('success');
    expect(out.data).toEqual([]);
    expect(out.meta.total).toBe(0);
    // A living SD county of the same answer above: filled rows in 2011.
    const alive = (await query(`SELECT canonical_govid FROM ${table('canonical_fips_xwalk')} WHERE fips_state = '46' AND govs_type = 1
      AND coalesce(first_year, 2011) <= 2011 AND 2011 <= coalesce(last_year, 2011) ORDER BY canonical_govid LIMIT 1`))[0]!.canonical_govid;
    const own = (await get(`/api/v1/governments/${alive}/revenue?years=2011&complete=true`)).body;
    expect(own.data.length).toBeGreaterThan(0);
  });
});
