// Coverage on the fleet answers (issue 22, item 7): a flat answer chosen by
// state and/or type says how many of the cohort's units reported, so a ranking
// says of how many: meta.n_units_expected, n_units_reporting and
// coverage_by_year on JSON, X-Units-Expected and X-Units-Reporting on CSV,
// Arrow and Parquet pages (first pull, repeat, HEAD), the same figures.

import { describe, expect, it } from 'vitest';
import { get } from './helpers/http.js';

const TX = '/api/v1/spending?state=TX&type=county&category=Police&years=2020&per_capita=true';

/** Every JSON row of a query, by page. */
async function allRows(p: string): Promise<any[]> {
  const rows: any[] = [];
  for (let page = 0, total = 1; rows.length < total; page++) {
    const b = (await get(`${p}&page=${page}`)).body;
    total = b.meta.total;
    if (b.data.length === 0) break;
    rows.push(...b.data);
  }
  return rows;
}

describe('coverage on flat answers', () => {
  it("answers the issue's question: 74 of Texas's 254 counties report police spending in FY2020, and the figures are the registry's and the rows'", async () => {
    const { meta } = (await get(TX)).body;
    expect([meta.n_units_reporting, meta.n_units_expected, meta.is_census_year]).toEqual([74, 254, false]);
    // Reporting: the distinct governments of the rows. Expected: the registry's Texas counties alive in 2020, with any reporter outside its lifespan.
    const rows = await allRows(TX);
    const reporters = new Set(rows.map((r) => r.canonical_govid));
    expect(reporters.size).toBe(meta.n_units_reporting);
    const cohort = (await get('/api/v1/governments?state=TX&type=county&limit=1000')).body.data as any[];
    const alive = cohort.filter((g) => (g.first_year ?? -Infinity) <= 2020 && 2020 <= (g.last_year ?? Infinity)).map((g) => g.canonical_govid);
    expect(new Set([...alive, ...reporters]).size).toBe(meta.n_units_expected);
  });

  it('gives every year with several, expected never below reporting', async () => {
    const { meta } = (await get('/api/v1/revenue?state=MA&type=township&category=Property%20Tax&years=2011,2019,2020')).body;
    expect(meta.coverage_by_year.map((r: any) => r.year)).toEqual([2011, 2019, 2020]);
    for (const r of meta.coverage_by_year) expect(r.n_units_expected).toBeGreaterThanOrEqual(r.n_units_reporting);
    expect(meta.n_units_reporting).toBe(meta.coverage_by_year[2].n_units_reporting);
  });

  it('puts the same figures in the headers of CSV, Arrow and Parquet pages: first pull, repeat, HEAD, and a query the count job cannot take', async () => {
    for (const q of [
      '/api/v1/spending?state=TX&type=county&category=Police&years=2011,2020',
      '/api/v1/spending?state=CA&type=city&years=2019,2020&subtype=capital&limit=1000',
      '/api/v1/revenue?state=MA&type=township&category=Property%20Tax&years=2011,2020&complete=true',
    ]) {
      const { meta } = (await get(q)).body;
      for (const format of ['csv', 'arrow', 'parquet', 'csv']) {
        for (const method of ['GET', 'HEAD']) {
          const r = await fetch(`${(await import('./helpers/http.js')).financeUrl()}${q}&format=${format}`, { method });
          await r.arrayBuffer();
          expect([r.headers.get('x-units-expected'), r.headers.get('x-units-reporting')], `${method} ${q} ${format}`)
            .toEqual([String(meta.n_units_expected), String(meta.n_units_reporting)]);
        }
      }
    }
  });

  it('says nothing of coverage for a govid list, which names its governments', async () => {
    const q = '/api/v1/spending?govid=062037161174,061037123085&category=Police&years=2020';
    expect((await get(q)).body.meta).not.toHaveProperty('n_units_expected');
    const r = await get(`${q}&format=csv`);
    expect(r.headers.get('x-units-expected')).toBeNull();
  });
});
