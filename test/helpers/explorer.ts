// The finance explorer's tests share one way to drive it: a Chromium per test
// file, a page opened on a view and waited for until its draw is done (the page
// counts finished draws on body[data-drawn] and marks body[data-busy] while a
// draw is pending), and an action that redraws waited for the same way. Kept
// here so each file of explorer tests says only what it checks.

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser, watchedPage } from './browser.js';
import { financeUrl } from './http.js';

/** A finance API answer, parsed (the expected values the pages are checked against). */
export const api = async (p: string): Promise<any> => (await fetch(`${financeUrl()}${p}`)).json();
export const text = (page: Page, sel: string): Promise<string> => page.$eval(sel, (e) => e.textContent ?? '');
export const count = (page: Page, sel: string): Promise<number> => page.$$eval(sel, (els) => els.length);
const drawnCount = (page: Page): Promise<number> => page.evaluate(() => Number(document.body.dataset.drawn ?? 0));

/** Waits until the page has finished a draw after `n` finished ones. */
export async function settled(page: Page, n = 0): Promise<void> {
  await page.waitForFunction((k) => Number(document.body.dataset.drawn ?? 0) > k && !document.body.dataset.busy, n, { timeout: 20_000 });
}

/** Does something that redraws the page, and waits for that draw. */
export async function act(page: Page, what: () => Promise<unknown>): Promise<void> {
  const n = await drawnCount(page);
  await what();
  await settled(page, n);
}

export interface Explorer {
  /** The file's browser (launched before its first test). */
  browser(): Browser;
  /** The finance explorer opened on a view (`path` is its query string), once drawn; problems lists what went wrong on the page. */
  open(path: string, viewport?: { width: number; height: number }): ReturnType<typeof watchedPage>;
}

/** One browser for the calling test file, closed after its last test. Call at the file's top level. */
export function explorerBrowser(): Explorer {
  let browser: Browser;
  beforeAll(async () => { browser = await launchBrowser(); }, 60_000);
  afterAll(async () => { await browser?.close(); });
  return {
    browser: () => browser,
    async open(path, viewport) {
      const w = await watchedPage(browser, financeUrl(), viewport);
      await w.page.goto(`${financeUrl()}/explore/${path}`);
      await settled(w.page);
      return w;
    },
  };
}
