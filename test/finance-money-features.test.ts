// Per-capita, real dollars, completion, balances, suggestions and provenance
// of the per-government money routes, on the real fixture.

import path from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, get } from './helpers/http.js';
import { long, query, table } from './helpers/duckdb.js';
import { ROOT, startServer, type Running } from './helpers/server.js';

const LA = '062037161174';
const G = `/api/v1/governments/${LA}`;
const CPI = new Map(readFileSync(path.join(ROOT, 'data/cpi/cpiaucsl-annual-mean.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t').map(Number) as [number, number]));

describe('per capita and real dollars', () => {
  it('divide by the per-year population of the corpus and scale by the bundled CPI to base_year', async () => {
    const { body } = await get(`${G}/spending?category=Police&per_capita=true&adjust=real&base_year=2011`);
    const pops = new Map((await query(`SELECT year, max(population) AS p FROM ${long()} WHERE canonical_govid = '${LA}' GROUP BY 1`)).map((r) => [r.year, r.p]));
    expect(body.data.length).toBeGreaterThan(2);
    for (const r of body.data) {
      expect(r.pop_source).toBe('census_f33');
      expect(r.amt_per_capita_nominal).toBeCloseTo(r.amt_nominal / pops.get(r.year)!, 9);
      expect(r.amt_real).toBeCloseTo((r.amt_nominal * CPI.get(2011)!) / CPI.get(r.year)!, 4);
      expect(r.amt_per_capita_real).toBeCloseTo((r.amt_per_capita_nominal * CPI.get(2011)!) / CPI.get(r.year)!, 9);
    }
    const t = body.provenance.transformations;
    expect(t.units_conversion.multiplier).toBe(1000);
    expect(t.per_capita).toMatchObject({ applied: true, population_years: [2011, 2019, 2020], pop_source_counts: { census_f33: body.data.length, unavailable: 0 } });
    expect(t.per_capita.denominator_source).toContain('census_f33');
    expect(t.inflation).toMatchObject({ applied: true, base_year: 2011, base_year_index: CPI.get(2011) });
    expect(t.inflation.index).toContain('CPIAUCSL');
  });

  it('a cohort\'s popyear_values are the distinct population years of its rows, ascending, as DuckDB finds them', async () => {
    // Every city of the fixture, every year: the job gathers a population year per (government, year), tens of
    // thousands in no order (they were insertion-sorted: at full scale a national query took past 30 s).
    for (const q of ['type=city', 'state=TX&type=city', 'type=county']) {
      const { body } = await get(`/api/v1/spending?${q}&per_capita=true&years=2011-2020&limit=1`);
      const type = q.includes('county') ? 1 : 2, state = q.includes('TX') ? ' AND fips_state = 48' : '';
      const rows = await query(`SELECT DISTINCT coalesce(popyear, 0) AS y FROM ${long()} WHERE population > 0 AND type = ${type}${state} AND year BETWEEN 2011 AND 2020 ORDER BY y`);
      expect(body.provenance.transformations.per_capita.popyear_values).toEqual(rows.map((r) => Number(r.y)));
    }
  });

  it('base_year defaults to the latest published year; nominal rows carry no real or per-capita fields', async () => {
    const real = (await get(`${G}/spending?category=Police&adjust=real`)).body;
    expect(real.meta.base_year).toBe(2020);
    expect(real.provenance.transformations.inflation.base_year).toBe(2020);
    const nominal = (await get(`${G}/spending?category=Police`)).body;
    expect(Object.keys(nominal.data[0])).not.toContain('amt_real');
    expect(Object.keys(nominal.data[0])).not.toContain('amt_per_capita_nominal');
    expect(nominal.provenance.transformations.inflation.applied).toBe(false);
  });

  it('/profile defaults to real dollars per resident, with subtype and flow, equal to the two single-flow routes', async () => {
    const p = (await get(`${G}/profile`)).body;
    expect(p.meta).toMatchObject({ adjust: 'real', per_capita: true, base_year: 2020 });
    const s = (await get(`${G}/spending?adjust=real&per_capita=true`)).body.data;
    const r = (await get(`${G}/revenue?adjust=real&per_capita=true`)).body.data;
    const key = (x: any) => `${x.year}|${x.flow ?? (x.spend_subtype ? 'expenditure' : 'revenue')}|${x.subtype ?? x.spend_subtype ?? x.revenue_subtype}|${x.category}`;
    const single = new Map([...s, ...r].map((x) => [key(x), x.amt_per_capita_real]));
    expect(p.data.length).toBe(single.size);
    for (const x of p.data) expect(x.amt_per_capita_real, key(x)).toBe(single.get(key(x)));
    expect(p.data.map((x: any) => x.flow)).toContain('revenue');
  });
});

describe('complete=true', () => {
  it('never fills a census $0 where the corpus holds rows of the cell that the answer does not sum (discontinued codes, a family total alone)', async () => {
    // Every (government, category, subtype) of FY2011 with a row of any published code, as DuckDB finds them.
    const cellsWithRows = async (flow: 'spend' | 'revenue', ids: string[]): Promise<Set<string>> => new Set((await query(`
      SELECT DISTINCT l.canonical_govid || '|' || c.category || '|' || c.${flow}_subtype AS k FROM ${long()} l JOIN ${table('summary_categories')} c USING (item_code)
      WHERE l.year = 2011 AND c.${flow}_subtype IS NOT NULL AND l.canonical_govid IN (${ids.map((i) => `'${i}'`).join(',')})`)).map((r) => r.k as string));
    // Governments with FY2011 rows that harmonization discontinues, and with an intergovernmental family total alone.
    const na = (await query(`SELECT canonical_govid AS id FROM ${long()} WHERE year = 2011 AND harmonized_code IS NULL AND NOT is_aggregate GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 4`)).map((r) => r.id as string);
    const ig = (await query(`SELECT canonical_govid AS id FROM ${long()} WHERE year = 2011 AND item_code IN ('B89', 'C89', 'D89') GROUP BY 1 ORDER BY 1 LIMIT 4`)).map((r) => r.id as string);
    expect(na.length).toBe(4);
    expect(ig.length).toBe(4);
    let zeros = 0, published = 0;
    for (const [route, flow] of [['spending', 'spend'], ['revenue', 'revenue']] as const) {
      const ids = [...na, ...ig];
      const has = await cellsWithRows(flow, ids);
      for (const id of ids) {
        const { body } = await get(`/api/v1/governments/${id}/${route}?complete=true&years=2011`);
        let here = 0;
        for (const r of body.data) {
          const k = `${id}|${r.category}|${r[`${flow}_subtype`]}`;
          if (r.value_source === 'census_zero') { zeros++; expect(has.has(k), `${k}: census_zero $0, yet the corpus has rows of the cell`).toBe(false); }
          if (r.value_source === 'not_reported' && has.has(k)) { here++; expect(r.amt_nominal).toBeNull(); }
        }
        // The provenance counts them: the exceptions to the year's absence_means (census_zero) that not_in_survey does not name.
        expect(body.provenance.completion.published_not_summed, `${id} ${route}`).toEqual(here > 0 ? [{ year: 2011, n_cells: here }] : []);
        published += here;
      }
    }
    // Both kinds were seen: cells truly absent ($0), and published cells not summed (null).
    expect(zeros).toBeGreaterThan(0);
    expect(published).toBeGreaterThan(0);
  });

  it('names the governments not in a dense year\'s survey at all: their cells not_reported, listed in completion.not_in_survey (issue 22, item 2)', async () => {
    // The issue's government: rows in later years, none at all in FY2011 (the parquet says so).
    const [{ n }] = await query(`SELECT count(*)::INTEGER AS n FROM ${long()} WHERE canonical_govid = '253005106094' AND year = 2011`);
    expect(n).toBe(0);
    const one = (await get('/api/v1/governments/253005106094/spending?complete=true&category=Police&years=2011')).body;
    expect(one.data.length).toBeGreaterThan(0);
    expect(one.data.every((r: any) => r.value_source === 'not_reported' && r.amt_nominal === null)).toBe(true);
    expect(one.provenance.completion.absence_means).toEqual({ 2011: 'census_zero' });
    expect(one.provenance.completion.not_in_survey).toEqual([{ year: 2011, n_governments: 1, canonical_govids: ['253005106094'] }]);
    // A government in the survey lists none.
    expect((await get(`${G}/spending?complete=true&category=Police&years=2011`)).body.provenance.completion.not_in_survey).toEqual([]);
    // The flat route fills the same way: Massachusetts's towns (townships) alive in FY2011 by the registry's lifespan
    // (a town gone by then is not filled at all: issue 31) with no FY2011 row at all, as DuckDB finds them.
    const cohort: string[] = (await get('/api/v1/governments?state=MA&type=township&limit=1000')).body.data
      .filter((g: any) => (g.first_year ?? -Infinity) <= 2011 && 2011 <= (g.last_year ?? Infinity)).map((g: any) => g.canonical_govid);
    const reported = new Set((await query(`SELECT DISTINCT canonical_govid FROM ${long()} WHERE year = 2011`)).map((r) => r.canonical_govid as string));
    const absent = cohort.filter((id) => !reported.has(id)).sort();
    expect(absent.length).toBeGreaterThan(0);
    const flat = (await get('/api/v1/spending?state=MA&type=township&complete=true&category=Police&years=2011,2019&limit=1')).body;
    const listed = flat.provenance.completion.not_in_survey;
    expect(listed.map((x: any) => x.year)).toEqual([2011]);
    expect(listed[0].n_governments).toBe(absent.length);
    expect([...listed[0].canonical_govids].sort()).toEqual(absent);
  });

  it('fills the grid: census_zero ($0) in FY2011, not_reported (null) from FY2012, counted in meta.total', async () => {
    const plain = (await get(`${G}/spending?category=Libraries,Corrections,Education%20K-12`)).body;
    const full = (await get(`${G}/spending?category=Libraries,Corrections,Education%20K-12&complete=true`)).body;
    expect(full.meta.complete).toBe(true);
    expect(full.meta.total).toBe(full.data.length);
    expect(full.meta.total).toBeGreaterThan(plain.meta.total);
    const filled = full.data.filter((r: any) => r.value_source !== 'reported');
    expect(filled.length).toBe(full.provenance.completion.rows_filled);
    expect(full.data.filter((r: any) => r.value_source === 'reported').length).toBe(plain.meta.total);
    for (const r of filled) {
      if (r.year === 2011) expect(r).toMatchObject({ value_source: 'census_zero', amt_nominal: 0 });
      else expect(r).toMatchObject({ value_source: 'not_reported', amt_nominal: null });
    }
    expect(full.provenance.completion).toMatchObject({ applied: true, absence_means: { 2011: 'census_zero', 2019: 'not_reported', 2020: 'not_reported' } });
    expect(plain.provenance.completion).toEqual({ applied: false, rows_filled: 0, absence_means: {}, not_in_survey: [], published_not_summed: [] });
    expect('value_source' in plain.data[0]).toBe(false);
  });

  it('fills only cells the code set defines for the government type and year', async () => {
    const full = (await get(`${G}/spending?years=2019&complete=true`)).body;
    const grid = await query(`
      SELECT DISTINCT c.category, c.spend_subtype AS subtype FROM ${table('code_set')} cs JOIN ${table('summary_categories')} c USING (item_code)
      WHERE cs.year = 2019 AND cs.type = 2 AND NOT cs.is_aggregate AND c.category_type = 'expenditure' AND c.spend_subtype IN ('operations', 'capital', 'assistance')`);
    const cells = new Set(grid.map((g) => `${g.category}|${g.subtype}`));
    const got = new Set(full.data.map((r: any) => `${r.category}|${r.spend_subtype}`));
    for (const c of cells) expect(got.has(c), c).toBe(true);
  });

  it('pages over the completed set', async () => {
    const all = (await get(`${G}/revenue?complete=true`)).body;
    const walked: any[] = [];
    for (let page = 0; ; page++) {
      const b = (await get(`${G}/revenue?complete=true&limit=7&page=${page}`)).body;
      if (b.data.length === 0) break;
      expect(b.meta.total).toBe(all.meta.total);
      walked.push(...b.data);
    }
    expect(walked).toEqual(all.data);
  });
});

describe('balances', () => {
  it('follow the strict taxonomy, are not GAAP, and report coverage windows for every balance subtype', async () => {
    const { body } = await get('/api/v1/governments/060000226349/balances');
    const tree: Record<string, string[]> = { 'Fund Balances': ['general'], 'Insurance Trust Balances': ['unemployment_trust', 'workers_comp_trust', 'other_insurance_trust'], 'Retirement System Holdings': ['employee_retirement'] };
    for (const r of body.data) expect(tree[r.category], r.category).toContain(r.balance_subtype);
    expect(body.meta.not_gaap).toBe(true);
    const bc = body.provenance.balance_caveats;
    expect(bc.not_gaap).toBe(true);
    const windows = await query(`
      SELECT c.balance_subtype AS s, min(l.year) AS lo, max(l.year) AS hi FROM ${long()} l JOIN ${table('summary_categories')} c USING (item_code)
      WHERE c.category_type = 'balance' AND NOT l.is_aggregate GROUP BY 1`);
    expect(Object.keys(bc.coverage_window).sort()).toEqual(windows.map((w) => w.s).sort());
    for (const w of windows) expect(bc.coverage_window[w.s]).toEqual([w.lo, w.hi]);
    const observed = new Set(body.data.map((r: any) => r.balance_subtype));
    for (const t of bc.truncated) expect(observed.has(t)).toBe(true);
    expect(body.meta.coverage_truncated).toEqual(bc.truncated);
    expect(bc.truncated).toContain('employee_retirement');
  });

  it('a window spanning the request is not truncated', async () => {
    const { body } = await get('/api/v1/governments/060000226349/balances?years=2019-2020&category=Fund%20Balances');
    expect(body.meta.coverage_truncated).toEqual([]);
    expect(body.provenance.balance_caveats.truncated).toEqual([]);
  });
  it('money flows carry no balance_caveats', async () => {
    expect((await get(`${G}/spending`)).body.provenance.balance_caveats).toBeNull();
  });
});

describe('suggestions', () => {
  // A county that reports state aid in FY2011 only at the aggregate codes C--/C89.
  let aggregateOnly: string;
  let leaves: string;
  beforeAll(async () => {
    const rows = await query(`
      SELECT canonical_govid, bool_or(item_code LIKE 'C%' AND NOT is_aggregate) AS has_leaf, bool_or(item_code = 'C--') AS has_total
      FROM read_parquet('${ROOT}/fixtures/finance/v6/data/long/year=2011/part-0.parquet', hive_partitioning = false) WHERE type = 1 GROUP BY 1 ORDER BY max(population) DESC`);
    aggregateOnly = rows.find((r) => r.has_total && !r.has_leaf)!.canonical_govid;
    leaves = rows.find((r) => r.has_leaf)!.canonical_govid;
  });

  it('IG State on a local government reporting only aggregates: no row that year, a suggestion naming ig_state_total_wide', async () => {
    const { body } = await get(`/api/v1/governments/${aggregateOnly}/revenue?category=IG%20State`);
    expect(body.data.some((r: any) => r.year === 2011)).toBe(false);
    expect(body.suggestions.map((s: any) => s.recipe_id)).toEqual(['ig_state_total_wide']);
    expect(Object.keys(body.suggestions[0]).sort()).toEqual(['available_years', 'hint', 'label', 'recipe_id']);
    expect(body.suggestions[0].available_years).toEqual([1967, 2023]);
    expect(body.provenance.suggestions[0].years).toEqual([2011]);
    const recipe = (await get(`/api/v1/governments/${aggregateOnly}/revenue?recipe=ig_state_total_wide`)).body;
    expect(recipe.data.map((r: any) => r.year)).toContain(2011);
    expect(recipe.data.find((r: any) => r.year === 2011).codes_included).toBe('C--');
  });

  it('where the leaves exist the rows are returned and nothing is suggested', async () => {
    const { body } = await get(`/api/v1/governments/${leaves}/revenue?category=IG%20State`);
    expect(new Set(body.data.map((r: any) => r.year))).toEqual(new Set([2011, 2019, 2020]));
    expect(body.suggestions).toEqual([]);
  });

  it('unscoped and raw queries suggest nothing', async () => {
    expect((await get(`/api/v1/governments/${aggregateOnly}/revenue`)).body.suggestions).toEqual([]);
    expect((await get(`/api/v1/governments/${aggregateOnly}/revenue?category=IG%20State&basis=raw`)).body.suggestions).toEqual([]);
  });
});

describe('expenditure_concept=total', () => {
  it('flags a legacy aggregate-only Direct family: the row shows the intergovernmental leg alone and names the recipe', async () => {
    const [hit] = await query(`
      WITH l AS (SELECT * FROM ${long()} WHERE year = 2011), c AS (SELECT * FROM ${table('summary_categories')})
      SELECT l.canonical_govid FROM l JOIN c USING (item_code) WHERE c.category = 'Corrections' AND c.spend_subtype = 'intergovernmental'
        AND l.canonical_govid IN (SELECT canonical_govid FROM l WHERE item_code = 'E05')
        AND l.canonical_govid NOT IN (SELECT l2.canonical_govid FROM l l2 JOIN c c2 ON c2.item_code = l2.harmonized_code WHERE NOT l2.is_aggregate AND c2.category = 'Corrections')
      ORDER BY l.population DESC LIMIT 1`);
    const { body } = await get(`/api/v1/governments/${hit!.canonical_govid}/spending?expenditure_concept=total&category=Corrections&years=2011`);
    expect(body.provenance.expenditure_concept_direct_suppressed).toBe(true);
    expect(body.meta.expenditure_concept_direct_suppressed).toBe(true);
    expect(body.provenance.expenditure_concept_note).toContain('intergovernmental leg alone');
    const ig = body.data.find((r: any) => r.spend_subtype === 'intergovernmental');
    expect(ig.notes).toContain('Direct component is unavailable');
    expect(ig.notes).toContain("'corrections_combined'");
    const direct = await get(`/api/v1/governments/${hit!.canonical_govid}/spending?expenditure_concept=direct&category=Corrections&years=2011`);
    expect(direct.body.provenance.expenditure_concept_direct_suppressed).toBe(false);
    expect(direct.body.provenance.expenditure_concept_note).toBeNull();

    // All Categories (issue 22, item 4): a boolean, true exactly when some category queried by name says so.
    const all = (await get(`/api/v1/governments/${hit!.canonical_govid}/spending?expenditure_concept=total&category=All%20Categories&years=2011`)).body;
    expect(all.meta.expenditure_concept_direct_suppressed).toBe(true);
    expect(all.provenance.expenditure_concept_direct_suppressed).toBe(true);
    expect(all.provenance.expenditure_concept_note).toContain('Query the categories by name');
  });

  it('says for All Categories whether any summed category lacks its Direct leg, as the categories by name say (the issue\'s government and two more)', async () => {
    const names: string[] = (await get('/api/v1/categories?type=spending')).body.data.map((c: { category: string }) => c.category);
    for (const gov of ['021282213917', '062037161174', '231005166151']) {
      const all = (await get(`/api/v1/governments/${gov}/spending?expenditure_concept=total&category=All%20Categories`)).body;
      expect(typeof all.meta.expenditure_concept_direct_suppressed, gov).toBe('boolean');
      let any = false;
      for (const name of names) {
        const one = await get(`/api/v1/governments/${gov}/spending?expenditure_concept=total&category=${encodeURIComponent(name)}`);
        if (one.status === 200 && one.body.meta.expenditure_concept_direct_suppressed === true) any = true;
      }
      expect(all.meta.expenditure_concept_direct_suppressed, gov).toBe(any);
    }
  });
});

describe('provenance', () => {
  it('carries every key of the spec table', async () => {
    const { body } = await get(`${G}/spending?category=Police&per_capita=true&adjust=real`);
    for (const k of ['verb', 'call', 'target', 'years', 'category', 'basis', 'basis_note', 'expenditure_concept', 'expenditure_concept_note', 'expenditure_concept_direct_suppressed', 'harmonization', 'recipe', 'suggestions', 'scope', 'codes_summed', 'aggregate_fallback', 'transformations', 'series_break_refs', 'corpus_break_refs', 'completion', 'balance_caveats', 'manifest', 'sql_query']) {
      expect(body.provenance, k).toHaveProperty(k);
    }
    expect(body.provenance.harmonization).toMatchObject({ applied: true, na_rows_excluded: expect.any(Number), na_amount_excluded: expect.any(Number) });
    expect(body.provenance.manifest).toMatchObject({ schema_version: 6, pipeline_commit: 'e7394a4', built_at: '2026-08-03T16:51:32Z' });
    // The call is the canonical request: the keys in the route's declared order.
    expect(body.provenance.call).toBe(`${G}/spending?adjust=real&per_capita=true&category=Police`);
    const rev = (await get(`${G}/revenue`)).body.provenance;
    expect(rev.revenue_concept).toBe('general');
    expect(rev).not.toHaveProperty('expenditure_concept');
  });

  it('counts the rows harmonization excludes', async () => {
    const [state] = await query(`
      SELECT canonical_govid, count(*) AS n, sum(amt) * 1000 AS amt FROM ${long()} l JOIN ${table('summary_categories')} c USING (item_code)
      WHERE NOT is_aggregate AND harmonized_code IS NULL AND c.spend_subtype IN ('operations', 'capital', 'assistance') GROUP BY 1 ORDER BY n DESC LIMIT 1`);
    const { body } = await get(`/api/v1/governments/${state!.canonical_govid}/spending`);
    expect(body.provenance.harmonization.na_rows_excluded).toBe(state!.n);
    expect(body.provenance.harmonization.na_amount_excluded).toBe(state!.amt);
    const raw = (await get(`/api/v1/governments/${state!.canonical_govid}/spending?basis=raw`)).body;
    expect(raw.provenance.harmonization).toMatchObject({ applied: false, na_rows_excluded: 0 });
  });

  it('names one government\'s id missing, not found, when it contributed no row of the years asked (as a govid list does)', async () => {
    // A government with rows in 2019 and none in 2011, as DuckDB finds it.
    const [g] = await query(`SELECT canonical_govid AS id FROM ${long()} GROUP BY 1 HAVING max(year = 2019::INTEGER)::INTEGER = 1 AND max(year = 2011::INTEGER)::INTEGER = 0 ORDER BY 1 LIMIT 1`);
    const id = g!.id as string;
    for (const route of ['spending', 'revenue']) {
      const none = (await get(`/api/v1/governments/${id}/${route}?years=2011`)).body;
      expect(none.data).toEqual([]);
      expect(none.provenance.scope).toMatchObject({ govids_found: [], govids_missing: [id] });
    }
    const some = (await get(`/api/v1/governments/${id}/spending?years=2019`)).body;
    expect(some.data.length).toBeGreaterThan(0);
    expect(some.provenance.scope).toMatchObject({ govids_found: [id], govids_missing: [] });
  });

  it('counts, under a category, only the excluded rows of that category', async () => {
    const count = async (id: string, category: string): Promise<{ n: number; amt: number }> => (await query(`
      SELECT count(*)::INTEGER AS n, coalesce(sum(amt), 0) * 1000 AS amt FROM ${long()} l JOIN ${table('summary_categories')} c USING (item_code)
      WHERE l.canonical_govid = '${id}' AND NOT is_aggregate AND harmonized_code IS NULL AND c.category = '${category}' AND c.spend_subtype IN ('operations', 'capital', 'assistance')`))[0] as { n: number; amt: number };
    const [top] = await query(`
      SELECT canonical_govid AS id, c.category FROM ${long()} l JOIN ${table('summary_categories')} c USING (item_code)
      WHERE NOT is_aggregate AND harmonized_code IS NULL AND c.spend_subtype IN ('operations', 'capital', 'assistance') GROUP BY 1, 2 ORDER BY count(*) DESC, 1, 2 LIMIT 1`);
    for (const category of [top!.category as string, 'Police']) {
      const want = await count(top!.id as string, category);
      const { body } = await get(`/api/v1/governments/${top!.id}/spending?category=${encodeURIComponent(category)}`);
      expect(body.provenance.harmonization.na_rows_excluded, category).toBe(want.n);
      expect(body.provenance.harmonization.na_amount_excluded, category).toBe(Number(want.amt));
    }
    expect((await count(top!.id as string, top!.category as string)).n).toBeGreaterThan(0);
  });

  it('keeps series breaks of the codes apart from the corpus-wide ALL breaks, selected by year', async () => {
    const all = (await get(`${G}/spending`)).body.provenance;
    const breaks = await query(`SELECT break_id, fin_code, break_year FROM ${table('series_breaks')}`);
    const byId = new Map(breaks.map((b) => [b.break_id, b]));
    expect(all.corpus_break_refs).toEqual(breaks.filter((b) => b.fin_code === 'ALL' && b.break_year >= 2011 && b.break_year <= 2020).map((b) => b.break_id).sort());
    for (const id of all.series_break_refs) {
      const b = byId.get(id)!;
      expect(b.fin_code).not.toBe('ALL');
      expect(all.codes_summed.observed).toContain(b.fin_code);
      expect(b.break_year).toBeGreaterThanOrEqual(2011);
      expect(b.break_year).toBeLessThanOrEqual(2020);
    }
    expect(all.series_break_refs.filter((x: string) => all.corpus_break_refs.includes(x))).toEqual([]);
    expect((await get(`${G}/spending?years=2019`)).body.provenance.corpus_break_refs).toEqual([]);
  });

  it('describes the query before the subtype filter; meta.subtype echoes it', async () => {
    const a = (await get(`${G}/spending?category=Police`)).body;
    const b = (await get(`${G}/spending?category=Police&subtype=capital`)).body;
    expect((await get(`${G}/spending?category=Police&subtype=CAPITAL`)).body.data).toEqual(b.data);
    expect(b.meta.subtype).toBe('capital');
    expect(b.data.every((r: any) => r.spend_subtype === 'capital')).toBe(true);
    expect(b.data).toEqual(a.data.filter((r: any) => r.spend_subtype === 'capital'));
    expect(b.provenance.scope).toEqual(a.provenance.scope);
    expect(b.provenance.sql_query).toBe(a.provenance.sql_query);
  });

  it('reports years_present, categories_found and categories_missing (always arrays)', async () => {
    const { body } = await get(`${G}/spending?category=Police,Corrections,Libraries`);
    const s = body.provenance.scope;
    expect(s.govids_found).toEqual([LA]);
    expect(s.years_present).toEqual([...new Set(body.data.map((r: any) => r.year))].sort());
    expect(s.categories_found.sort()).toEqual([...new Set(body.data.map((r: any) => r.category))].sort());
    for (const m of s.categories_missing) {
      expect(Array.isArray(m.years)).toBe(true);
      for (const y of m.years) expect(body.data.some((r: any) => r.year === y && r.category === m.category)).toBe(false);
    }
    const police = (await get(`${G}/spending?category=Police`)).body.provenance.scope;
    expect(police.categories_missing).toEqual([]);
  });

  it('a recipe answer reports basis recipe and its components', async () => {
    const { body } = await get(`${G}/revenue?recipe=ig_state_total_wide&basis=raw`);
    expect(body.meta.basis).toBe('recipe');
    expect(body.provenance.basis).toBe('recipe');
    expect(body.provenance.recipe.recipe_id).toBe('ig_state_total_wide');
    expect(body.provenance.recipe.components[0].component_code).toBe('C--');
    expect(body.data.every((r: any) => r.revenue_subtype === 'recipe' && r.category === body.provenance.recipe.label)).toBe(true);
  });
});

describe('basis defaults by schema_version', () => {
  let v4: Running, v5: Running;
  beforeAll(async () => {
    [v4, v5] = await Promise.all([
      startServer({ FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v4'), WORKERS: '1' }),
      startServer({ FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v5'), WORKERS: '1' }),
    ]);
  });
  afterAll(async () => { await Promise.all([v4?.stop(), v5?.stop()]); });

  it('v5 defaults to harmonized; v4 to raw with a basis_note; explicit harmonized on v4 is 400', async () => {
    const five = (await get(`${G}/spending`, undefined, v5.url)).body;
    expect(five.meta.basis).toBe('harmonized');
    expect(five.provenance.basis_note).toBeNull();
    const four = (await get(`${G}/spending`, undefined, v4.url)).body;
    expect(four.meta.basis).toBe('raw');
    expect(four.provenance.basis).toBe('raw');
    expect(four.provenance.basis_note).toContain('schema_version 4');
    const raw6 = (await get(`${G}/spending?basis=raw`)).body;
    expect(four.data).toEqual(raw6.data);
    const harmonizedOnV4 = await get(`${G}/spending?basis=harmonized`, undefined, v4.url);
    expect(expectErrorEnvelope(harmonizedOnV4, 400)).toContain('schema_version');
    // A corpus that lacks a table is not bad input.
    expect(harmonizedOnV4.body.meta.error_code).toBe('E_NOT_IN_CORPUS');
  });

  it('complete=true needs the representation tables the older corpora lack', async () => {
    const completeOnV5 = await get(`${G}/spending?complete=true`, undefined, v5.url);
    expect(expectErrorEnvelope(completeOnV5, 400)).toContain('representation');
    expect(completeOnV5.body.meta.error_code).toBe('E_NOT_IN_CORPUS');
  });
});
