// The docs page of both services in a real headless Chromium (test/helpers/browser.ts; the
// explorers have their own files, explore-*.test.ts): the page renders the
// generated OpenAPI, every declared route is listed, and a screenshot is kept
// in test-artifacts/ as the run's evidence. Every control has an accessible name.

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchBrowser, unnamedControls } from './helpers/browser.js';
import { arrestsUrl, financeUrl } from './helpers/http.js';

let browser: Browser;

beforeAll(async () => { browser = await launchBrowser(); }, 60_000);
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
      // Every control has a name a screen reader announces, an operation opened and tried out too
      // (Swagger UI's server list had none: init.js names it).
      await page.click('.opblock-summary');
      await page.click('.try-out__btn');
      await page.waitForSelector('.execute');
      expect(await unnamedControls(page)).toEqual([]);
      expect(await page.title()).toContain('civicstream');
      await page.screenshot({ path: path.join(ARTIFACTS, `docs-${service}.png`), fullPage: false });
      expect(existsSync(path.join(ARTIFACTS, `docs-${service}.png`))).toBe(true);
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);
  }
});
