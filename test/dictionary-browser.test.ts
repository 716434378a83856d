// The data dictionary page in headless Chromium (issue 31, item 7): at a
// phone's width no error code and no table header is broken inside a word
// (it read E_REPEATED_KE/Y and "HT TP sta tus"); the table scrolls sideways in
// its own box, never the page; the contents link to every section and every
// entry, and stay in view on a desktop.

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepScreenshot, launchBrowser, watchedPage } from './helpers/browser.js';
import { arrestsUrl, financeUrl } from './helpers/http.js';

let browser: Browser;
beforeAll(async () => { browser = await launchBrowser(); }, 60_000);
afterAll(async () => { await browser?.close(); });

/**
 * The words of the selected elements that are laid out on more than one line: each word's text is
 * measured by a Range, whose client rects are one per line box it spans (distinct tops).
 */
function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.$$eval(selector, (els) => {
    const broken: string[] = [];
    for (const el of els) {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
        const text = n.textContent ?? '';
        for (const m of text.matchAll(/\S+/g)) {
          const r = document.createRange();
          r.setStart(n, m.index!);
          r.setEnd(n, m.index! + m[0].length);
          const tops = new Set([...r.getClientRects()].filter((b) => b.width > 0).map((b) => Math.round(b.top)));
          if (tops.size > 1) broken.push(m[0]);
        }
      }
    }
    return broken;
  });
}

describe('the data dictionary page', () => {
  for (const [name, base] of [['finance', financeUrl], ['arrests', arrestsUrl]] as const) {
    it(`${name}: at 390 px no error code or table header breaks inside a word, and the table scrolls in its box, not the page`, async () => {
      const { page, problems } = await watchedPage(browser, base(), { width: 390, height: 844 });
      await page.goto(`${base()}/api/v1/data-dictionary`, { waitUntil: 'load' });
      expect(await page.locator('table.errors tbody tr').count()).toBeGreaterThan(5);
      expect(await brokenWords(page, 'table.errors th')).toEqual([]);
      expect(await brokenWords(page, 'table.errors td:first-child code')).toEqual([]);
      // Every code cell is a single line.
      const lines = await page.$$eval('table.errors td:first-child code', (cs) => cs.map((c) => c.getClientRects().length));
      expect(lines.every((n) => n === 1)).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const box = await page.$eval('table.errors', (t) => { const s = getComputedStyle(t.parentElement!); return [s.overflowX, t.parentElement!.clientWidth <= 390]; });
      expect(box).toEqual(['auto', true]);
      await page.$eval('table.errors', (t) => t.scrollIntoView());
      await keepScreenshot(page, `data-dictionary-${name}-phone-errors.png`);
      expect(problems).toEqual([]);
      await page.close();
    });

    it(`${name}: the contents link to every section, each section's index to every entry; on a desktop the contents stay in view`, async () => {
      const { page, problems } = await watchedPage(browser, base());
      await page.goto(`${base()}/api/v1/data-dictionary`, { waitUntil: 'load' });
      const sections = await page.$$eval('main section', (ss) => ss.map((s) => s.id));
      expect(sections.length).toBeGreaterThanOrEqual(4);
      const toc = await page.$$eval('nav.toc a', (as) => as.map((a) => a.getAttribute('href')));
      expect(toc).toEqual(sections.map((s) => `#${s}`));
      // Every entry (a dt or an error row with an id) is linked from its section's index, and only those.
      for (const s of sections) {
        const entries = await page.$$eval(`#${s} dl.entries > dt, #${s} table.errors tbody tr`, (es) => es.map((e) => `#${e.id}`));
        const index = await page.$$eval(`#${s} details.index a`, (as) => as.map((a) => a.getAttribute('href')));
        expect(index, s).toEqual(entries);
      }
      // Following each link of the contents lands on its section, with the contents still on screen.
      for (const s of [...sections].reverse()) {
        await page.click(`nav.toc a[href="#${s}"]`);
        expect(await page.evaluate(() => document.querySelector(':target')?.id)).toBe(s);
        const [tocBox, heading] = await Promise.all([page.locator('nav.toc').boundingBox(), page.locator(`#${s} h2`).boundingBox()]);
        expect(tocBox!.y).toBeGreaterThanOrEqual(-1);
        expect(tocBox!.y).toBeLessThan(5);
        // The heading lands below the contents, not under them.
        expect(heading!.y).toBeGreaterThanOrEqual(tocBox!.y + tocBox!.height - 1);
      }
      // An entry from a folded index: open it, follow a link.
      await page.click('#decision details.index summary');
      const link = page.locator('#decision details.index a').nth(3);
      const href = await link.getAttribute('href');
      await link.click();
      expect(await page.evaluate(() => document.querySelector(':target')?.id)).toBe(href!.slice(1));
      await keepScreenshot(page, `data-dictionary-${name}-desktop.png`);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
