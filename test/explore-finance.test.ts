// The finance explorer (explore/finance*.js) in headless Chromium, driven as a
// person would: search by keyboard, switch dollars and scale, hover, click a
// bar, share a link, and read each chart against the API's own answer; the
// maps, the tabs, the address and the phone are in explore-finance-views. Each
// test also asserts that the page had no problem (page error, console error,
// failed or 4xx/5xx request, request leaving the host). Screenshots land in
// test-artifacts/.

import { describe, expect, it } from 'vitest';
import { keepScreenshot, unnamedControls, watchedPage, weighLoads } from './helpers/browser.js';
import { act, api, count, explorerBrowser, settled, text } from './helpers/explorer.js';
import { financeUrl } from './helpers/http.js';

const LA_CITY = '062037161174';
const NEW_CASTLE = '101003101811';
const { browser, open } = explorerBrowser();

/** Runs of consecutive years: [2011, 2019, 2020] is two runs, so a line without bridges has two pieces. */
function runs(years: number[]): number {
  const s = [...new Set(years)].sort((a, b) => a - b);
  return s.filter((y, i) => i === 0 || s[i - 1] !== y - 1).length;
}

describe('finance explorer in headless Chromium', () => {
  it('first load: the intro and the national map, under 500 KB on the wire, no problem', async () => {
    const { page, problems } = await watchedPage(browser(), financeUrl());
    const weigh = await weighLoads(page);
    await page.goto(`${financeUrl()}/explore/`);
    await settled(page);
    expect(await page.isVisible('#intro')).toBe(true);
    expect(await count(page, '#intro .examples a')).toBeGreaterThanOrEqual(3);
    expect(await text(page, '#intro')).toContain('Los Angeles');
    // The nation's states (Albers USA: the 50 states and DC).
    expect(await count(page, '#panel-map svg.map path.unit')).toBeGreaterThanOrEqual(50);
    await page.waitForLoadState('networkidle');
    const { bytes, byUrl } = weigh();
    const biggest = [...byUrl].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([u, b]) => `${new URL(u).pathname} ${(b / 1024).toFixed(1)} KB`);
    console.log(`finance explorer first load: ${(bytes / 1024).toFixed(1)} KB on the wire, ${byUrl.size} loads; biggest: ${biggest.join(', ')}`);
    expect(bytes).toBeGreaterThan(50_000); // the vendor libraries were counted
    expect(bytes).toBeLessThan(500_000);
    // Every control and the map's states have a name a screen reader announces (Chromium's accessibility tree).
    expect(await unnamedControls(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('search by keyboard: arrows and Enter pick, a miss says so, a 12-digit id finds its government', async () => {
    const { page, problems } = await open('');
    await page.focus('#q');
    await page.keyboard.type('los angeles');
    await page.waitForSelector('#results [role=option]');
    const labels = await page.$$eval('#results [role=option]', (els) => els.map((e) => e.textContent ?? ''));
    const at = labels.findIndex((l) => l.includes('LOS ANGELES CITY'));
    expect(at).toBeGreaterThanOrEqual(0);
    for (let i = 0; i <= at; i++) await page.keyboard.press('ArrowDown');
    const active = await page.$eval('#q', (e) => e.getAttribute('aria-activedescendant'));
    expect(await text(page, `#${active}`)).toContain('LOS ANGELES CITY');
    expect(await page.$eval(`#${active}`, (e) => e.getAttribute('aria-selected'))).toBe('true');
    expect(await page.$$eval('#results [aria-selected=true]', (els) => els.length)).toBe(1);
    await act(page, () => page.keyboard.press('Enter'));
    expect(await text(page, '#title')).toBe('LOS ANGELES CITY');
    expect(page.url()).toContain(`govid=${LA_CITY}`);

    await page.keyboard.type('zzqxv nowhere');
    await page.waitForFunction(() => document.querySelector('.search-note')?.textContent?.includes('No government matches'));
    // The note sits beside the listbox (which holds options only), in a live region, the list collapsed.
    expect(await page.$eval('.search-note', (e) => e.getAttribute('role'))).toBe('status');
    expect(await count(page, '#results li')).toBe(0);
    expect(await page.$eval('#q', (e) => e.getAttribute('aria-expanded'))).toBe('false');
    await page.keyboard.press('Escape');
    expect(await count(page, '#results li')).toBe(0);

    await page.fill('#q', NEW_CASTLE);
    await page.waitForSelector('#results [role=option]');
    expect(await text(page, '#results [role=option]')).toContain('NEW CASTLE COUNTY');
    await page.keyboard.press('ArrowDown');
    await act(page, () => page.keyboard.press('Enter'));
    expect(await text(page, '#title')).toBe('NEW CASTLE COUNTY');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('history: a dot per year with rows, no line across the missing years, units follow the controls, links answer', async () => {
    const q = 'adjust=nominal&per_capita=false';
    const [s, r] = await Promise.all([api(`/api/v1/governments/${LA_CITY}/spending?category=All%20Categories&expenditure_concept=total&${q}`), api(`/api/v1/governments/${LA_CITY}/revenue?category=All%20Categories&revenue_concept=total&${q}`)]);
    const years = (rows: any[]): number[] => [...new Set(rows.map((x) => x.year as number))];
    const { page, problems } = await open(`?govid=${LA_CITY}`);
    await keepScreenshot(page, 'explore-finance.png');
    expect(await count(page, '#panel-history g[aria-label=dot] circle')).toBe(years(s.data).length + years(r.data).length);
    // Each series' path: one piece (M) per run of consecutive years, one point (M or L) per year.
    const ds = await page.$$eval('#panel-history g[aria-label=line] path', (els) => els.map((e) => e.getAttribute('d') ?? ''));
    expect(ds.length).toBe(2);
    for (const [d, rows] of [[ds[0], s.data], [ds[1], r.data]] as const) {
      expect((d.match(/M/g) ?? []).length).toBe(runs(years(rows)));
      expect((d.match(/[ML]/g) ?? []).length).toBe(years(rows).length);
    }
    expect(await text(page, '#panel-history g[aria-label="y-axis label"]')).toContain('nominal dollars, total');
    expect(await page.$$eval('#panel-history g[aria-label="y-axis tick label"] text', (els) => els.map((e) => e.textContent))).toContain('$0');

    const hrefs = (): Promise<string[]> => page.$$eval('#panel-history .links a', (els) => els.map((e) => e.getAttribute('href') ?? ''));
    const before = await hrefs();
    const base = (await api(`/api/v1/governments/${LA_CITY}/spending?category=All%20Categories&adjust=real`)).meta.base_year;
    await act(page, () => page.selectOption('#adjust', 'real'));
    expect(await text(page, '#panel-history g[aria-label="y-axis label"]')).toContain(`real ${base} dollars`);
    await act(page, () => page.selectOption('#scale', 'per_capita'));
    expect(await text(page, '#panel-history g[aria-label="y-axis label"]')).toContain('per resident');
    const after = await hrefs();
    expect(after).not.toEqual(before);
    expect(after.every((h) => h.includes('adjust=real') && h.includes('per_capita=true'))).toBe(true);
    for (const h of after) expect((await fetch(`${financeUrl()}${h}`)).status, h).toBe(200);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('history compares like with like: total spending beside total revenue by default, general beside general by the control; the note says what each holds, the links are the calls drawn', async () => {
    const q = 'adjust=nominal&per_capita=false';
    const gov = `/api/v1/governments/${LA_CITY}`;
    const sums = (rows: any[], keep: (x: any) => boolean = () => true) => { const m = new Map<number, number>(); for (const x of rows) if (x.amt_nominal !== null && keep(x)) m.set(x.year, (m.get(x.year) ?? 0) + x.amt_nominal); return m; };
    // The Census's general expenditure leaves out utilities, liquor stores and insurance trust (a literal list here).
    const notGeneral = new Set(['Electric Utilities', 'Gas Utilities', 'Transit Utilities', 'Water Utilities', 'Liquor Stores', 'Insurance Trust Benefits']);
    const calls = {
      total: [`${gov}/spending?category=All%20Categories&expenditure_concept=total&${q}`, `${gov}/revenue?category=All%20Categories&revenue_concept=total&${q}`],
      general: [`${gov}/spending?expenditure_concept=total&${q}`, `${gov}/revenue?category=All%20Categories&revenue_concept=general&${q}`],
    };
    const [ts, tr, gs, gr] = await Promise.all([...calls.total, ...calls.general].map((c) => api(c)));
    const want = {
      total: new Map([...[...sums(ts.data)].map(([y, v]) => [`total spending, FY${y}`, v] as const), ...[...sums(tr.data)].map(([y, v]) => [`total revenue, FY${y}`, v] as const)]),
      general: new Map([...[...sums(gs.data, (x) => !notGeneral.has(x.category))].map(([y, v]) => [`general spending, FY${y}`, v] as const), ...[...sums(gr.data)].map(([y, v]) => [`general revenue, FY${y}`, v] as const)]),
    };
    // The pairs differ (LA runs its own power and water): a page drawing one pair for the other fails.
    expect(want.total.get('total revenue, FY2020')! - want.general.get('general revenue, FY2020')!).toBeGreaterThan(4e9);
    const retirement = [...new Set(tr.data.filter((x: any) => x.year === 2011).flatMap((x: any) => x.codes_included.split(',')).filter((c: string) => ['X01', 'X02', 'X05', 'X08'].includes(c)))].sort() as string[];
    expect(retirement.length).toBeGreaterThan(0);
    expect(tr.data.filter((x: any) => x.year >= 2019).flatMap((x: any) => x.codes_included.split(',')).filter((c: string) => retirement.includes(c))).toEqual([]);
    const { page, problems } = await open(`?govid=${LA_CITY}`);
    /** Each dot's tip: series and year against the dollars it names. */
    const tips = async (): Promise<Map<string, number>> => {
      const seen = new Map<string, number>();
      for (const circle of await page.$$('#panel-history g[aria-label=dot] circle')) {
        const b = (await circle.boundingBox())!;
        await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
        await page.waitForSelector('#panel-history g[aria-label=tip] text');
        const tip = await text(page, '#panel-history g[aria-label=tip]');
        expect(tip).toMatch(/\$[\d,.]+.*nominal dollars/s);
        const m = /((?:total|general) (?:spending|revenue)), FY(\d{4}).*?\$([\d,]+)/s.exec(tip)!;
        seen.set(`${m[1]}, FY${m[2]}`, Number(m[3]!.replaceAll(',', '')));
        await page.mouse.move(1, 1);
      }
      return seen;
    };
    const hrefs = (): Promise<string[]> => page.$$eval('#panel-history .links a', (els) => els.map((e) => e.getAttribute('href') ?? ''));
    const legend = (): Promise<string> => text(page, '#panel-history .chart-legend');
    for (const pair of ['total', 'general'] as const) {
      if (pair === 'general') await act(page, () => page.selectOption('#pair', 'general'));
      expect(await page.inputValue('#pair')).toBe(pair);
      const seen = await tips();
      expect([...seen.keys()].sort(), pair).toEqual([...want[pair].keys()].sort());
      for (const [k, v] of want[pair]) expect(seen.get(k), k).toBe(Math.round(v));
      expect((await hrefs()).slice(0, 2), pair).toEqual(calls[pair]);
      expect(await legend()).toContain(`${pair} spending`);
      expect(await legend()).toContain(`${pair} revenue`);
      // The catalogued seam (spec: the employee-retirement codes X01, X02, X05, X08 of insurance trust stop after
      // FY2016) is in total revenue only: marked at the first year without them, the codes named (the aid codes'
      // seam is at the same year: one rule).
      const rules = await count(page, '#panel-history g[aria-description=caveat] line');
      if (pair === 'total') {
        expect(rules).toBe(1);
        expect(await text(page, '#panel-history g[aria-description="caveat label"]')).toBe('FY2019: codes changed');
        expect(await text(page, '#panel-history .note')).toContain(`FY2019 insurance trust (employee retirement): ${retirement.join(', ')} went out (FY2011 summed ${retirement.join(', ')}; FY2019 none of them)`);
      } else {
        // General revenue has no retirement codes, but the aid codes B89, C89, D89 come in at FY2019 (explore-finance-gaps).
        expect(rules).toBe(1);
        expect(await text(page, '#panel-history .note')).toContain('FY2019 aid (B89, C89, D89): B89, C89, D89 came in');
      }
    }
    expect(new URL(page.url()).searchParams.get('pair')).toBe('general');
    const note = await text(page, '#panel-history .note');
    expect(note).toContain('without the government\'s utilities, liquor stores and insurance trust');
    expect(note).toContain('revenue_concept=general');
    await act(page, () => page.goBack());
    expect(await page.inputValue('#pair')).toBe('total');
    expect(await text(page, '#panel-history .note')).toMatch(/Total spending .*utilities.* plus what it paid to other governments.*Total revenue .*utility, liquor store and insurance trust revenue/s);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a series that changes meaning says so: Cook County\'s Health & Hospitals marks FY2019 and names the codes, in the chart and in the breakdown', async () => {
    const found = await api('/api/v1/governments?q=cook&state=IL&type=county');
    const cook = found.data.find((g: any) => g.gov_name === 'COOK COUNTY').canonical_govid;
    const hh = await api(`/api/v1/governments/${cook}/spending?category=Health%20%26%20Hospitals&adjust=nominal&per_capita=false`);
    const codes = (year: number) => hh.data.filter((x: any) => x.year === year && x.spend_subtype === 'operations').flatMap((x: any) => x.codes_included.split(','));
    const came = codes(2019).filter((c: string) => !codes(2011).includes(c));
    expect(came).toEqual(['E36']);
    const { page, problems } = await open(`?govid=${cook}&tab=breakdown&year=2020&focus=Health%20%26%20Hospitals`);
    // The chart: one dashed rule, labelled with its year, keyed in the legend.
    expect(await count(page, '#panel-breakdown .focus g[aria-description=caveat] line')).toBe(1);
    expect(await text(page, '#panel-breakdown .focus g[aria-description="caveat label"]')).toBe('FY2019: codes changed');
    expect(await text(page, '#panel-breakdown .focus .chart-legend')).toContain('the codes summed change');
    const caveat = await text(page, '#panel-breakdown .focus p.caveat');
    expect(caveat).toContain(`FY2019 operations: ${came.join(', ')} came in (FY2011 summed ${codes(2011).join(', ')}; FY2019 ${codes(2019).join(', ')})`);
    // The rule stands at the FY2019 tick.
    const ruleX = await page.$eval('#panel-breakdown .focus g[aria-description=caveat] line', (e) => e.getBoundingClientRect().x);
    const tick = await page.$$eval('#panel-breakdown .focus g[aria-label="x-axis tick label"] text', (els) => els.filter((e) => e.textContent === '2019').map((e) => { const b = e.getBoundingClientRect(); return b.x + b.width / 2; }));
    expect(tick.length).toBe(1);
    expect(Math.abs(ruleX - tick[0]!)).toBeLessThan(3);
    // The breakdown: the bar's label is marked, and its note carries the same words.
    const labels = await page.$$eval('#panel-breakdown .chart g[aria-label="y-axis tick label"] text', (els) => els.map((e) => e.textContent ?? ''));
    expect(labels).toContain('Health & Hospitals †');
    expect(await text(page, '#panel-breakdown .chart .chart-legend')).toContain('† the codes summed change between years');
    expect(await text(page, '#panel-breakdown > .note')).toContain(`Health & Hospitals: the codes summed change, so the series changes meaning there, not only where the money did: FY2019 operations: ${came.join(', ')} came in`);
    // A category whose codes hold is not marked: Police (its codes the same in every year with rows).
    const police = await api(`/api/v1/governments/${cook}/spending?category=Police`);
    const pc = (y: number) => police.data.filter((x: any) => x.year === y && x.spend_subtype === 'operations').map((x: any) => x.codes_included).join();
    expect(pc(2011)).toBe(pc(2020));
    expect(labels).toContain('Police');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('breakdown: stacked bars of the API categories for a year; a click draws that category over the years', async () => {
    const s = await api(`/api/v1/governments/${LA_CITY}/spending?years=2020`);
    const categories = new Set(s.data.map((x: any) => x.category));
    const { page, problems } = await open(`?govid=${LA_CITY}&tab=breakdown&year=2020`);
    expect(await count(page, '#panel-breakdown .chart g[aria-label=bar] rect')).toBeGreaterThan(3);
    const labels = await page.$$eval('#panel-breakdown .chart g[aria-label="y-axis tick label"] text', (els) => els.map((e) => e.textContent ?? ''));
    expect(labels.length).toBeGreaterThan(3);
    for (const l of labels) expect(categories.has(l.replace(/ †$/, '')), l).toBe(true);
    expect(await count(page, '#panel-breakdown .focus svg')).toBe(0);
    await act(page, () => page.click('#panel-breakdown .chart g[aria-label=bar] rect'));
    const focus = new URL(page.url()).searchParams.get('focus');
    expect(categories.has(focus)).toBe(true);
    expect(await text(page, '#panel-breakdown .focus .chart-legend')).toContain(focus!);
    expect(await text(page, '#panel-breakdown .focus h3')).toContain(focus!);
    expect(await count(page, '#panel-breakdown .focus g[aria-label=dot] circle')).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('peers: the p25-p75 band, the median and the government against its cohort; an empty cohort says so', async () => {
    const { page, problems } = await open(`?govid=${NEW_CASTLE}&tab=peers&category=Police`);
    expect(await count(page, '#panel-peers g[aria-label=area] path')).toBeGreaterThanOrEqual(1);
    const strokes = await page.$$eval('#panel-peers g[aria-label=line] path', (els) => els.map((e) => e.getAttribute('stroke')));
    expect(strokes).toContain('#08519c'); // the median
    expect(strokes).toContain('#d1495b'); // the government itself
    expect(await text(page, '#panel-peers .note')).toMatch(/\d+ of \d+ peers reported/);
    // Every mark is in the legend: the band, each peer's dot (drawn in the legend's colour), the median, the government.
    const legend = await page.$$eval('#panel-peers figure > div span, #panel-peers figure > div', (els) => els.map((e) => e.textContent ?? '').join('|'));
    for (const key of ['peer p25-p75', 'each peer', 'peer median', 'NEW CASTLE COUNTY']) expect(legend, key).toContain(key);
    const peerDot = await page.$eval('#panel-peers g[aria-label=dot] circle', (e) => e.getAttribute('fill'));
    const swatches = await page.$$eval('#panel-peers figure svg[fill], #panel-peers figure svg rect', (els) => els.map((e) => e.getAttribute('fill')));
    expect(swatches).toContain(peerDot);
    // The largest county has peers only once the window widens: drawn, and the note says which window.
    const la = await api('/api/v1/governments/061037123085/peer-comparison?category=Police');
    const laPage = await open('?govid=061037123085&tab=peers&category=Police');
    expect(await count(laPage.page, '#panel-peers g[aria-label=area] path')).toBeGreaterThanOrEqual(1);
    expect(await text(laPage.page, '#panel-peers .note')).toContain(`Peers of ${la.meta.pop_range[0]}–${la.meta.pop_range[1]} times its population: the usual 0.7–1.3 held too few.`);
    expect(laPage.problems).toEqual([]);
    await laPage.page.close();
    // The API may answer no cohort: the page says so rather than drawing nothing.
    await page.route((u) => u.pathname.endsWith('/peer-comparison'), (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ status: 'success', data: [], error: null, meta: { n_units_expected: 0, n_units_reporting: 0, cohort_year: 2020 } }) }));
    await act(page, () => page.selectOption('#category', 'Fire'));
    expect(await text(page, '#panel-peers .chart')).toContain('No peer cohort');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the year and subtype controls: the breakdown and the map follow the year, the peers chart the subtype', async () => {
    const { page, problems } = await open(`?govid=${NEW_CASTLE}&tab=breakdown&year=2020`);
    const links = (): Promise<string[]> => page.$$eval('#panel-breakdown .links a', (els) => els.map((e) => e.getAttribute('href') ?? ''));
    const bars2020 = await page.$eval('#panel-breakdown .chart', (e) => e.innerHTML);
    expect((await links())[0]).toContain('years=2020');
    await act(page, () => page.selectOption('#year', '2019'));
    expect(new URL(page.url()).searchParams.get('year')).toBe('2019');
    expect((await links())[0]).toContain('years=2019');
    expect(await page.$eval('#panel-breakdown .chart', (e) => e.innerHTML)).not.toBe(bars2020);
    expect(await text(page, '#panel-breakdown .note')).toContain('FY2019');
    await act(page, () => page.click('#tab-map'));
    expect(await text(page, '#panel-map .map-title')).toContain('FY2019');
    await act(page, () => page.click('#tab-peers'));
    const subtypes = await page.$$eval('#subtype option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(subtypes.length).toBeGreaterThan(1);
    const other = subtypes.find((x) => x !== 'operations')!;
    const before = await page.$$eval('#panel-peers g[aria-label=line] path', (els) => els.map((e) => e.getAttribute('d')));
    await act(page, () => page.selectOption('#subtype', other));
    expect(new URL(page.url()).searchParams.get('subtype')).toBe(other);
    expect(await text(page, '#panel-peers .note')).toContain(`${other} spending per resident`);
    expect(await page.$$eval('#panel-peers g[aria-label=line] path', (els) => els.map((e) => e.getAttribute('d')))).not.toEqual(before);
    expect(problems).toEqual([]);
    await page.close();
  });

});
