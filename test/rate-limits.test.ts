// Per-client rate limits over HTTP (issue 20): a client past its bucket gets
// 429 envelopes with Retry-After and the IETF headers while the next client
// is still served; bulk pages cost by the rows they ask; X-Forwarded-For is
// believed only from a trusted proxy; the operator's routes are never
// charged; the limits are on by default; the typed client waits out a 429.
// Clients are told apart by their source address: Linux answers the whole of
// 127.0.0.0/8 on loopback, so a request bound to 127.0.0.2 is another client.

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { financeClient } from 'civicstream/client';
import { bucketKey } from '../dist/src/server/rate-stage.js';
import { startServer, type Running } from './helpers/server.js';

interface Got { status: number; headers: http.IncomingHttpHeaders; body: string }

function get(base: string, path: string, o: { from?: string; headers?: Record<string, string>; method?: string } = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { agent: false, localAddress: o.from ?? '127.0.0.1', headers: o.headers, method: o.method ?? 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The r (remaining) of a RateLimit header: "default";r=7;t=1. */
const remaining = (g: Got): number => Number(/;r=(\d+)/.exec(String(g.headers.ratelimit))?.[1]);
const SMALL = '/api/v1/governments?q=springfield&limit=2';
/**
 * n requests at once (made by make(i)). The bucket refills at 2 tokens a second: requests sent one after another
 * on a machine busy with other test files can be slow enough for the refill to keep up, so the bursts that must
 * empty a bucket are sent together, and the counts allow what a second's refill adds.
 */
const burst = (n: number, make: (i: number) => Promise<Got>): Promise<Got[]> => Promise.all(Array.from({ length: n }, (_, i) => make(i)));
const count = (gs: Got[], status: number): number => gs.filter((g) => g.status === status).length;

describe('rate limits', () => {
  let s: Running;
  // 2 tokens a second, 10 at once: slow enough that a test's few dozen requests do not refill much.
  beforeAll(async () => { s = await startServer({ RATE_LIMIT: '2', RATE_LIMIT_BURST: '10', FRONT_THREADS: '2', TRUST_PROXY: '127.0.0.9' }); });
  afterAll(async () => { await s?.stop(); });

  it('answers a client past its limit 429 with Retry-After and the RateLimit headers, over both front threads; the next client is served', async () => {
    const all = await burst(14, () => get(s.url, SMALL, { from: '127.0.0.2' }));
    // A bad request costs a token too, and is refused once the bucket is empty (asked at once, before a refill).
    const bad = await get(s.url, '/api/v1/no-such-route', { from: '127.0.0.2' });
    for (const g of all) expect(g.headers['ratelimit-policy']).toBe('"default";q=10;w=5');
    expect(new Set(all.map((g) => g.status))).toEqual(new Set([200, 429]));
    const refused = all.find((g) => g.status === 429);
    // One bucket for the process, whichever thread answered: 10 (a token may refill meanwhile), never 10 per thread.
    expect(count(all, 200)).toBeGreaterThanOrEqual(10);
    expect(count(all, 200)).toBeLessThanOrEqual(12);
    expect(refused).toBeDefined();
    const env = JSON.parse(refused!.body);
    expect(env.status).toBe('error');
    expect(env.meta.error_code).toBe('E_RATE_LIMITED');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused!.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
    // Another client is served meanwhile, with a full bucket.
    const other = await get(s.url, SMALL, { from: '127.0.0.3' });
    expect(other.status).toBe(200);
    expect(remaining(other)).toBe(9);
    expect(bad.status).toBe(429);
  });

  it('each service\'s 429 names its own cheaper way: the school service has no /api/v1/bulk to send a client to', async () => {
    const all = await burst(14, () => get(s.arrestsUrl, '/api/v1/districts?state=NH&limit=2', { from: '127.0.0.20' }));
    const refused = all.find((g) => g.status === 429);
    expect(refused).toBeDefined();
    const error: string = JSON.parse(refused!.body).error;
    expect(error).toContain('fewer, larger pages');
    expect(error).not.toContain('/api/v1/bulk');
    expect((await get(s.arrestsUrl, '/api/v1/bulk', { from: '127.0.0.21' })).status).toBe(404);
  });

  it('charges a bulk page by the rows it asks: 1, and 1 more per 10,000', async () => {
    const a = await get(s.url, SMALL, { from: '127.0.0.4' });
    // Two pages at once with 9 tokens left: one is served, the other's 6 are refused.
    const pages = await burst(2, () => get(s.url, '/api/v1/spending?type=state&years=2019&format=csv&limit=50000', { from: '127.0.0.4' }));
    expect(pages.map((g) => g.status).sort()).toEqual([200, 429]);
    const b = pages.find((g) => g.status === 200)!;
    // 9 left after the first; the page costs 6 (a token may have refilled between them).
    expect(remaining(a) - remaining(b)).toBeGreaterThanOrEqual(5);
    expect(remaining(a) - remaining(b)).toBeLessThanOrEqual(6);
  });

  it('a revalidation answered 304 costs a tenth of a token; a HEAD costs 1, a HEAD of a 50,000-row page too', async () => {
    // A bucket of 10: 30 revalidations of a data route and 20 of a docs page (5 tokens) are all answered 304.
    const first = await get(s.url, SMALL, { from: '127.0.0.7' });
    expect(first.status).toBe(200);
    const statuses: number[] = [];
    let last: Got | undefined;
    for (let i = 0; i < 30; i++) {
      last = await get(s.url, SMALL, { from: '127.0.0.7', headers: { 'if-none-match': String(first.headers.etag) } });
      statuses.push(last.status);
    }
    expect(new Set(statuses)).toEqual(new Set([304]));
    // 1 + 30 tenths spent: 6 whole tokens left at least (more as the bucket refills).
    expect(remaining(last!)).toBeGreaterThanOrEqual(5);
    const page = await get(s.url, '/__docs__/', { from: '127.0.0.7' });
    expect(page.status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await get(s.url, '/__docs__/', { from: '127.0.0.7', headers: { 'if-none-match': String(page.headers.etag) } })).status).toBe(304);
    // A revalidation that does not match is a full answer, charged in full: the bucket still runs out.
    const stale = await burst(14, () => get(s.url, SMALL, { from: '127.0.0.7', headers: { 'if-none-match': '"stale"' } }));
    expect(count(stale, 429)).toBeGreaterThan(0);

    // A HEAD of a 50,000-row CSV page (whose GET costs 6) costs 1: seven of them fit in a bucket of 10.
    const big = '/api/v1/spending?type=state&years=2019&format=csv&limit=50000';
    const heads = await burst(7, () => get(s.url, big, { from: '127.0.0.8', method: 'HEAD' }));
    expect(heads.map((h) => h.status)).toEqual(new Array(7).fill(200));
    expect(Math.max(...heads.map(remaining))).toBe(9);
    const got = await get(s.url, big, { from: '127.0.0.8' });
    // 3 left (a token or so may have refilled): the GET's 6 are refused.
    expect(got.status).toBe(429);
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const viaProxy = (client: string): Promise<Got> => get(s.url, SMALL, { from: '127.0.0.9', headers: { 'x-forwarded-for': client } });
    // 12 at once of one client: its bucket of 10 (and what a refill adds meanwhile) served, the rest refused.
    const one = await burst(12, () => viaProxy('203.0.113.5'));
    expect(count(one, 200)).toBeGreaterThanOrEqual(10);
    expect(count(one, 429)).toBeGreaterThan(0);
    // The proxy's other clients have their own buckets, and so does the proxy itself.
    expect((await viaProxy('198.51.100.7, 203.0.113.6')).status).toBe(200);
    expect(remaining(await get(s.url, SMALL, { from: '127.0.0.9' }))).toBe(9);
    // An IPv6 client is its /64: another address of the same /64 shares the bucket, another /64 has its own.
    const v6 = await burst(12, (i) => viaProxy(i % 2 === 0 ? '2001:db8:1:2::5' : '2001:db8:1:2:ffff::9'));
    expect(count(v6, 200)).toBeGreaterThanOrEqual(10);
    expect(count(v6, 429)).toBeGreaterThan(0);
    expect((await viaProxy('2001:db8:1:3::5')).status).toBe(200);
    // From a peer that is not a trusted proxy X-Forwarded-For is ignored: a client cannot pick a fresh bucket.
    const spoofer = (xff: string): Promise<Got> => get(s.url, SMALL, { from: '127.0.0.5', headers: { 'x-forwarded-for': xff } });
    const spoofed = await burst(12, (i) => spoofer(`192.0.2.${i}`));
    expect(count(spoofed, 200)).toBeGreaterThanOrEqual(10);
    expect(count(spoofed, 429)).toBeGreaterThan(0);
  });

  it('never charges /livez, /readyz and /metrics, and counts the 429s sent', async () => {
    const metric = async (): Promise<number> => {
      const text = (await get(s.url, '/metrics', { from: '127.0.0.6' })).body;
      return Number(/^civicstream_requests_refused_total\{status="429"\} (\d+)$/m.exec(text)![1]);
    };
    const before = await metric();
    const refused = count(await burst(14, () => get(s.url, SMALL, { from: '127.0.0.6' })), 429);
    expect(refused).toBeGreaterThanOrEqual(2);
    for (const p of ['/livez', '/readyz', '/metrics']) {
      const g = await get(s.url, p, { from: '127.0.0.6' });
      expect(g.status).toBe(200);
      expect(g.headers.ratelimit).toBeUndefined();
    }
    expect((await metric()) - before).toBe(refused);
  });

  it('the typed client waits out a 429 (Retry-After) and gets its answer', async () => {
    // Its requests come from 127.0.0.1: spend that bucket first.
    expect(count(await burst(14, () => get(s.url, SMALL)), 429)).toBeGreaterThan(0);
    const env = await financeClient(s.url, { retries: 4 }).get('/api/v1/governments', { q: 'springfield', limit: 2 });
    expect(env.status).toBe('success');
  });
});

describe('bucketKey', () => {
  it('keys IPv4 by the address and IPv6 by its /64', () => {
    expect(bucketKey('203.0.113.5')).toBe('203.0.113.5');
    expect(bucketKey('2001:db8:1:2::5')).toBe('2001:db8:1:2::/64');
    expect(bucketKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(bucketKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(bucketKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('rate limits by default', () => {
  it('are on, generous, and the school service has its own', async () => {
    const s = await startServer({ RATE_LIMIT: '', RATE_LIMIT_BURST: '' });
    try {
      const g = await get(s.url, SMALL);
      expect(g.headers['ratelimit-policy']).toBe('"default";q=500;w=5');
      expect(remaining(g)).toBe(499);
      const a = await get(s.arrestsUrl, '/api/v1/districts?state=NH&limit=2');
      expect(a.status).toBe(200);
      expect(remaining(a)).toBe(499);
    } finally {
      await s.stop();
    }
  });
});
