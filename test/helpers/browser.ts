// Headless Chromium for the page tests (Debian's, at /usr/bin/chromium; npm test installs it when
// missing, see scripts/ensure-test-tools.mjs). A page opened here records every problem a person
// would not see but should never happen: a page error, a console error (CSP refusals land there),
// a failed request, an answer of 400 or more, a request that leaves the host.

import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from './server.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = path.join(ROOT, 'test-artifacts');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: run 'node scripts/ensure-test-tools.mjs' as root (npm test does) or set CHROMIUM_PATH`);
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

export interface Watched { page: Page; problems: string[] }

/** A new page that records its problems; `allow` lists answers of 400 or more the test provokes on purpose. */
export async function watchedPage(browser: Browser, base: string, viewport = { width: 1280, height: 900 }, allow: (url: string, status: number) => boolean = () => false): Promise<Watched> {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  const host = new URL(base).host;
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('requestfailed', (r) => { if (r.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`); });
  page.on('response', (r) => { if (r.status() >= 400 && !allow(r.url(), r.status())) problems.push(`${r.status()}: ${r.url()}`); });
  page.on('request', (r) => { const u = new URL(r.url()); if (u.protocol !== 'data:' && u.host !== host) problems.push(`external request: ${r.url()}`); });
  return { page, problems };
}

/** A screenshot kept in test-artifacts/ as the run's evidence. */
export async function keepScreenshot(page: Page, name: string, fullPage = false): Promise<string> {
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file, fullPage });
  return file;
}

/**
 * Counts the bytes a page's loads take on the wire (Chromium's encodedDataLength: compressed bodies
 * and their headers), from now on. Call before page.goto; read after the page settles.
 */
export async function weighLoads(page: Page): Promise<() => { bytes: number; byUrl: Map<string, number> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const urls = new Map<string, string>();
  const byUrl = new Map<string, number>();
  cdp.on('Network.requestWillBeSent', (e) => { urls.set(e.requestId, e.request.url); });
  cdp.on('Network.loadingFinished', (e) => {
    const u = urls.get(e.requestId) ?? e.requestId;
    byUrl.set(u, (byUrl.get(u) ?? 0) + e.encodedDataLength);
  });
  return () => ({ bytes: [...byUrl.values()].reduce((a, b) => a + b, 0), byUrl });
}

/** Roles a person operates or reads as one thing: each must have an accessible name. */
const NAMED_ROLES = new Set(['button', 'link', 'textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'img', 'listbox', 'tab', 'slider', 'spinbutton', 'switch']);

/**
 * The controls and images of the page that a screen reader would announce without a name, as
 * "role <tag id=...>": Chromium's own accessibility tree (the names it computes from labels, aria-*,
 * text and titles), not a rule of ours.
 */
export async function unnamedControls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree') as { nodes: { ignored: boolean; role?: { value: string }; name?: { value: string }; backendDOMNodeId?: number }[] };
    const out: string[] = [];
    for (const n of nodes) {
      if (n.ignored || !NAMED_ROLES.has(n.role?.value ?? '') || (n.name?.value ?? '').trim() !== '') continue;
      const d = n.backendDOMNodeId === undefined ? null : await cdp.send('DOM.describeNode', { backendNodeId: n.backendDOMNodeId }) as { node: { localName: string; attributes?: string[] } };
      const attrs = d?.node.attributes ?? [];
      const id = attrs.indexOf('id') >= 0 ? ` id=${attrs[attrs.indexOf('id') + 1]}` : '';
      out.push(`${n.role!.value} <${d?.node.localName ?? '?'}${id}>`);
    }
    return out;
  } finally {
    await cdp.detach();
  }
}
