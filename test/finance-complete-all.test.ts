// complete=true with category=All Categories (the spec allows All Categories on
// every money route, complete on spending and revenue). The expected rows come
// from the same question broken out by category (category omitted), whose
// completion is tested against DuckDB elsewhere: per (government, year,
// subtype), All Categories is the sum of the reported cells when there is one;
// a census $0 when every cell of the subtype is census_zero; else not_reported.

import { describe, expect, it } from 'vitest';
import { get } from './helpers/http.js';

const ALL = 'All%20Categories';
const LA = '062037161174', PRATTVILLE = '012001100019';

interface Want { amt: number; reported: boolean; censusZero: boolean; notReported: boolean }

/** The All Categories rows the broken-out answer implies, keyed gov|year|subtype. */
function expected(rows: any[], subKey: string): Map<string, Want> {
  const out = new Map<string, Want>();
  for (const r of rows) {
    const k = `${r.canonical_govid}|${r.year}|${r[subKey]}`;
    const w = out.get(k) ?? { amt: 0, reported: false, censusZero: false, notReported: false };
    if (r.value_source === 'reported') { w.reported = true; w.amt += r.amt_nominal; }
    else if (r.value_source === 'census_zero') w.censusZero = true;
    else w.notReported = true;
    out.set(k, w);
  }
  return out;
}

async function agree(path: string, query: string, subKey: string): Promise<number> {
  const all = await get(`${path}?${query}&complete=true&category=${ALL}&limit=1000`);
  const broken = await get(`${path}?${query}&complete=true&limit=1000`);
  expect(all.status, all.text.slice(0, 300)).toBe(200);
  expect(broken.status).toBe(200);
  expect(broken.body.meta.total).toBe(broken.body.data.length);
  const want = expected(broken.body.data, subKey);
  const got = all.body.data;
  expect(all.body.meta.total).toBe(got.length);
  expect(got.length).toBe(want.size);
  for (const r of got) {
    const k = `${r.canonical_govid}|${r.year}|${r[subKey]}`;
    const w = want.get(k);
    expect(w, k).toBeDefined();
    expect(r.category).toBe('All Categories');
    if (w!.reported) {
      expect(r.value_source, k).toBe('reported');
      expect(r.amt_nominal, k).toBeCloseTo(w!.amt, 0);
    } else if (!w!.notReported) expect(r, k).toMatchObject({ value_source: 'census_zero', amt_nominal: 0 });
    else expect(r, k).toMatchObject({ value_source: 'not_reported', amt_nominal: null });
  }
  const c = all.body.provenance.completion;
  expect(c.applied).toBe(true);
  expect(c.rows_filled).toBe(got.filter((r: any) => r.value_source !== 'reported').length);
  expect(all.body.meta.complete).toBe(true);
  return got.filter((r: any) => r.value_source === 'census_zero').length;
}

describe('complete=true with All Categories', () => {
  it('is answered (200), each subtype\'s row as the categories broken out imply', async () => {
    let zeros = 0;
    for (const gov of [LA, PRATTVILLE]) {
      zeros += await agree(`/api/v1/governments/${gov}/spending`, 'years=2011-2020', 'spend_subtype');
      zeros += await agree(`/api/v1/governments/${gov}/revenue`, 'years=2011-2020', 'revenue_subtype');
    }
    zeros += await agree('/api/v1/spending', 'govid=012001100019,012001122498,012001160545,012003100020,012003122499&years=2011-2020', 'spend_subtype');
    zeros += await agree('/api/v1/revenue', 'govid=012001100019,062037161174,012003100020&years=2011-2020', 'revenue_subtype');
    // The census $0 case is there to get wrong.
    expect(zeros).toBeGreaterThan(0);
  }, 60_000);

  it('fills Prattville\'s FY2011 assistance with a census $0 and its FY2019 one with not_reported', async () => {
    const { body } = await get(`/api/v1/governments/${PRATTVILLE}/spending?complete=true&category=${ALL}`);
    const cell = (year: number) => body.data.find((r: any) => r.year === year && r.spend_subtype === 'assistance');
    expect(cell(2011)).toMatchObject({ amt_nominal: 0, value_source: 'census_zero' });
    expect(cell(2019)).toMatchObject({ amt_nominal: null, value_source: 'not_reported' });
  });
});
