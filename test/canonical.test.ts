// One request, one identity (issue 23, finding 5): spellings of one query
// (`?&&&`, reordered keys, `+` or `%20`, `%2C` or `,`) share one ETag, one
// response-cache entry and the `call` that provenance echoes; the CSV
// row-count memo is keyed by a fixed-size digest, so long govid lists cannot
// grow it past its bound; and HEAD on a CSV pull counts, but writes no page
// (finding 1).

import { describe, expect, it } from 'vitest';
import { financeService } from '../dist/src/finance/http/service.js';
import { readConfig } from '../dist/src/config.js';
import { inject } from '../dist/src/server/inject.js';
import { useFixtureCtx } from './helpers/fixture-ctx.js';
import { arrestsUrl } from './helpers/http.js';

const ctx = useFixtureCtx();
const config = readConfig({ ...process.env, FINANCE_DATA: 'fixtures/finance/v6', RESPONSE_CACHE_MB: '8' });

type Body = { provenance: { call: string } | null };

describe('the canonical request', () => {
  const G = '/api/v1/governments/062037161174/spending';
  const spellings = [
    `${G}?category=Parks%20%26%20Recreation&years=2011,2019`,
    `${G}?years=2011%2C2019&category=Parks+%26+Recreation`,
    `${G}?&&years=2011,2019&&&category=Parks%20%26%20Recreation&`,
    `${G}/?category=Parks %26 Recreation&years=2011,2019`,
    // Spaces around a value, and around a list's commas (the one query parser drops them).
    `${G}?years=%202011%20,%202019%09&category=%20Parks%20%26%20Recreation%20`,
    // Another case of a case-insensitive value: the name is written as the table spells it.
    `${G}?years=2011,2019&category=parks%20%26%20RECREATION`,
  ];

  it('spellings of one query are one ETag, one cache entry and one call', async () => {
    const s = financeService(ctx(), config);
    const answers = [];
    for (const url of spellings) answers.push(await inject(s, url));
    for (const a of answers) expect(a.status).toBe(200);
    expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(1);
    expect(answers.map((a) => a.headers['x-cache'])).toEqual(['miss', 'hit', 'hit', 'hit', 'hit', 'hit']);
    expect(new Set(answers.map((a) => a.body.toString('base64'))).size).toBe(1);
    // The call names the query in declaration order (years before category on this route), one spelling.
    expect(answers[0]!.json<Body>().provenance!.call).toBe(`${G}?years=2011,2019&category=Parks%20%26%20Recreation`);
    expect(s.cache!.stats().entries).toBe(1);
  });

  it('spaces around any value are dropped, as around list items: a single value parses, and names one request', async () => {
    const s = financeService(ctx(), config);
    const plain = await inject(s, '/api/v1/spending?type=city&state=CA&limit=5&page=1&adjust=real&format=csv');
    const spaced = await inject(s, '/api/v1/spending?type=%20city&state=CA%20&limit=%205&page=1%09&adjust=+real+&format=%20csv');
    expect([plain.status, spaced.status]).toEqual([200, 200]);
    expect(spaced.headers.etag).toBe(plain.headers.etag);
    expect(spaced.body.equals(plain.body)).toBe(true);
    expect(plain.body.toString().split('\n').filter(Boolean)).toHaveLength(6);
    // Inside a value, spaces stay: a category's own space, and a text of only spaces is empty.
    expect((await inject(s, '/api/v1/spending?state=CA&category=Parks%20%20%26%20Recreation')).status).toBe(400);
    // Free text is a literal substring, its edge spaces included: ' park' is not 'park' (PARKERSBURG, say).
    const spacedQ = await inject(s, '/api/v1/governments?q=%20park&limit=1000');
    const plainQ = await inject(s, '/api/v1/governments?q=park&limit=1000');
    type Names = { data: { gov_name: string }[]; meta: { q: string } };
    expect(spacedQ.json<Names>().meta.q).toBe(' park');
    expect(spacedQ.headers.etag).not.toBe(plainQ.headers.etag);
    const names = plainQ.json<Names>().data.map((r) => r.gov_name);
    expect(spacedQ.json<Names>().data.map((r) => r.gov_name)).toEqual(names.filter((n) => n.toLowerCase().includes(' park')));
    expect(names.some((n) => !n.toLowerCase().includes(' park'))).toBe(true);
  });

  it('a case-insensitive value is one request in any case or alias: the call names it as the answer reads it', async () => {
    const s = financeService(ctx(), config);
    const want = '/api/v1/spending?state=CA&type=city&adjust=real&per_capita=true&limit=5&category=Police,Fire';
    const asked = [
      want,
      '/api/v1/spending?state=ca&type=CITY&adjust=Real&per_capita=TRUE&limit=5&category=police,FIRE',
      '/api/v1/spending?state=cA&type=2&adjust=real&per_capita=true&limit=5&category=Police,fire,POLICE',
    ];
    const answers = [];
    for (const url of asked) answers.push(await inject(s, url));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(1);
    expect(answers.map((a) => a.headers['x-cache'])).toEqual(['miss', 'hit', 'hit']);
    expect(answers[0]!.json<Body>().provenance!.call).toBe(want);
    // A value that is not one of them is still refused, whatever the spelling stage would do.
    expect((await inject(s, '/api/v1/spending?state=ca&type=burg')).status).toBe(400);
  });

  it('a different query is a different ETag', async () => {
    const s = financeService(ctx(), config);
    const a = await inject(s, `${G}?category=Parks%20%26%20Recreation&years=2011`);
    const b = await inject(s, `${G}?category=Parks%20%26%20Recreation&years=2019`);
    expect(a.headers.etag).not.toBe(b.headers.etag);
  });

  it('the school service canonicalizes the same way (over HTTP)', async () => {
    const base = arrestsUrl();
    const a = await fetch(`${base}/api/v1/states?year=21-22&model=unified_m2`);
    const b = await fetch(`${base}/api/v1/states?&&model=UNIFIED_M2&year=21-22&`);
    expect(a.status).toBe(200);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    const [ta, tb] = [await a.text(), await b.text()];
    expect(tb).toBe(ta);
    expect((JSON.parse(ta) as Body).provenance!.call).toMatch(/^\/api\/v1\/states\?/);
  });
});

describe('the CSV row-count memo', () => {
  it('keys long govid lists by a fixed-size digest, and stays within its entries', async () => {
    const c = ctx();
    const s = financeService(c, { ...config, responseCacheMb: 0 });
    const govids = c.catalog.governments.slice(0, 600).map((g) => g.canonical_govid);
    c.counts.clear();
    for (let i = 0; i < 3; i++) {
      // Each a distinct query: a different category each time.
      const r = await inject(s, `/api/v1/spending?govid=${govids.join(',')}&format=csv&limit=1&category=${['Police', 'Fire', 'Highways'][i]}`);
      expect(r.status).toBe(200);
    }
    expect(c.counts.size).toBe(3);
    for (const k of c.counts.keys()) expect(k).toMatch(/^[A-Za-z0-9_-]{27}$/);
  });
});

describe('HEAD on a CSV pull', () => {
  it('sends the GET headers (the total counted) and writes no page', async () => {
    const c = ctx();
    const s = financeService(c, { ...config, responseCacheMb: 0 });
    c.counts.clear();
    const url = '/api/v1/spending?state=NH&type=city&years=2011-2020&format=csv&limit=10&page=1';
    const before = [c.pages.leased, c.pages.refused];
    const head = await inject(s, url, { method: 'HEAD' });
    // No page job ran: no page slot was asked for (a pull that finds none free is counted as refused).
    expect([c.pages.leased, c.pages.refused]).toEqual(before);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const get = await inject(s, url);
    for (const h of ['content-type', 'x-total-count', 'x-page', 'x-limit', 'etag']) expect(head.headers[h], h).toBe(get.headers[h]);
    expect(Number(head.headers['x-total-count'])).toBeGreaterThan(10);
  });
});
