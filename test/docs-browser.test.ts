// The docs page of both services in a real headless Chromium (Debian's, at
// /usr/bin/chromium; .ci/run installs it when missing): the page renders the
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
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium package (.ci/run does) or set CHROMIUM_PATH`);
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
