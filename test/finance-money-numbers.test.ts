// The numbers: the nested concept identities, category sums checked against
// an independent DuckDB query, and provenance.sql_query run as is.

import { describe, expect, it } from 'vitest';
import { get } from './helpers/http.js';
import { query } from './helpers/duckdb.js';
import { DIRECT, GENERAL, PRIMARY, categorySums, governmentsInAllYears } from './helpers/finance-sql.js';

const V = '/api/v1/governments';
const sumBy = (rows: any[], pred: (r: any) => boolean): number => rows.filter(pred).reduce((s, r) => s + r.amt_nominal, 0);

describe('nested concept identities, to the dollar', async () => {
  const largest = await Promise.all([0, 1, 2, 3].map((t) => governmentsInAllYears(t, 1).then((g) => g[0]!)));
  for (const [t, govid] of largest.entries()) {
    it(`hold for the largest ${['state', 'county', 'city', 'township'][t]} (${govid}) in every year`, async () => {
      const all = 'category=All%20Categories';
      const primary = (await get(`${V}/${govid}/spending?${all}&expenditure_concept=primary`)).body.data;
      const direct = (await get(`${V}/${govid}/spending?${all}&expenditure_concept=direct`)).body.data;
      const total = (await get(`${V}/${govid}/spending?${all}&expenditure_concept=total`)).body.data;
      const general = (await get(`${V}/${govid}/revenue?${all}&revenue_concept=general`)).body.data;
      const revTotal = (await get(`${V}/${govid}/revenue?${all}&revenue_concept=total`)).body.data;
      for (const year of [2011, 2019, 2020]) {
        const y = (r: any) => r.year === year;
        const sub = (rows: any[], s: string) => sumBy(rows, (r) => y(r) && r.spend_subtype === s);
        const p = sumBy(primary, y), d = sumBy(direct, y), tt = sumBy(total, y);
        expect(p, `${year} primary`).toBeGreaterThan(0);
        expect(p).toBe(sub(primary, 'operations') + sub(primary, 'capital') + sub(primary, 'assistance'));
        expect(d).toBe(p + sub(direct, 'interest') + sub(direct, 'insurance_benefits'));
        expect(tt).toBe(d + sub(total, 'intergovernmental'));
        for (const s of PRIMARY) expect(sub(direct, s)).toBe(sub(primary, s));
        for (const s of DIRECT) expect(sub(total, s)).toBe(sub(direct, s));
        const g = sumBy(general, y);
        const rsub = (s: string) => sumBy(revTotal, (r) => y(r) && r.revenue_subtype === s);
        expect(sumBy(revTotal, y)).toBe(g + rsub('utility') + rsub('liquor_store') + rsub('insurance_trust'));
        for (const s of GENERAL) expect(rsub(s)).toBe(sumBy(general, (r) => y(r) && r.revenue_subtype === s));
      }
      // A state pays other governments every year: its total must carry an intergovernmental leg.
      if (t === 0) for (const year of [2011, 2019, 2020]) expect(total.some((r: any) => r.year === year && r.spend_subtype === 'intergovernmental')).toBe(true);
    });
  }
});

describe('category sums equal an independent DuckDB query over the mirror', async () => {
  const govs = [
    ...(await governmentsInAllYears(0, 8)),
    ...(await governmentsInAllYears(1, 6)), ...(await governmentsInAllYears(1, 3, 500)),
    ...(await governmentsInAllYears(2, 6)), ...(await governmentsInAllYears(2, 3, 1500)),
    ...(await governmentsInAllYears(3, 5)), ...(await governmentsInAllYears(3, 3, 300)),
  ];
  it('uses at least 30 governments of all four types', () => {
    expect(new Set(govs).size).toBeGreaterThanOrEqual(30);
  });
  for (const basis of ['raw', 'harmonized'] as const) {
    for (const [route, flow, subtypes, field] of [
      ['spending', 'expenditure', PRIMARY, 'spend_subtype'],
      ['revenue', 'revenue', GENERAL, 'revenue_subtype'],
      ['balances', 'balance', ['general', 'unemployment_trust', 'workers_comp_trust', 'other_insurance_trust', 'employee_retirement'], 'balance_subtype'],
    ] as const) {
      it(`${route}, basis=${basis}, all three years`, async () => {
        const expected = await categorySums({ govids: govs, years: [2011, 2019, 2020], flow, subtypes: [...subtypes], basis });
        const got: any[] = [];
        for (const g of govs) got.push(...(await get(`${V}/${g}/${route}?basis=${basis}`)).body.data);
        const key = (r: any) => `${r.year}|${r.canonical_govid}|${r.category}|${r.subtype ?? r[field]}`;
        const exp = new Map(expected.map((r) => [key(r), r.amt]));
        expect(got.length).toBe(expected.length);
        for (const r of got) expect(r.amt_nominal, key(r)).toBe(exp.get(key(r)));
      });
    }
  }
});

describe('provenance.sql_query, run in DuckDB, reproduces the rows', async () => {
  const [state] = await governmentsInAllYears(0, 1);
  const [county, county2] = await governmentsInAllYears(1, 2, 40);
  const [city] = await governmentsInAllYears(2, 1, 10);
  const [township] = await governmentsInAllYears(3, 1, 5);
  const queries = [
    `${V}/${state}/spending`,
    `${V}/${state}/spending?basis=raw`,
    `${V}/${state}/spending?expenditure_concept=direct`,
    `${V}/${state}/spending?expenditure_concept=total`,
    `${V}/${state}/spending?expenditure_concept=total&basis=raw&years=2011`,
    `${V}/${state}/spending?category=All%20Categories&expenditure_concept=total`,
    `${V}/${state}/revenue?revenue_concept=total`,
    `${V}/${state}/balances`,
    `${V}/${county}/spending?category=Police,Fire&years=2019-2020`,
    `${V}/${county}/revenue`,
    `${V}/${county}/revenue?basis=raw&category=IG%20State`,
    `${V}/${county2}/revenue?recipe=ig_state_total_wide`,
    `${V}/${county2}/spending?recipe=corrections_combined`,
    `${V}/${county2}/profile`,
    `${V}/${county2}/profile?revenue_concept=total&expenditure_concept=direct&basis=raw`,
    `${V}/${city}/spending?category=highways&subtype=capital`,
    `${V}/${city}/revenue?category=All%20Categories`,
    `${V}/${city}/balances?category=Fund%20Balances`,
    `${V}/${state}/balances?category=All%20Categories`,
    `${V}/${city}/balances?category=All%20Categories&years=2019-2020`,
    `${V}/${state}/spending?years=2011&expenditure_concept=total&category=Corrections`,
    `${V}/${township}/spending`,
    `${V}/${township}/revenue?years=2011,2020&recipe=ig_federal_total_wide`,
    `${V}/${township}/profile?category=Property%20Tax,Police`,
    `${V}/${county}/spending?complete=true&category=Libraries`,
  ];
  it(`covers at least 20 varied queries (${queries.length})`, () => expect(queries.length).toBeGreaterThanOrEqual(20));
  for (const url of queries) {
    it(url.replace(V, ''), async () => {
      const { body } = await get(url);
      expect(body.status).toBe('success');
      const sqlRows = await query(body.provenance.sql_query);
      const subtype = body.meta.subtype;
      const field = (r: any) => r.spend_subtype ?? r.revenue_subtype ?? r.balance_subtype ?? r.subtype;
      const mine = body.data.filter((r: any) => r.value_source === undefined || r.value_source === 'reported')
        .map((r: any) => [r.year, r.canonical_govid, r.category, field(r), ...(r.flow ? [r.flow] : []), r.amt_nominal]);
      const theirs = sqlRows.filter((r) => subtype === undefined || r.subtype === subtype)
        .map((r) => [r.year, r.canonical_govid, r.category, r.subtype, ...(r.flow ? [r.flow] : []), Number(r.amt_nominal)]);
      expect(mine).toEqual(theirs);
      expect(body.data.length).toBeGreaterThan(0);
    });
  }
});

describe('All Categories on /balances (issue 22, item 3)', async () => {
  const govs = (await Promise.all([0, 1, 2].map((t) => governmentsInAllYears(t, 3, 10)))).flat();
  it(`is, per year and subtype, the sum of the categories' rows, for ${govs.length} governments of three types`, async () => {
    let compared = 0;
    for (const govid of govs) {
      const all = (await get(`${V}/${govid}/balances?category=All%20Categories`)).body;
      const each = (await get(`${V}/${govid}/balances?limit=1000`)).body;
      expect(all.status).toBe('success');
      const sums = new Map<string, number>();
      for (const r of each.data) sums.set(`${r.year}|${r.balance_subtype}`, (sums.get(`${r.year}|${r.balance_subtype}`) ?? 0) + r.amt_nominal);
      expect(all.data.length).toBe(sums.size);
      for (const r of all.data) {
        expect(r.category).toBe('All Categories');
        expect(r.amt_nominal).toBeCloseTo(sums.get(`${r.year}|${r.balance_subtype}`)!, 0);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(10);
  });
});

describe('a harmonized query for named categories (which reads only those categories\' rows of each group)', async () => {
  const govs = (await Promise.all([0, 1, 2, 3].map((t) => governmentsInAllYears(t, 4, 10)))).flat();
  it(`answers exactly as the unfiltered query, cut to those categories, for ${govs.length} governments of all types`, async () => {
    let compared = 0;
    for (const govid of govs) {
      for (const [verb, field] of [['spending', 'spend_subtype'], ['revenue', 'revenue_subtype']] as const) {
        const all = (await get(`${V}/${govid}/${verb}?limit=1000`)).body;
        expect(all.meta.total).toBeLessThanOrEqual(1000);
        const cats = [...new Set(all.data.map((r: any) => r.category as string))].sort();
        // One category, two at once, and a category this government never reports.
        const picks = [[cats[0]!], [cats[1]!, cats[cats.length - 1]!].filter(Boolean), ['Police', 'Liquor Stores'].filter((c) => !cats.includes(c)).slice(0, 1)];
        for (const pick of picks.filter((p) => p.length > 0)) {
          const one = (await get(`${V}/${govid}/${verb}?limit=1000&category=${pick.map(encodeURIComponent).join(',')}`));
          if (one.status === 400) continue; // a category of the other flow
          const want = all.data.filter((r: any) => pick.includes(r.category));
          expect(one.body.data.map((r: any) => [r.year, r.category, r[field], r.amt_nominal, r.codes_included]), `${govid} ${verb} ${pick}`)
            .toEqual(want.map((r: any) => [r.year, r.category, r[field], r.amt_nominal, r.codes_included]));
          // The rows harmonization excluded, counted within the categories asked for (their exact count: finance-money-features).
          expect(one.body.provenance.harmonization.na_rows_excluded).toBeLessThanOrEqual(all.provenance.harmonization.na_rows_excluded);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(60);
  });
});
