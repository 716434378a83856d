// The docs and explorer pages of both services in a real headless Chromium (Debian's, at
// /usr/bin/chromium; npm test installs it when missing, see scripts/ensure-test-tools.mjs): the page renders the
// generated OpenAPI, every declared route is listed, and a screenshot is kept
// in test-artifacts/ as the run's evidence.

import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrestsUrl, financeUrl } from './helpers/http.js';
import { ROOT } from './helpers/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: run 'node scripts/ensure-test-tools.mjs' as root (npm test does) or set CHROMIUM_PATH`);
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);
afterAll(async () => { await browser?.close(); });

describe('docs page in headless Chromium', () => {
  for (const [service, base] of [['finance', financeUrl], ['arrests', arrestsUrl]] as const) {
    it(`${service}: /__docs__/ lists every route of /openapi.json, with no failed request or page error`, async () => {
      const spec = await (await fetch(`${base()}/openapi.json`)).json();
      const declared = Object.keys(spec.paths).sort();
      expect(declared.length).toBeGreaterThan(5);
      const page = await browser.newPage({ viewport: { width: 1280, height: 2400 } });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
      page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`); });
      page.on('request', (r) => { if (!r.url().startsWith(base())) problems.push(`external request: ${r.url()}`); });
      await page.goto(`${base()}/__docs__/`);
      await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
      const listed = (await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path') ?? e.textContent ?? ''))).map((p) => p.replace(/\u200b/g, '')).sort();
      expect(listed).toEqual(declared);
      expect(await page.title()).toContain('civicstream');
      await page.screenshot({ path: path.join(ARTIFACTS, `docs-${service}.png`), fullPage: false });
      expect(existsSync(path.join(ARTIFACTS, `docs-${service}.png`))).toBe(true);
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);
  }
});

describe('explorer page in headless Chromium', () => {
  it('finance: search a government, chart its spending and revenue (nominal or real, total or per resident), link the exact calls', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); }); // CSP refusals land here
    page.on('request', (r) => { if (!r.url().startsWith(financeUrl())) problems.push(`external request: ${r.url()}`); });
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`); });
    await page.goto(`${financeUrl()}/explore/`);
    await page.fill('#q', 'los angeles');
    await page.click('li[data-govid="062037161174"]', { timeout: 10_000 });
    await page.waitForSelector('polyline[data-series="spending"]');
    // One point a year with rows, for each flow, as the API answers them.
    const api = await (await fetch(`${financeUrl()}/api/v1/governments/062037161174/spending?category=All%20Categories`)).json();
    const years = new Set(api.data.map((r: { year: number }) => r.year));
    expect(await page.locator('circle[data-series="spending"]').count()).toBe(years.size);
    expect(await page.locator('circle[data-series="revenue"]').count()).toBeGreaterThan(0);
    await page.selectOption('#adjust', 'real');
    await page.selectOption('#scale', 'per_capita');
    await page.waitForFunction(() => document.querySelector('#links a')?.getAttribute('href')?.includes('adjust=real&per_capita=true'));
    const links = await page.$$eval('#links a', (as) => as.map((a) => a.getAttribute('href')!));
    expect(links).toContain('/api/v1/governments/062037161174/spending?category=All%20Categories&adjust=real&per_capita=true');
    // The CSV link covers the charted years, not the flat route's default (the latest year only).
    expect(links).toContain('/api/v1/spending?govid=062037161174&category=All%20Categories&adjust=real&per_capita=true&years=2011-2020&format=csv');
    for (const l of links) expect((await fetch(`${financeUrl()}${l}`)).status, l).toBe(200);
    expect(await page.textContent('#title')).toContain('LOS ANGELES CITY');
    await page.screenshot({ path: path.join(ARTIFACTS, 'explore-finance.png') });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('school: search a district, chart its estimates with their intervals', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`); });
    const d = (await (await fetch(`${arrestsUrl()}/api/v1/districts?state=DE&limit=1`)).json()).data[0];
    await page.goto(`${arrestsUrl()}/explore/`);
    await page.fill('#q', d.lea_name.slice(0, 12));
    await page.click(`li[data-leaid="${d.leaid}"]`, { timeout: 10_000 });
    await page.waitForSelector('circle[data-series="rate"]');
    const model = await page.inputValue('#model'), race = await page.inputValue('#race'), sex = await page.inputValue('#sex');
    // The default view is a model fitted in every school year, so the chart is a series, not a point.
    const fitted = (await (await fetch(`${arrestsUrl()}/api/v1/models`)).json()).data.find((m: { model: string }) => m.model === model);
    expect(fitted.years_in_mirror.length).toBe(3);
    const est = (await (await fetch(`${arrestsUrl()}/api/v1/estimates/${d.leaid}?model=${model}&interval=95`)).json()).data
      .filter((r: { race: string; sex: string; rate_median: number | null }) => r.race === race && r.sex === sex && r.rate_median !== null);
    expect(est.length).toBeGreaterThan(1);
    expect(await page.locator('circle[data-series="rate"]').count()).toBe(est.length);
    expect(await page.getAttribute('#links a', 'href')).toBe(`/api/v1/estimates/${d.leaid}?model=${model}&interval=95`);
    // Each point carries its interval bar.
    expect(await page.locator('svg line[stroke-opacity]').count()).toBe(est.filter((r: { rate_lower: number | null }) => r.rate_lower !== null).length);
    await page.screenshot({ path: path.join(ARTIFACTS, 'explore-arrests.png') });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
