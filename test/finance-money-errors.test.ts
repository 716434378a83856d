// The error rows of the spec that concern the per-government money routes,
// with the exact messages where the spec gives them.

import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, get } from './helpers/http.js';

const LA = '062037161174';
const G = `/api/v1/governments/${LA}`;
const ROUTES = ['spending', 'revenue', 'balances', 'profile'];
const err = async (url: string, status = 400): Promise<string> => expectErrorEnvelope(await get(url), status);

describe('money routes: govid and years', () => {
  it('govid not 12 digits and unknown govid, on every money route', async () => {
    for (const r of ROUTES) {
      expect(await err(`/api/v1/governments/0620371611/${r}`)).toMatch(/^govid '0620371611' is not a canonical_govid\. Expected 12 digits/);
      expect(await err(`/api/v1/governments/LOS%20ANGELES/${r}`)).toMatch(/^govid 'LOS ANGELES' is not a canonical_govid\. Expected 12 digits/);
      expect(await err(`/api/v1/governments/000000000000/${r}`)).toBe("Unknown govid '000000000000'.");
    }
  });

  it('years: outside the range, a hole, not a number, an empty range', async () => {
    for (const r of ROUTES) {
      expect(await err(`${G}/${r}?years=2021`)).toBe('year must be in 2011-2020.');
      expect(await err(`${G}/${r}?years=1999-2019`)).toBe('year must be in 2011-2020.');
      const hole = await err(`${G}/${r}?years=2016`);
      expect(hole).toContain('2011-2020');
      expect(hole).toContain('2012, 2013, 2014, 2015, 2016, 2017, 2018');
      expect(await err(`${G}/${r}?years=last`)).toBe('year must be a four-digit year in 2011-2020.');
      await err(`${G}/${r}?years=2013-2017`);
    }
  });

  it('a range keeps its published years and drops holes', async () => {
    const { body } = await get(`${G}/spending?years=2011-2019&category=Police`);
    expect(body.provenance.years).toEqual([2011, 2019]);
    expect(new Set(body.data.map((r: any) => r.year))).toEqual(new Set([2011, 2019]));
  });
});

describe('money routes: keys each route refuses', () => {
  it("'year' is refused everywhere but /peers, naming the key and listing the accepted keys", async () => {
    for (const r of ROUTES) {
      const m = await err(`${G}/${r}?year=2019`);
      expect(m).toContain("'year'");
      expect(m).toContain('years');
      expect(m).toMatch(/Accepted keys: years, /);
    }
  });
  it('format is refused off the flat and money routes, an unknown format on them; complete on /balances and /profile', async () => {
    for (const r of ['peers', 'peer-comparison?category=Police']) expect(await err(`${G}/${r}${r.includes('?') ? '&' : '?'}format=csv`)).toContain("'format'");
    for (const r of ROUTES) expect(await err(`${G}/${r}?format=xml`)).toContain('json, csv, arrow, parquet');
    expect(await err(`${G}/balances?complete=true`)).toContain("'complete'");
    expect(await err(`${G}/profile?complete=true`)).toContain("'complete'");
  });
  it('expenditure_concept with any value on revenue and balances; revenue_concept on spending and balances', async () => {
    for (const v of ['primary', 'direct', 'total', 'x']) {
      expect(await err(`${G}/revenue?expenditure_concept=${v}`)).toContain('expenditure_concept');
      expect(await err(`${G}/balances?expenditure_concept=${v}`)).toContain('expenditure_concept');
    }
    for (const v of ['general', 'total']) {
      expect(await err(`${G}/spending?revenue_concept=${v}`)).toContain('revenue_concept');
      expect(await err(`${G}/balances?revenue_concept=${v}`)).toContain('revenue_concept');
    }
  });
  it('expenditure_concept=total on /profile names /governments/{govid}/spending', async () => {
    expect(await err(`${G}/profile?expenditure_concept=total`)).toContain('/governments/{govid}/spending');
  });
  it('limit above the cap names it and is never clamped', async () => {
    for (const r of ROUTES) expect(await err(`${G}/${r}?limit=1001`)).toContain('1000');
  });
});

describe('money routes: category', () => {
  it('is case-insensitive and canonicalized', async () => {
    const a = await get(`${G}/spending?category=police`);
    const b = await get(`${G}/spending?category=POLICE`);
    expect(a.body.data).toEqual(b.body.data);
    expect(a.body.data.every((r: any) => r.category === 'Police')).toBe(true);
    expect(a.body.provenance.category).toBe('Police');
  });
  it('takes the spec\'s short names Individual Income and Corporate Income, answered under the table\'s names', async () => {
    const state = '/api/v1/governments/060000226349/revenue';
    for (const [short, name] of [['Individual Income', 'Individual Income Tax'], ['corporate income', 'Corporate Income Tax']]) {
      const a = await get(`${state}?category=${encodeURIComponent(short)}`);
      const b = await get(`${state}?category=${encodeURIComponent(name)}`);
      expect(a.status, short).toBe(200);
      expect(a.body.data.length, short).toBeGreaterThan(0);
      expect(a.body.data, short).toEqual(b.body.data);
      expect(a.body.data.every((r: any) => r.category === name), short).toBe(true);
    }
  });
  it('unknown category is a 400 listing the valid options of the route', async () => {
    const m = await err(`${G}/spending?category=Polce`);
    expect(m).toContain("Unknown category 'Polce'");
    expect(m).toContain('Police');
    expect(m).toContain('All Categories');
    expect(m).not.toContain('Property Tax');
  });
  it('wrong-flow category names its type and the routes that serve it', async () => {
    const a = await err(`${G}/spending?category=Property%20Tax`);
    expect(a).toContain('revenue category');
    expect(a).toContain('/revenue and /governments/{govid}/revenue');
    const b = await err(`${G}/revenue?category=Police`);
    expect(b).toContain('expenditure category');
    expect(b).toContain('/spending, /rollups and /governments/{govid}/spending');
    const c = await err(`${G}/spending?category=Fund%20Balances`);
    expect(c).toContain('balance category');
    expect(c).toContain('/governments/{govid}/balances');
    expect(await err(`${G}/balances?category=Police`)).toContain('expenditure category');
  });
  it('All Categories and /profile are exempt from the flow gate', async () => {
    // Every money route takes it (issue 22, item 3: /balances refused it).
    for (const r of ['spending', 'revenue', 'balances']) expect((await get(`${G}/${r}?category=All%20Categories`)).status).toBe(200);
    const p = await get(`${G}/profile?category=Police,Property%20Tax`);
    expect(p.status).toBe(200);
    expect(new Set(p.body.data.map((r: any) => r.flow))).toEqual(new Set(['expenditure', 'revenue']));
  });
  it('All Categories cannot be combined with other names', async () => {
    expect(await err(`${G}/spending?category=All%20Categories,Police`)).toContain('cannot be combined');
  });
});

describe('money routes: recipe, subtype, concepts, complete', () => {
  it('category with recipe and subtype with recipe are 400', async () => {
    expect(await err(`${G}/revenue?recipe=ig_state_total_wide&category=IG%20State`)).toContain('mutually exclusive');
    expect(await err(`${G}/revenue?recipe=ig_state_total_wide&subtype=state`)).toContain('mutually exclusive');
  });
  it('unknown and wrong-flow recipe ids are 400', async () => {
    expect(await err(`${G}/revenue?recipe=nope`)).toContain('ig_state_total_wide');
    expect(await err(`${G}/spending?recipe=ig_state_total_wide`)).toContain('revenue recipe');
  });
  it('recipe with expenditure_concept=total is 400; recipe pairs with direct', async () => {
    expect(await err(`${G}/spending?recipe=corrections_combined&expenditure_concept=total`)).toContain('mutually exclusive');
    expect((await get(`${G}/spending?recipe=corrections_combined&expenditure_concept=direct`)).status).toBe(200);
  });
  it('complete with recipe, with expenditure_concept=total is 400; with All Categories it is answered', async () => {
    expect(await err(`${G}/spending?complete=true&recipe=corrections_combined`)).toContain('complete');
    expect(await err(`${G}/spending?complete=true&expenditure_concept=total`)).toContain('complete');
    expect((await get(`${G}/revenue?complete=true&category=All%20Categories`)).status).toBe(200);
  });
  it('subtype from the wrong flow is 400 naming where it belongs', async () => {
    expect(await err(`${G}/spending?subtype=own_source`)).toContain('revenue subtype');
    expect(await err(`${G}/revenue?subtype=capital`)).toContain('expenditure subtype');
    expect(await err(`${G}/balances?subtype=operations`)).toContain('expenditure subtype');
    expect(await err(`${G}/spending?subtype=bogus`)).toContain('operations, capital, assistance');
  });
  it('subtype=intergovernmental needs expenditure_concept=total, and is served with it', async () => {
    expect(await err(`${G}/spending?subtype=intergovernmental`)).toContain('total');
    expect(await err(`${G}/spending?subtype=intergovernmental&expenditure_concept=direct`)).toContain('total');
    const ok = await get(`${G}/spending?subtype=intergovernmental&expenditure_concept=total`);
    expect(ok.status).toBe(200);
    expect(ok.body.data.length).toBeGreaterThan(0);
    expect(ok.body.data.every((r: any) => r.spend_subtype === 'intergovernmental')).toBe(true);
  });
  it('a subtype outside the concept is 400 (interest under primary, utility under general)', async () => {
    expect(await err(`${G}/spending?subtype=interest`)).toContain('direct or total');
    expect(await err(`${G}/revenue?subtype=utility`)).toContain('revenue_concept=total');
  });
  it('an impossible balance category/subtype pair is 400', async () => {
    expect(await err(`${G}/balances?category=Fund%20Balances&subtype=employee_retirement`)).toContain('general');
    expect((await get(`${G}/balances?category=Fund%20Balances&subtype=general`)).status).toBe(200);
  });
  it('bad values of basis, adjust, base_year, per_capita, complete are 400 naming the parameter', async () => {
    expect(await err(`${G}/spending?basis=cooked`)).toContain('basis must be one of harmonized, raw');
    expect(await err(`${G}/spending?adjust=yes`)).toContain('adjust must be one of nominal, real');
    expect(await err(`${G}/spending?adjust=real&base_year=1990`)).toContain('base_year must be a four-digit year in 2011-2020');
    expect(await err(`${G}/spending?per_capita=1`)).toContain('per_capita must be one of true, false');
    expect(await err(`${G}/spending?complete=yes`)).toContain('complete must be one of true, false');
  });
});
