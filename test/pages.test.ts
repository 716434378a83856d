// The server's own pages for people: the landing page at / and the data dictionary answer a page to a
// browser (its Accept prefers text/html, or format=html) and JSON to any other client, on both services.

import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../dist/src/server/errors.js';
import { arrestsUrl, financeUrl, get } from './helpers/http.js';

const BROWSER = { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8' };
const services = [['finance', financeUrl], ['arrests', arrestsUrl]] as const;
const hrefs = (html: string): string[] => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));

describe('landing page at /', () => {
  for (const [name, base] of services) {
    it(`${name}: a browser gets the page: scope from the live data, the ways in, examples; every link answers`, async () => {
      const page = await get('/', { headers: BROWSER }, base());
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('vary')).toBe('Accept, Accept-Encoding');
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      const info = (await get('/api/v1/', undefined, base())).body.data[0];
      if (name === 'finance') {
        for (const y of info.published_years) expect(page.text).toContain(String(y));
        expect(page.text).toContain('2012-2018 (gaps, never zeros)');
        expect(page.text).toContain('href="/api/v1/bulk"');
        expect(page.text).not.toContain('class="banner synthetic"');
      } else {
        expect(info.synthetic).toBe(true);
        expect(page.text).toContain('class="banner synthetic"');
        expect(page.text).toContain('SYNTHETIC');
      }
      const links = hrefs(page.text);
      for (const must of ['/explore/', '/__docs__/', '/api/v1/data-dictionary', '/api/v1/examples', '/api/v1/llms.txt', '/favicon.svg']) expect(links).toContain(must);
      const examples = links.filter((l) => l.startsWith('/api/v1/') && l.includes('?'));
      expect(examples.length).toBeGreaterThan(2);
      for (const l of new Set(links)) {
        const r = await get(l, undefined, base());
        expect(r.status, l).toBe(200);
        if (examples.includes(l)) expect(r.body.data.length, l).toBeGreaterThan(0);
      }
    });

    it(`${name}: any other client gets a JSON index in the envelope, the same links`, async () => {
      for (const headers of [{}, { Accept: '*/*' }, { Accept: 'application/json' }]) {
        const r = await get('/', { headers }, base());
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(r.body.status).toBe('success');
        const [index] = r.body.data;
        expect(index.synthetic).toBe(name === 'arrests');
        expect(index.links).toMatchObject({ explorer: '/explore/', api_docs: '/__docs__/', data_dictionary: '/api/v1/data-dictionary', openapi: '/openapi.json' });
        for (const l of Object.values(index.links) as string[]) expect((await get(l, undefined, base())).status, l).toBe(200);
      }
      expect((await get('/?format=html', undefined, base())).headers.get('content-type')).toContain('text/html');
      expect((await get('/?format=xml', undefined, base())).status).toBe(400);
      expect((await get('/', undefined, base())).headers.get('vary')).toBe('Accept, Accept-Encoding');
    });

    it(`${name}: a link's tracking keys (utm_source, fbclid) do not break the pages people reach by links; data routes still refuse unknown keys`, async () => {
      for (const p of ['/?utm_source=newsletter&fbclid=abc', '/api/v1/data-dictionary?utm_campaign=x']) {
        const page = await get(p, { headers: BROWSER }, base());
        expect([page.status, page.headers.get('content-type')], p).toEqual([200, 'text/html; charset=utf-8']);
        const json = await get(p, undefined, base());
        expect([json.status, json.body.status], p).toEqual([200, 'success']);
        expect(json.headers.get('vary'), p).toBe('Accept, Accept-Encoding');
      }
      expect((await get('/api/v1/?utm_source=x', undefined, base())).body.meta.error_code).toBe('E_UNKNOWN_KEY');
    });

    it(`${name}: every HTML page carries Referrer-Policy: same-origin (a link to another site sends no Referer), and the CSP`, async () => {
      for (const p of ['/', '/api/v1/data-dictionary', '/__docs__/', '/explore/']) {
        const page = await get(p, { headers: BROWSER }, base());
        expect([page.status, page.headers.get('content-type')], p).toEqual([200, 'text/html; charset=utf-8']);
        expect(page.headers.get('referrer-policy'), p).toBe('same-origin');
        expect(page.headers.get('content-security-policy'), p).toContain("frame-ancestors 'none'");
      }
    });

    it(`${name}: a favicon`, async () => {
      for (const p of ['/favicon.svg', '/favicon.ico']) {
        const r = await get(p, undefined, base());
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toBe('image/svg+xml');
        expect(r.text).toMatch(/^<svg /);
      }
    });
  }
});

describe('data dictionary for people', () => {
  for (const [name, base] of services) {
    it(`${name}: a browser gets sections with anchors and the error catalog as a table; others get the rows as JSON`, async () => {
      const json = await get('/api/v1/data-dictionary', undefined, base());
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const rows = json.body.data as { section: string; name: string; description: string }[];
      const page = await get('/api/v1/data-dictionary', { headers: BROWSER }, base());
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      for (const s of new Set(rows.map((r) => r.section))) expect(page.text).toContain(`<section id="${s}">`);
      // Every entry is on the page under an anchor of its section.
      const ids = new Set([...page.text.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!));
      for (const r of rows) {
        const slug = r.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
        expect(ids.has(`${r.section}-${slug}`), `${r.section} ${r.name}`).toBe(true);
      }
      expect(ids.size).toBeGreaterThanOrEqual(rows.length);
      // The error catalog, code by code, as table rows with their status: this service's codes (error-services.test.ts says which).
      const table = page.text.slice(page.text.indexOf('<table class="errors">'), page.text.indexOf('</table>'));
      const codes = rows.filter((r) => r.section === 'error').map((r) => r.name);
      expect(codes.length).toBeGreaterThan(15);
      for (const code of codes) expect(table).toContain(`<td><code>${code}</code></td><td>${ERROR_CATALOG[code as keyof typeof ERROR_CATALOG].status}</td>`);
      expect([...table.matchAll(/<td><code>E_/g)]).toHaveLength(codes.length);
      expect(page.text).toContain('href="/api/v1/data-dictionary?format=json"');
      expect((await get('/api/v1/data-dictionary?format=json', { headers: BROWSER }, base())).body.data).toEqual(rows);
      if (name === 'arrests') expect(page.text).toContain('class="banner synthetic"');
    });
  }

  it('escapes what it shows: no entry text is read as markup', async () => {
    const page = await get('/api/v1/data-dictionary?format=html');
    const rows = (await get('/api/v1/data-dictionary')).body.data as { description: string }[];
    const withAngle = rows.find((r) => r.description.includes('<'));
    expect(withAngle).toBeDefined();
    expect(page.text).not.toContain(withAngle!.description);
    expect(page.text).toContain(withAngle!.description.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;'));
  });
});

describe('llms.txt links', () => {
  for (const [name, base] of services) {
    it(`${name}: every link answers 200; the dictionary and the landing page are pages to a browser and JSON to a script`, async () => {
      const text = (await get('/api/v1/llms.txt', undefined, base())).text;
      const links = [...new Set([...text.matchAll(/\]\((\/[^)]*)\)/g)].map((m) => m[1]!))];
      for (const must of ['/', '/explore/', '/api/v1/data-dictionary', '/openapi.json', '/__docs__/']) expect(links).toContain(must);
      for (const l of links) {
        const script = await get(l, undefined, base());
        const browser = await get(l, { headers: BROWSER }, base());
        expect([script.status, browser.status], l).toEqual([200, 200]);
        if (l === '/' || l === '/api/v1/data-dictionary') {
          expect(script.headers.get('content-type'), l).toBe('application/json; charset=utf-8');
          expect(browser.headers.get('content-type'), l).toBe('text/html; charset=utf-8');
        }
      }
    });
  }
});
