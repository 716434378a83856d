// Flat /spending and /revenue: selection, paging, CSV mode.

import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, get } from './helpers/http.js';
import { asCell, parseCsv } from './helpers/csv.js';
import { long, query, table } from './helpers/duckdb.js';

const S = '/api/v1/spending';
const R = '/api/v1/revenue';

describe('selection', () => {
  it('state and type select the registry governments of that state and type; years default to the latest', async () => {
    const { body } = await get(`${S}?state=DE&type=city&category=Police`);
    expect(body.provenance.years).toEqual([2020]);
    const ids = await query(`SELECT canonical_govid FROM ${table('canonical_fips_xwalk')} WHERE fips_state = '10' AND govs_type = 2`);
    const allowed = new Set(ids.map((r) => r.canonical_govid));
    expect(body.data.length).toBeGreaterThan(0);
    for (const r of body.data) {
      expect(allowed.has(r.canonical_govid)).toBe(true);
      expect(r.year).toBe(2020);
      expect(r.category).toBe('Police');
    }
    expect(body.provenance.scope.cohort).toEqual({ state: 'DE', type: 'city', n_governments: ids.length });
    expect(body.provenance.scope).not.toHaveProperty('years_present');
    expect(body.provenance.scope).not.toHaveProperty('categories_found');
  });

  it('a govid list: malformed id is 400 with the spec message; unknown ones are named in govids_missing, the others answered', async () => {
    expect(expectErrorEnvelope(await get(`${S}?govid=062037161174,06203716117`), 400)).toMatch(/^govid '06203716117' is not a canonical_govid\. Expected 12 digits/);
    const [only2011] = await query(`SELECT canonical_govid FROM ${long()} GROUP BY 1 HAVING max(year) = 2011 LIMIT 1`);
    const { body, status } = await get(`${S}?govid=062037161174,999999999999,${only2011!.canonical_govid}`);
    expect(status).toBe(200);
    // Each id in exactly one list (issue 22): found, what contributed rows; missing, unknown or without rows in 2020.
    expect(body.provenance.scope.govids_found).toEqual(['062037161174']);
    expect(body.provenance.scope.govids_missing).toEqual(['999999999999', only2011!.canonical_govid]);
    expect(body.meta.govid).toEqual(['062037161174', only2011!.canonical_govid]);
    expect(new Set(body.data.map((r: any) => r.canonical_govid))).toEqual(new Set(['062037161174']));
  });

  it('needs a selection; govid with state or type is a 400 naming both keys (issue 22, item 1)', async () => {
    expectErrorEnvelope(await get(S), 400);
    // Winthrop Town, ME has 47 rows in FY2020: with state=NH it was a 200 with total 0 and the id in neither list.
    const [winthrop] = await query(`SELECT count(*)::INT AS n FROM ${long()} WHERE canonical_govid = '233011208221' AND year = 2020`);
    expect(winthrop!.n).toBe(47);
    for (const [url, keys] of [
      [`${R}?govid=233011208221&state=NH`, 'govid and state'],
      [`${S}?govid=062037161174,061037123085&type=city`, 'govid and type'],
      [`${S}?govid=062037161174&state=CA&type=city&format=csv`, 'govid and state and type'],
    ] as const) {
      const got = await get(url);
      expect(expectErrorEnvelope(got, 400), url).toContain(`${keys} cannot be used together`);
      expect(got.body.meta.error_code, url).toBe('E_CONFLICT');
    }
    // Alone, the list answers every government in it.
    const alone = (await get(`${R}?govid=233011208221&years=2020`)).body;
    expect(alone.meta.total).toBe(alone.data.length);
    expect(alone.provenance.scope.govids_found).toEqual(['233011208221']);
  });

  it('/spending refuses expenditure_concept=total naming /governments/{govid}/spending; /revenue refuses expenditure_concept and takes revenue_concept', async () => {
    expect(expectErrorEnvelope(await get(`${S}?state=DE&expenditure_concept=total`), 400)).toContain('/governments/{govid}/spending');
    expect(expectErrorEnvelope(await get(`${R}?state=DE&expenditure_concept=primary`), 400)).toContain('expenditure_concept');
    const t = (await get(`${R}?state=DE&type=state&revenue_concept=total`)).body;
    expect(t.meta.revenue_concept).toBe('total');
    expect(t.data.some((r: any) => r.revenue_subtype === 'insurance_trust')).toBe(true);
  });

  it('sql_query reproduces the rows of a state-and-type slice', async () => {
    const { body } = await get(`${R}?state=RI&type=city&years=2011-2020&category=Property%20Tax,IG%20State&limit=1000`);
    const rows = await query(body.provenance.sql_query);
    expect(rows.map((r) => [r.year, r.canonical_govid, r.category, r.subtype, Number(r.amt_nominal)]))
      .toEqual(body.data.map((r: any) => [r.year, r.canonical_govid, r.category, r.revenue_subtype, r.amt_nominal]));
  });
});

describe('split across workers', () => {
  it('a large fleet slice (split by year across the pool) pages exactly like the whole query in DuckDB', async () => {
    // basis=raw: on harmonized, named categories suggest recipes and the plan runs whole (run-money.ts splittable).
    const q = `${S}?type=county&years=2011-2020&category=Police,Highways&basis=raw&limit=1000`;
    const first = (await get(q)).body;
    const rows = await query(first.provenance.sql_query);
    expect(first.meta.total).toBe(rows.length);
    for (const page of [0, 1, Math.floor(rows.length / 1000)]) {
      const b = (await get(`${q}&page=${page}`)).body;
      expect(b.data.map((r: any) => [r.year, r.canonical_govid, r.category, r.spend_subtype, r.amt_nominal]))
        .toEqual(rows.slice(page * 1000, page * 1000 + 1000).map((r) => [r.year, r.canonical_govid, r.category, r.subtype, Number(r.amt_nominal)]));
    }
  });
});

describe('paging', () => {
  it('page is zero-based; walking pages until data is empty reaches every row once; meta.total is the full count', async () => {
    const q = `${S}?state=CA&type=city&years=2019-2020&category=Police,Fire`;
    const all = (await get(`${q}&limit=1000`)).body;
    const seen: string[] = [];
    let total = 0;
    for (let page = 0; page < 100; page++) {
      const b = (await get(`${q}&limit=97&page=${page}`)).body;
      total = b.meta.total;
      if (b.data.length === 0) break;
      expect(b.meta).toMatchObject({ page, limit: 97 });
      seen.push(...b.data.map((r: any) => `${r.year}|${r.canonical_govid}|${r.category}|${r.spend_subtype}`));
    }
    expect(total).toBe(all.meta.total);
    expect(seen.length).toBe(total);
    expect(new Set(seen).size).toBe(total);
    expect(seen.slice(0, all.data.length)).toEqual(all.data.map((r: any) => `${r.year}|${r.canonical_govid}|${r.category}|${r.spend_subtype}`));
  });

  it('JSON limit above 1000 is 400 naming the cap; CSV caps are 50,000, and 1,000 with subtype or recipe', async () => {
    expect(expectErrorEnvelope(await get(`${S}?state=DE&limit=1001`), 400)).toContain('1000');
    expect(expectErrorEnvelope(await get(`${S}?state=DE&format=csv&limit=50001`), 400)).toContain('50000');
    expect(expectErrorEnvelope(await get(`${S}?state=DE&format=csv&subtype=capital&limit=1001`), 400)).toContain('1000');
    expect(expectErrorEnvelope(await get(`${R}?state=DE&format=csv&recipe=ig_state_total_wide&limit=1001`), 400)).toContain('1000');
    expect((await get(`${S}?state=DE&format=csv&limit=50000`)).status).toBe(200);
  });
});

describe('CSV mode', () => {
  it('is header then rows, RFC 4180, metadata in headers, no provenance; the same rows as JSON in the same order', async () => {
    const q = `${S}?state=TX&type=county&years=2011-2020&category=Police,Corrections&per_capita=true&adjust=real&complete=true&limit=700&page=1`;
    const json = (await get(q)).body;
    const csv = await get(`${q}&format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('x-total-count')).toBe(String(json.meta.total));
    expect(csv.headers.get('x-page')).toBe('1');
    expect(csv.headers.get('x-limit')).toBe('700');
    expect(csv.text).not.toContain('provenance');
    expect(csv.text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = await parseCsv(csv.text);
    expect(header).toEqual(Object.keys(json.data[0]));
    expect(rows).toEqual(json.data.map((r: any) => header!.map((k) => asCell(r[k]))));
    expect(rows.length).toBe(700);
  });

  it('serves a 50,000-row pull, parsed whole by a real CSV parser', async () => {
    const csv = await get(`${S}?type=city&years=2011-2020&format=csv`);
    expect(Number(csv.headers.get('x-total-count'))).toBeGreaterThan(50_000);
    expect(csv.headers.get('x-limit')).toBe('50000');
    const [header, ...rows] = await parseCsv(csv.text);
    expect(rows.length).toBe(50_000);
    expect(header!.slice(0, 6)).toEqual(['year', 'canonical_govid', 'gov_name', 'category', 'spend_subtype', 'amt_nominal']);
    expect(rows.every((r) => r.length === header!.length)).toBe(true);
    const page1 = await get(`${S}?type=city&years=2011-2020&format=csv&page=1`);
    const [, first] = await parseCsv(page1.text);
    expect(first).not.toEqual(rows[0]);
  });

  it('repeat pulls (the total already known, so each page stops at its end) keep the count and the rows of JSON paging', async () => {
    const queries = [
      `${S}?state=CA&type=city&years=2011-2020&limit=900`,
      `${S}?state=CA&type=city&years=2011-2020&category=Police&limit=40`,
      `${S}?state=CA&type=city&years=2011-2020&category=Fire&limit=40`,
      `${R}?state=TX&type=county&years=2011,2020&revenue_concept=total&per_capita=true&limit=500`,
      `${S}?type=township&years=2019-2020&basis=raw&adjust=real&limit=1000`,
    ];
    const totals = new Set<string>();
    for (const q of queries) {
      const json = await Promise.all([0, 1, 2].map((page) => get(`${q}&page=${page}`)));
      // Twice each: the first pull of page 0 counts the whole query, every other pull is an early-stopping walk.
      for (const round of [0, 1]) {
        for (const page of [0, 1, 2]) {
          const csv = await get(`${q}&page=${page}&format=csv`);
          expect(csv.status).toBe(200);
          expect(csv.headers.get('x-total-count'), `${q} page ${page} round ${round}`).toBe(String(json[page]!.body.meta.total));
          const [header, ...rows] = await parseCsv(csv.text);
          expect(rows, `${q} page ${page} round ${round}`).toEqual(json[page]!.body.data.map((r: any) => header!.map((k) => asCell(r[k]))));
        }
      }
      totals.add(String(json[0]!.body.meta.total));
    }
    expect(totals.size).toBe(queries.length);
  });

  it('bad input is still a JSON error envelope', async () => {
    const got = await get(`${S}?state=ZZ&format=csv`);
    expectErrorEnvelope(got, 400);
    expect(got.headers.get('content-type')).toContain('application/json');
  });
});
