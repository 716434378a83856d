// The landing page and the data dictionary in headless Chromium, as a person meets them: the page a
// browser gets at /, its links followed, the dictionary's sections and error table, at desktop and
// phone widths, with no failed request, no console error and nothing fetched from another host.

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../dist/src/server/errors.js';
import { keepScreenshot, launchBrowser, unnamedControls, watchedPage } from './helpers/browser.js';
import { arrestsUrl, financeUrl } from './helpers/http.js';

let browser: Browser;
beforeAll(async () => { browser = await launchBrowser(); }, 60_000);
afterAll(async () => { await browser?.close(); });

describe('landing page in a browser', () => {
  for (const [name, base] of [['finance', financeUrl], ['arrests', arrestsUrl]] as const) {
    it(`${name}: / is a page with the scope and the ways in; its Explorer link opens the explorer; it fits a phone`, async () => {
      const { page, problems } = await watchedPage(browser, base());
      await page.goto(`${base()}/`);
      const info = await (await fetch(`${base()}/api/v1/`)).json();
      expect(await page.textContent('h1')).toBe(info.data[0].title);
      expect(await page.locator('dl.facts dt').count()).toBeGreaterThanOrEqual(4);
      // The banner is there exactly while the mirror is synthetic.
      expect(await page.locator('.banner.synthetic').count()).toBe(info.data[0].synthetic ? 1 : 0);
      expect(await page.locator('.examples a').count()).toBeGreaterThan(2);
      // The stylesheet applied (not blocked by the CSP): the header is laid out as a flex row.
      expect(await page.$eval('header.site', (h) => getComputedStyle(h).display)).toBe('flex');
      expect(await page.$eval('link[rel=icon]', (l) => (l as HTMLLinkElement).href)).toBe(`${base()}/favicon.svg`);
      await keepScreenshot(page, `landing-${name}.png`, true);
      expect(await unnamedControls(page)).toEqual([]);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await keepScreenshot(page, `landing-${name}-phone.png`);
      await page.click('main a[href="/explore/"]');
      await page.waitForURL(`${base()}/explore/`);
      await page.goBack();
      expect(await page.textContent('h1')).toBe(info.data[0].title);
      expect(problems).toEqual([]);
      await page.close();
    });
  }

  it('finance: the data dictionary link opens a page of sections, its error catalog a table row per code; an anchor link lands on its entry', async () => {
    const { page, problems } = await watchedPage(browser, financeUrl());
    await page.goto(`${financeUrl()}/`);
    await page.click('header.site a[href="/api/v1/data-dictionary"]');
    await page.waitForSelector('table.errors');
    expect(await page.textContent('h1')).toBe('Data dictionary');
    // The finance service's codes: all but the school's own (error-services.test.ts checks the marks against the source).
    expect(await page.locator('table.errors tbody tr').count()).toBe(Object.values(ERROR_CATALOG).filter((e) => (e as { service?: string }).service !== 'arrests').length);
    expect(await page.locator('section').count()).toBeGreaterThanOrEqual(6);
    await page.click('nav.toc a[href="#error"]');
    expect(new URL(page.url()).hash).toBe('#error');
    const anchor = page.locator('dl.entries a.anchor').first();
    const href = await anchor.getAttribute('href');
    await anchor.click();
    expect(await page.evaluate(() => document.querySelector(':target')?.id)).toBe(href!.slice(1));
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await keepScreenshot(page, 'data-dictionary-finance.png');
    expect(problems).toEqual([]);
    await page.close();
  });
});
