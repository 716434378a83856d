// The finance explorer's maps, tabs and address in headless Chromium (the
// charts are in explore-finance): a state opened by click and by keyboard,
// "no government of the layer" told from "did not report", the tabs by
// keyboard, paged answers read to their end, an address brought back to what
// the API publishes, Back through the changes, and a 390 px phone. Each test
// asserts what is drawn against the API's own answer and that the page had no
// problem. Screenshots land in test-artifacts/.

import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { keepScreenshot } from './helpers/browser.js';
import { act, api, count, explorerBrowser, settled, text } from './helpers/explorer.js';
import { financeUrl } from './helpers/http.js';

const LA_CITY = '062037161174';
const NEW_CASTLE = '101003101811';
const { open } = explorerBrowser();

describe('finance explorer in headless Chromium: maps, tabs, the address, a phone', () => {
  it('maps: Texas counties coloured with a legend, coverage from the API, non-reporting hatched; clicks open a state and a county', async () => {
    const roll = await api('/api/v1/rollups?layer=county&state=TX&category=Police&per_capita=true&years=2020&limit=1000');
    const { n_units_expected: expected, n_units_reporting: reporting } = roll.meta;
    const { page, problems } = await open('?tab=map&year=2020&category=Police');
    await act(page, () => page.click('#panel-map svg.map path.unit[data-id="48"]'));
    expect(new URL(page.url()).searchParams.get('map')).toBe('48');
    expect(await count(page, '#panel-map svg.map path.unit')).toBe(254);
    // FY2020 is a sample year: a county without a row most likely was not surveyed (explore-finance-gaps).
    expect(await text(page, '#panel-map .map-legend')).toContain('no row: most likely not in this year\'s sample');
    expect(await text(page, '#panel-map .map-legend')).toContain('Police spending per resident');
    expect(await text(page, '#panel-map .map-title')).toContain('County governments\' own Police spending per resident');
    expect(await text(page, '#panel-map .note')).toContain(`${reporting} of ${expected} county governments have a row in 2020`);
    expect(await page.$$eval('#panel-map svg.map path.unit', (els) => els.filter((e) => e.getAttribute('fill') === 'url(#hatch)').length)).toBe(expected - reporting);
    expect(await text(page, '#panel-map .map-legend')).toContain('no county government');
    await keepScreenshot(page, 'explore-finance-map.png');
    const row = roll.data.find((x: any) => x.amt_per_capita_nominal !== null);
    await act(page, () => page.click(`#panel-map svg.map path.unit[data-id="${row.fips_state}${row.fips_county}"]`));
    expect(await text(page, '#title')).toBe(row.gov_name);
    expect(await page.isVisible('#panel-history')).toBe(true);
    // A county with no row is found by the state's list of counties.
    await act(page, () => page.goBack());
    const quiet = await page.$eval('#panel-map svg.map path.unit[fill="url(#hatch)"]', (e) => e.getAttribute('data-id'));
    const counties = await api('/api/v1/governments?state=TX&type=county&limit=1000');
    const named = counties.data.find((g: any) => `${g.fips_state}${g.fips_county}` === quiet);
    await act(page, () => page.click(`#panel-map svg.map path.unit[data-id="${quiet}"]`));
    expect(await text(page, '#title')).toBe(named.gov_name);
    // By keyboard: a county is a button; Enter on it opens it.
    await act(page, () => page.goBack());
    await page.focus(`#panel-map svg.map path.unit[data-id="${row.fips_state}${row.fips_county}"]`);
    await act(page, () => page.keyboard.press('Enter'));
    expect(await text(page, '#title')).toBe(row.gov_name);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('maps tell "no government of the layer" from "did not report": Connecticut has no county governments, DC no state government', async () => {
    const { page, problems } = await open('?tab=map&year=2020&category=Police&map=09');
    const ct = await api('/api/v1/rollups?layer=county&state=CT&category=Police&per_capita=true&years=2020');
    expect(ct.meta.n_units_expected).toBe(0);
    const classes = await page.$$eval('#panel-map svg.map path.unit', (els) => els.map((e) => e.getAttribute('class')));
    expect(classes.length).toBeGreaterThan(0);
    expect(classes.every((c) => c === 'unit no-government')).toBe(true);
    expect(await text(page, '#panel-map .note')).toContain('no county governments in the registry');
    await act(page, () => page.click('#panel-map .links button.pick'));
    expect(await page.$eval('#panel-map svg.map path.unit[data-id="11"]', (e) => e.getAttribute('class'))).toBe('unit no-government');
    const states = await api('/api/v1/rollups?layer=state&category=Police&per_capita=true&years=2020');
    expect(await count(page, '#panel-map svg.map path.unit.no-report')).toBe(states.meta.n_units_expected - states.meta.n_units_reporting);
    // The national map says whose spending it shows: each state government's own, not its local governments'.
    expect(await text(page, '#panel-map .map-title')).toMatch(/^State governments' own Police spending per resident, FY2020, nominal dollars: the nation \(each state government, not the local governments inside it\)$/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the tabs by keyboard: one tab stop, arrows move and select, Home and End', async () => {
    const { page, problems } = await open(`?govid=${LA_CITY}`);
    expect(await page.$$eval('[role=tab]', (ts) => ts.map((t) => (t as HTMLElement).tabIndex))).toEqual([0, -1, -1, -1]);
    await page.focus('#tab-history');
    await act(page, () => page.keyboard.press('ArrowRight'));
    expect(new URL(page.url()).searchParams.get('tab')).toBe('breakdown');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-breakdown');
    expect(await page.isVisible('#panel-breakdown')).toBe(true);
    await act(page, () => page.keyboard.press('ArrowLeft'));
    await act(page, () => page.keyboard.press('ArrowLeft'));
    expect(new URL(page.url()).searchParams.get('tab')).toBe('map');
    await act(page, () => page.keyboard.press('Home'));
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-history');
    expect(await page.$$eval('[role=tab]', (ts) => ts.map((t) => (t as HTMLElement).tabIndex))).toEqual([0, -1, -1, -1]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('every panel reads a paged answer to its end (meta.total), never a page cut short', async () => {
    const { page, problems } = await open('');
    const all = await api('/api/v1/governments?state=DE&limit=1000');
    expect(all.meta.total).toBeGreaterThan(14);
    const paged = await page.evaluate("import('/explore/format.js').then((m) => m.getAll('/api/v1/governments?state=DE&limit=7')).then((r) => r.data.map((g) => g.canonical_govid))");
    expect(paged).toEqual(all.data.map((g: any) => g.canonical_govid));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an address with values the API does not publish (a year, a category) is brought back to the published ones, asking nothing that fails', async () => {
    const { page, problems } = await open('?govid=101003101811&tab=breakdown&year=2015&category=Nope&focus=Nope2&subtype=bogus');
    expect(await page.inputValue('#year')).toBe('2020');
    const q = new URL(page.url()).searchParams;
    expect([q.get('year'), q.get('category'), q.get('focus'), q.get('subtype')]).toEqual([null, null, null, null]);
    // Categories with no subtype of the page's concept (primary) are not offered: their views would be empty.
    const offered = await page.$$eval('#category option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(offered).toContain('Police');
    expect(offered).not.toContain('Interest on Debt');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the URL holds the view: a copied link restores it, Back steps through the changes', async () => {
    const { page, problems } = await open(`?govid=${NEW_CASTLE}`);
    await act(page, () => page.click('#tab-peers'));
    await act(page, () => page.selectOption('#category', 'Fire'));
    await act(page, () => page.selectOption('#adjust', 'real'));
    const shown = async (p: Page) => ({
      title: await text(p, '#title'),
      tab: await p.$eval('[role=tab][aria-selected=true]', (e) => e.id),
      panel: await p.$eval('.panel:not([hidden])', (e) => e.id),
      category: await p.$eval('#category', (e) => (e as HTMLSelectElement).value),
      adjust: await p.$eval('#adjust', (e) => (e as HTMLSelectElement).value),
    });
    const view = await shown(page);
    expect(view).toEqual({ title: 'NEW CASTLE COUNTY', tab: 'tab-peers', panel: 'panel-peers', category: 'Fire', adjust: 'real' });
    const other = await open(new URL(page.url()).search);
    expect(await shown(other.page)).toEqual(view);
    expect(other.problems).toEqual([]);
    await other.page.close();
    await act(page, () => page.goBack());
    expect(await shown(page)).toEqual({ ...view, adjust: 'nominal' });
    await act(page, () => page.goBack());
    expect(await shown(page)).toEqual({ ...view, adjust: 'nominal', category: 'Police' });
    await act(page, () => page.goBack());
    expect((await shown(page)).panel).toBe('panel-history');
    // The map tab opens on the government's own state (Delaware: 3 counties).
    await act(page, () => page.click('#tab-map'));
    expect(new URL(page.url()).searchParams.get('map')).toBe('10');
    expect(await count(page, '#panel-map svg.map path.unit')).toBe(3);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a 390 px phone: no horizontal scroll on any panel', async () => {
    const phone = { width: 390, height: 844 };
    const { page, problems } = await open('', phone);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const tab of ['history', 'breakdown', 'peers', 'map']) {
      await page.goto(`${financeUrl()}/explore/?govid=${NEW_CASTLE}&tab=${tab}&map=10`);
      await settled(page);
      expect(await page.isVisible(`#panel-${tab} svg`), tab).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), tab).toBeLessThanOrEqual(390);
      // Drawn for the phone's width, not shrunk from a desktop drawing (CSS max-width would hide that).
      const widths = await page.$$eval(`#panel-${tab} svg[width]`, (els) => els.map((e) => Number(e.getAttribute('width'))));
      expect(widths.length, tab).toBeGreaterThan(0);
      expect(Math.max(...widths), tab).toBeLessThanOrEqual(390);
      // The year axis keeps its first and last years at phone width (FY2011, the first published, and FY2020).
      if (tab === 'history' || tab === 'peers') {
        const ticks = await page.$$eval(`#panel-${tab} g[aria-label="x-axis tick label"] text`, (els) => els.map((e) => e.textContent));
        expect(ticks, tab).toContain('2011');
        expect(ticks, tab).toContain('2020');
      }
      if (tab === 'history') await keepScreenshot(page, 'explore-finance-phone.png', true);
      if (tab === 'map') await keepScreenshot(page, 'explore-finance-phone-map.png', true);
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});
