// Bulk pulls that say what they hold (issue 19): a CSV page carries Link to
// the pages around it and a file name naming the query and the page, so a
// client walking rel="next" gets exactly X-Total-Count rows and a saved page
// cannot pass for the whole answer.

import { describe, expect, it } from 'vitest';
import { shortDigest } from '../dist/src/server/freshness.js';
import { LINK_MAX, pageFileName, pageLinks, withPage } from '../dist/src/server/paging.js';
import { financeClient, linkTarget } from 'civicstream/client';
import { financeUrl } from './helpers/http.js';
import { parseCsv } from './helpers/csv.js';

describe('page links and file names', () => {
  it('sets the page of a canonical URL, wherever page stood', () => {
    expect(withPage('/api/v1/spending?type=city&page=3&limit=10', 4)).toBe('/api/v1/spending?type=city&limit=10&page=4');
    expect(withPage('/api/v1/spending?type=city', 1)).toBe('/api/v1/spending?type=city&page=1');
    expect(withPage('/api/v1/spending', 1)).toBe('/api/v1/spending?page=1');
  });

  it('links first, prev, next and last as they exist', () => {
    const u = '/r?a=1';
    expect(pageLinks(u, 0, 10, 5)).toBeUndefined();
    expect(pageLinks(u, 0, 10, 10)).toBeUndefined();
    expect(pageLinks(u, 0, 10, 11)).toBe('</r?a=1&page=1>; rel="next", </r?a=1&page=1>; rel="last"');
    expect(pageLinks(u, 1, 10, 30)).toBe('</r?a=1&page=0>; rel="first", </r?a=1&page=0>; rel="prev", </r?a=1&page=2>; rel="next", </r?a=1&page=2>; rel="last"');
    expect(pageLinks(u, 2, 10, 30)).toBe('</r?a=1&page=0>; rel="first", </r?a=1&page=1>; rel="prev"');
    // A page past the end points back to the last one.
    expect(pageLinks(u, 9, 10, 30)).toBe('</r?a=1&page=0>; rel="first", </r?a=1&page=2>; rel="prev"');
  });

  it('names a page for its route, query and page, in characters any file system takes', () => {
    expect(pageFileName('spending', '/api/v1/spending?state=CA&type=city&years=2019,2020&format=csv&page=2', 2, 'csv', shortDigest))
      .toBe('attachment; filename="spending_state-CA_type-city_years-2019-2020_page-2.csv"');
    expect(pageFileName('revenue', '/api/v1/revenue?category=Property%20Tax&type=county', 0, 'csv', shortDigest))
      .toBe('attachment; filename="revenue_category-Property-Tax_type-county_page-0.csv"');
    const long = pageFileName('spending', `/api/v1/spending?govid=${Array.from({ length: 60 }, (_, i) => String(100000000000 + i)).join(',')}`, 0, 'csv', shortDigest);
    expect(long).toMatch(/^attachment; filename="spending_govid-[0-9-]+_[A-Za-z0-9_-]{10}_page-0\.csv"$/);
    expect(long.length).toBeLessThan(200);
    expect(pageFileName('spending', '/api/v1/spending?q=%22%3B%0D%0Ax', 0, 'csv', shortDigest)).toBe('attachment; filename="spending_q-x_page-0.csv"');
  });
});

describe('walking a bulk pull by Link', () => {
  it('follows rel="next" from the first page to exactly X-Total-Count rows, the last page linking back only', async () => {
    let url: string | null = `${financeUrl()}/api/v1/revenue?type=city&years=2019,2020&format=csv&limit=20000`;
    let total = -1, rows = 0, pages = 0, lastLink = '';
    const names = new Set<string>();
    while (url !== null) {
      const res: Response = await fetch(url);
      expect(res.status).toBe(200);
      const t = Number(res.headers.get('x-total-count'));
      if (total < 0) total = t; else expect(t).toBe(total);
      rows += (await parseCsv(await res.text())).length - 1;
      names.add(String(res.headers.get('content-disposition')));
      lastLink = res.headers.get('link') ?? '';
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.headers.get('link') ?? '').toBe(lastLink);
      const next = linkTarget(res.headers.get('link'), 'next');
      url = next === null ? null : new URL(next, url).href;
      pages++;
    }
    expect(total).toBeGreaterThan(40_000);
    expect(rows).toBe(total);
    expect(pages).toBe(Math.ceil(total / 20000));
    expect(names.size).toBe(pages);
    expect(lastLink).toContain('rel="prev"');
    expect(lastLink).not.toContain('rel="next"');
  });

  it('gives a single page no Link, and still its file name', async () => {
    const res = await fetch(`${financeUrl()}/api/v1/spending?state=DE&type=city&years=2020&format=csv`);
    expect(Number(res.headers.get('x-total-count'))).toBeLessThan(50_000);
    expect(res.headers.get('link')).toBeNull();
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="spending_state-DE_type-city_years-2020_page-0.csv"');
    expect(res.headers.get('access-control-expose-headers')).toContain('Link');
    await res.arrayBuffer();
  });
});

describe('a query too long for a Link header', () => {
  it('carries no Link past 4 KB (a long govid list), and the client walks it by X-Page, X-Limit and X-Total-Count to exactly its rows', async () => {
    const long = `/api/v1/spending?govid=${Array.from({ length: 400 }, (_, i) => String(100000000000 + i)).join(',')}`;
    expect(pageLinks(long, 0, 10, 100)).toBeUndefined();
    expect(pageLinks('/r?a=1', 0, 10, 100)!.length).toBeLessThan(LINK_MAX);
    // 300 real governments: their URL is about 4 KB, so each Link entry alone is near the cap.
    const govs: string[] = (await (await fetch(`${financeUrl()}/api/v1/governments?limit=300`)).json()).data.map((g: { canonical_govid: string }) => g.canonical_govid);
    const q = { govid: govs.join(','), years: '2020', category: 'Police', limit: 100 };
    const first = await fetch(`${financeUrl()}/api/v1/spending?${new URLSearchParams({ ...q, limit: '100', format: 'csv' })}`);
    await first.arrayBuffer();
    const total = Number(first.headers.get('x-total-count'));
    expect(total).toBeGreaterThan(300);
    expect(first.headers.get('link')).toBeNull();
    let rows = 0;
    for await (const _ of financeClient(financeUrl()).csv('/api/v1/spending', q)) rows++;
    expect(rows).toBe(total);
  });
});

