// What the finance pages say where a number is missing or not what it looks like
// (an audit of 2026-11-28 found each of these read wrongly): a category the source
// published only in combined codes (FY2011 Corrections) is not "did not report"; a
// county in a sample year most likely was not surveyed; a year's missing bar is
// named; the aid codes counted only from FY2012 are marked on the revenue line;
// per-resident figures say which population count divides them; the landing page
// counts the governments that have rows. Expected values come from the API's own
// answers, DuckDB over the mirror, or literals.

import { describe, expect, it } from 'vitest';
import { watchedPage } from './helpers/browser.js';
import { arrestsUrl, get } from './helpers/http.js';
import { long, query, table } from './helpers/duckdb.js';
import { api, explorerBrowser, text } from './helpers/explorer.js';

const LA_CITY = '062037161174';
const LA_COUNTY = '061037123085';
const { browser, open } = explorerBrowser();

describe('finance explorer: missing numbers said for what they are', () => {
  it('FY2011 Corrections on the national map: combined codes and the recipe, never "did not report"', async () => {
    const roll = await api('/api/v1/rollups?layer=state&category=Corrections&per_capita=true&years=2011');
    expect(roll.meta.n_units_reporting).toBe(0);
    const recipes = roll.suggestions.map((s: any) => s.recipe_id);
    expect(recipes).toContain('corrections_combined');
    const { page, problems } = await open('?tab=map&category=Corrections&year=2011');
    const note = await text(page, '#panel-map .note');
    expect(note).toContain('combine it with another function');
    for (const r of recipes) expect(note).toContain(r);
    expect(note).not.toContain('did not report');
    expect(await text(page, '#panel-map .map-legend')).toContain('no Corrections row: combined codes');
    expect(await page.$$eval('#panel-map svg.map path.unit title', (els) => els.filter((e) => (e.textContent ?? '').includes('did not report')).length)).toBe(0);
    // The map is a group of buttons with a name, not an unlabelled image.
    expect(await page.$eval('#panel-map svg.map', (e) => [e.getAttribute('role'), e.getAttribute('aria-label')])).toEqual(['group', expect.stringContaining('Corrections spending per resident')]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Texas counties in FY2020 (a sample year): the hatched ones are most likely not in the sample; states still "did not report"', async () => {
    const roll = await api('/api/v1/rollups?layer=county&state=TX&category=Police&per_capita=true&years=2020&limit=1000');
    expect(roll.meta.is_census_year).toBe(false);
    const { page, problems } = await open('?tab=map&year=2020&category=Police&map=48');
    expect(await text(page, '#panel-map .map-legend')).toContain('not in this year\'s sample');
    expect(await text(page, '#panel-map .note')).toContain(`${roll.meta.n_units_reporting} of ${roll.meta.n_units_expected} county governments have a row in 2020`);
    expect(await text(page, '#panel-map .note')).toContain('sample year');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Los Angeles County\'s FY2011 breakdown names Corrections as missing (rows in FY2019 and FY2020), and its history gives the recipe', async () => {
    const all = await api(`/api/v1/governments/${LA_COUNTY}/spending?category=Corrections`);
    expect([...new Set(all.data.map((r: any) => r.year))]).toEqual([2019, 2020]);
    const { page, problems } = await open(`?govid=${LA_COUNTY}&tab=breakdown&year=2011&focus=Corrections`);
    expect(await text(page, '#panel-breakdown .note')).toContain('Corrections (rows in FY2019, FY2020)');
    expect(await text(page, '#panel-breakdown .note')).toContain('primary concept');
    const focus = await text(page, '#panel-breakdown .focus');
    expect(focus).toContain('recipe=corrections_combined');
    // No stray "null" where a caveat is absent (it was appended as text).
    expect(focus).not.toMatch(/null/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Los Angeles city\'s revenue line marks FY2019, where the aid codes B89, C89, D89 come in; per resident names the 2007 count behind FY2011', async () => {
    const r = await api(`/api/v1/governments/${LA_CITY}/revenue?category=All%20Categories&revenue_concept=total`);
    const aid = (y: number) => r.data.filter((x: any) => x.year === y).flatMap((x: any) => x.codes_included.split(',')).filter((c: string) => ['B89', 'C89', 'D89'].includes(c)).sort();
    expect(aid(2011)).toEqual([]);
    expect(aid(2019)).toEqual(['B89', 'C89', 'D89']);
    const { page, problems } = await open(`?govid=${LA_CITY}&scale=per_capita`);
    const note = await text(page, '#panel-history .note');
    expect(note).toContain('B89, C89, D89 came in');
    expect(note).toContain('ig_state_total_wide');
    const pc = await api(`/api/v1/governments/${LA_CITY}/spending?category=All%20Categories&expenditure_concept=total&per_capita=true`);
    expect(pc.provenance.transformations.per_capita.population_year_by_year['2011']).toEqual([2007]);
    expect(note).toContain('FY2011 uses the 2007 count');
    // A chart with a name and its values for assistive technology; the government's name is the page's h1.
    expect(await page.$eval('#panel-history figure, #panel-history svg[aria-label]', (e) => e.getAttribute('aria-label') ?? e.querySelector('svg')?.getAttribute('aria-label'))).toContain('by fiscal year');
    expect(await page.$eval('h1#title', (e) => e.textContent)).toBe('LOS ANGELES CITY');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Compare → aid draws federal, state and local aid from the total recipes: each line DuckDB\'s wide-era aggregate through FY2011 and every code of the leg after', async () => {
    // Independent of the API: the B--, C--, D-- rows through FY2011, every B, C, D code after (amounts in thousands).
    const rows = await query(`SELECT year::INT AS year, left(item_code, 1) AS leg, (sum(amt) * 1000)::DOUBLE AS v FROM ${long()}
      WHERE canonical_govid = '${LA_CITY}' AND left(item_code, 1) IN ('B', 'C', 'D')
        AND ((year <= 2011 AND item_code LIKE '_--') OR (year >= 2012 AND item_code NOT LIKE '_--')) GROUP BY 1, 2 ORDER BY 2, 1`);
    expect(rows.length).toBe(9);
    const { page, problems } = await open(`?govid=${LA_CITY}&pair=aid`);
    const names: Record<string, string> = { B: 'federal aid', C: 'state aid', D: 'local aid' };
    const expected: string = await page.evaluate(`import('/explore/format.js').then((m) => ${JSON.stringify(rows)}.map((r) => \`${'${'}${JSON.stringify(names)}[r.leg]}, FY${'${'}r.year}: ${'${'}m.moneyLong(r.v)}\`).join('; '))`);
    expect(await page.$eval('#panel-history svg[aria-description]', (e) => e.getAttribute('aria-description'))).toBe(expected);
    const note = await text(page, '#panel-history .note');
    expect(note).toContain('ig_federal_total_wide, ig_state_total_wide, ig_local_total_wide');
    expect(note).toContain('not to be added');
    expect(await page.$$eval('#panel-history .links a', (els) => els.map((e) => e.getAttribute('href')))).toContain(`/api/v1/governments/${LA_CITY}/revenue?recipe=ig_state_total_wide&adjust=nominal&per_capita=false`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the arrests explorer has an h1', async () => {
    const { page } = await watchedPage(browser(), arrestsUrl());
    await page.goto(`${arrestsUrl()}/explore/`);
    await page.waitForSelector('h1', { state: 'visible', timeout: 20_000 });
    expect(await page.$$eval('h1', (els) => els.filter((e) => (e as HTMLElement).offsetParent !== null).length)).toBeGreaterThan(0);
    await page.close();
  });
});

describe('the pages\' words and the files\' names', () => {
  it('the finance landing page counts the governments with rows as DuckDB does, and calls every loaded year a sample year', async () => {
    // By the registry's type (a government's type now), as the page counts them.
    const rows = await query(`SELECT x.govs_type AS type, count(DISTINCT l.canonical_govid)::INT AS n FROM ${long()} l JOIN ${table('canonical_fips_xwalk')} x USING (canonical_govid) GROUP BY 1 ORDER BY 1`);
    const n = new Map(rows.map((r) => [r.type, r.n]));
    const { body } = await get('/?format=json');
    const scope = body.data[0].scope;
    const total = [0, 1, 2, 3].reduce((a, t) => a + (n.get(t) ?? 0), 0);
    expect(scope['Governments with rows in the loaded years']).toBe(`${total.toLocaleString('en-US')}: ${n.get(0)} states, ${n.get(1)!.toLocaleString('en-US')} counties, ${n.get(2)!.toLocaleString('en-US')} cities, ${n.get(3)!.toLocaleString('en-US')} townships`);
    expect(scope['Census and sample years']).toMatch(/^2011, 2019, 2020 are survey sample years/);
    const dict = (await get('/api/v1/data-dictionary?format=json')).body.data;
    expect(dict.find((r: any) => r.section === 'caveat' && r.name === 'survey calendar')?.description).toContain('years ending in 2 and 7');
  });

  it('a one-government CSV file is named for its government, apart from the flat route\'s file of the same id (other rows)', async () => {
    const got = await get(`/api/v1/governments/${LA_CITY}/spending?category=Police&format=csv`);
    expect(got.headers.get('content-disposition')).toBe(`attachment; filename="government-${LA_CITY}_spending_category-Police_page-0.csv"`);
    const flat = await get(`/api/v1/spending?govid=${LA_CITY}&category=Police&format=csv`);
    expect(flat.headers.get('content-disposition')).toBe(`attachment; filename="spending_govid-${LA_CITY}_category-Police_page-0.csv"`);
  });

  it('every arrests example says its data is synthetic; no finance example does', async () => {
    const a = (await get('/api/v1/examples', undefined, arrestsUrl())).body.data;
    expect(a.length).toBeGreaterThan(0);
    for (const e of a) expect(e.description).toContain('synthetic');
    for (const e of (await get('/api/v1/examples')).body.data) expect(e.description).not.toContain('synthetic');
  });
});
