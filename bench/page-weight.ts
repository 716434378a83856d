// What the pages weigh on the wire (issue 21: the explorer's first load under 500 KB compressed, map
// boundaries included). Loads each page in headless Chromium (Debian's, as the tests use) and adds up
// every response's encodedDataLength (compressed body and headers), by file; then the boundaries a map
// loads on top, for the largest state file. Writes bench/results/page-weight.md.
//
//   npm run bench:page-weight

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { ROOT, startServer } from '../scripts/lib/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;

async function weigh(page: Page, url: string): Promise<Map<string, number>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const urls = new Map<string, string>();
  const by = new Map<string, number>();
  cdp.on('Network.requestWillBeSent', (e) => { urls.set(e.requestId, e.request.url); });
  cdp.on('Network.loadingFinished', (e) => { const u = urls.get(e.requestId) ?? e.requestId; by.set(u, (by.get(u) ?? 0) + e.encodedDataLength); });
  await page.goto(url, { waitUntil: 'networkidle' });
  await cdp.detach();
  return by;
}

/** A geo file's bytes as a browser gets it (brotli), from the server's own compression. */
async function coded(url: string): Promise<number> {
  const r = await fetch(url, { headers: { 'Accept-Encoding': 'br' } });
  return Number(r.headers.get('content-length') ?? (await r.arrayBuffer()).byteLength);
}

const s = await startServer({}, 600_000);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const lines: string[] = ['# Page weight', '', `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:page-weight\`: Chromium's encodedDataLength of every response of a first load (no cache), compressed as the server sends it (brotli). Target: an explorer's first load under 500 KB, map boundaries included.`, ''];
try {
  for (const [name, url] of [['finance landing', `${s.url}/`], ['finance explorer', `${s.url}/explore/`], ['school landing', `${s.arrestsUrl}/`], ['school explorer', `${s.arrestsUrl}/explore/`], ['finance data dictionary', `${s.url}/api/v1/data-dictionary`]] as const) {
    const page = await browser.newPage();
    const by = await weigh(page, url);
    await page.close();
    const total = [...by.values()].reduce((a, b) => a + b, 0);
    lines.push(`## ${name}: ${kb(total)} (${by.size} requests)`, '', '| file | on the wire |', '|---|---:|');
    for (const [u, n] of [...by].sort((a, b) => b[1] - a[1])) lines.push(`| ${new URL(u).pathname}${new URL(u).search} | ${kb(n)} |`);
    lines.push('');
    console.log(`${name}: ${kb(total)} in ${by.size} requests`);
  }
  // A state's county map loads that state's boundaries on top of the first load: the largest of them.
  const sizes = await Promise.all(Array.from({ length: 79 }, (_, k) => String(k + 1).padStart(2, '0')).map(async (f) => {
    const r = await fetch(`${s.url}/explore/geo/counties-${f}.json`, { method: 'HEAD' });
    return r.status === 200 ? { f, n: await coded(`${s.url}/explore/geo/counties-${f}.json`) } : null;
  }));
  const found = sizes.filter((x): x is { f: string; n: number } => x !== null).sort((a, b) => b.n - a.n);
  lines.push('## County boundaries a state map adds', '', `${found.length} states; the largest (brotli): ${found.slice(0, 3).map((x) => `${x.f} ${kb(x.n)}`).join(', ')}; the states file ${kb(await coded(`${s.url}/explore/geo/states.json`))}.`, '');
  console.log(`largest county file ${found[0]!.f}: ${kb(found[0]!.n)}`);
} finally {
  await browser.close();
  await s.stop();
}
writeFileSync(path.join(ROOT, 'bench/results/page-weight.md'), `${lines.join('\n')}\n`);
