// Error codes are part of the contract (issue 18): every code of the catalog
// has a request here that triggers it, and the answer carries the catalog's
// status and the code in meta.error_code. The table is checked against the
// catalog, so a new code without a row fails, and so does a code renamed
// where it is thrown (E_GOVID_FORMAT answered as E_BAD_VALUE, say). The
// expected status and headers are written here as literals, not read from the
// catalog under test: a status changed in the catalog fails here, and so does
// a header the catalog promises (Allow, Retry-After) that the answer lacks.

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../dist/src/server/errors.js';
import { arrestsUrl, expectErrorEnvelope, financeUrl, get, type Got } from './helpers/http.js';
import { ROOT, startServer, type Running } from './helpers/server.js';
import { busyThenTimeout } from './helpers/pool-faults.js';
import { exchange, parseAnswers, portOf } from './helpers/raw-http.js';

type Servers = { faults: Running; legacy: Running };

/** How a code is triggered: a request to one of the servers (or a sequence, for the pool's states). */
type Row = (s: Servers) => Promise<Got>;

const finance = (p: string, init?: RequestInit) => () => get(p, init, financeUrl());
const arrests = (p: string) => () => get(p, undefined, arrestsUrl());
const GOV = '/api/v1/governments/062037161174';

let pool: Promise<{ busy: Got; timeout: Got }> | undefined;
const poolState = (s: Servers) => (pool ??= busyThenTimeout(s.faults));

const ROWS: Record<string, Row> = {
  E_NOT_FOUND: finance('/api/v1/nope'),
  E_METHOD: finance('/api/v1/health', { method: 'POST', body: 'x=1' }),
  E_UNKNOWN_KEY: finance('/api/v1/governments?nonsense=1'),
  E_REPEATED_KEY: finance('/api/v1/governments?state=CA&state=TX'),
  E_BAD_QUERY: finance('/api/v1/governments?q=%E0%A4%A'),
  E_BAD_VALUE: finance(`${GOV}/spending?adjust=yes`),
  E_MISSING: arrests('/api/v1/draws?model=unified_m2&state=DE'),
  E_LIMIT_CAP: finance('/api/v1/governments?limit=1001'),
  E_GOVID_FORMAT: finance('/api/v1/governments/06203716117'),
  E_GOVID_UNKNOWN: finance('/api/v1/governments/999999999999'),
  E_LEAID_FORMAT: arrests('/api/v1/estimates/100004'),
  E_LEAID_UNKNOWN: arrests('/api/v1/estimates?leaid=9999999'),
  E_YEAR_FORMAT: finance(`${GOV}/spending?years=20x9`),
  E_YEAR_RANGE: finance(`${GOV}/spending?years=1990`),
  E_YEAR_HOLE: finance(`${GOV}/spending?years=2015`),
  E_YEAR_EMPTY_RANGE: finance(`${GOV}/spending?years=2012-2018`),
  E_CONFLICT: finance(`${GOV}/revenue?recipe=ig_state_total_wide&category=Property%20Tax`),
  // A corpus of schema_version 4 has no harmonization tables.
  E_NOT_IN_CORPUS: (s) => get(`${GOV}/spending?basis=harmonized`, undefined, s.legacy.url),
  E_NOT_ACCEPTABLE: finance('/api/v1/health', { headers: { 'Accept-Encoding': 'identity;q=0, *;q=0' } }),
  E_URI_TOO_LONG: finance(`/api/v1/governments?q=${'x'.repeat(9000)}`),
  E_HEADERS_TOO_LARGE: finance('/api/v1/categories', { headers: { 'x-padding': 'x'.repeat(20_000) } }),
  // Two Content-Lengths that differ: fetch will not send them, so the request goes over a raw socket.
  E_BAD_FRAMING: async () => {
    const got = await exchange(portOf(financeUrl()), [[0, 'GET /api/v1/categories HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nContent-Length: 0\r\n\r\nhello']], 5_000);
    const [a] = parseAnswers(Buffer.from(got.text, 'latin1'), ['GET']).answers;
    const text = a!.body.toString('utf8');
    return { status: a!.status, headers: new Headers(a!.headers), body: JSON.parse(text), text };
  },
  E_BUSY: async (s) => (await poolState(s)).busy,
  E_TIMEOUT: async (s) => (await poolState(s)).timeout,
  // A byte range past the end of a bulk file: the legacy server builds its set (a few seconds) and serves it.
  E_RANGE_NOT_SATISFIABLE: async (s) => {
    for (let t = 0; t < 240; t++) {
      const file = (await get('/api/v1/bulk', undefined, s.legacy.url)).body.data.find((e: { url: string | null }) => e.url !== null);
      if (file) return get(file.url, { headers: { Range: 'bytes=999999999-' } }, s.legacy.url);
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error('no bulk file was built');
  },
  // The legacy server believes X-Forwarded-For from loopback: one made-up client spends its bucket of 50.
  E_RATE_LIMITED: async (s) => {
    // 80 at once: one after another, on a busy machine, the refill (20 a second) can keep up with them.
    const all = await Promise.all(Array.from({ length: 80 }, () => get('/api/v1/categories', { headers: { 'X-Forwarded-For': '203.0.113.77' } }, s.legacy.url)));
    const got = all.find((g) => g.status === 429);
    if (got) return got;
    throw new Error('80 requests of one client at once were never refused');
  },
  E_INTERNAL: async (s) => {
    await poolState(s);
    return get('/__faults__/worker?kind=throw', undefined, s.faults.url);
  },
};

/** What each code's answer must carry: its HTTP status, and the headers it must have (a string: that value; a RegExp: a value matching it). */
const EXPECTED: Record<string, { status: number; headers?: Record<string, string | RegExp> }> = {
  E_NOT_FOUND: { status: 404 },
  E_METHOD: { status: 405, headers: { Allow: 'GET, HEAD, OPTIONS' } },
  E_UNKNOWN_KEY: { status: 400 },
  E_REPEATED_KEY: { status: 400 },
  E_BAD_QUERY: { status: 400 },
  E_BAD_VALUE: { status: 400 },
  E_MISSING: { status: 400 },
  E_LIMIT_CAP: { status: 400 },
  E_GOVID_FORMAT: { status: 400 },
  E_GOVID_UNKNOWN: { status: 400 },
  E_LEAID_FORMAT: { status: 400 },
  E_LEAID_UNKNOWN: { status: 400 },
  E_YEAR_FORMAT: { status: 400 },
  E_YEAR_RANGE: { status: 400 },
  E_YEAR_HOLE: { status: 400 },
  E_YEAR_EMPTY_RANGE: { status: 400 },
  E_CONFLICT: { status: 400 },
  E_NOT_IN_CORPUS: { status: 400 },
  E_NOT_ACCEPTABLE: { status: 406 },
  E_RANGE_NOT_SATISFIABLE: { status: 416, headers: { 'Content-Range': /^bytes \*\/\d+$/ } },
  E_URI_TOO_LONG: { status: 414 },
  E_HEADERS_TOO_LARGE: { status: 431 },
  E_BAD_FRAMING: { status: 400, headers: { Connection: 'close' } },
  E_RATE_LIMITED: { status: 429, headers: { 'Retry-After': /^[1-9]\d*$/, 'RateLimit-Policy': /\S/ } },
  E_BUSY: { status: 503, headers: { 'Retry-After': '1' } },
  E_TIMEOUT: { status: 504 },
  E_INTERNAL: { status: 500 },
};

describe('error codes: one request per code of the catalog', () => {
  const servers = {} as Servers;
  beforeAll(async () => {
    [servers.faults, servers.legacy] = await Promise.all([
      // The budget leaves room for the pool's new worker (the hung one is ended) to start while other test files share the
      // cores: at 1,500 ms the E_INTERNAL request behind it was once answered 504.
      startServer({ WORKERS: '1', FRONT_THREADS: '1', POOL_QUEUE: '0', REQUEST_TIMEOUT_MS: '6000', RESPONSE_CACHE_MB: '0', CIVICSTREAM_FAULTS: '1' }),
      startServer({ WORKERS: '1', FRONT_THREADS: '1', FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v4'), BULK_BUILD: 'true', RATE_LIMIT: '20', RATE_LIMIT_BURST: '50', TRUST_PROXY: '127.0.0.1' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([servers.faults?.stop(), servers.legacy?.stop()]);
  });

  it('every code of the catalog has a row and an expected answer, and every row a code of the catalog', () => {
    expect(Object.keys(ROWS).sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
  });

  it('the catalog (which the docs publish) says what the answers carry: its statuses and headers are the expected ones', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOG)) {
      expect(entry.status, code).toBe(EXPECTED[code]!.status);
      for (const [name, value] of Object.entries('headers' in entry ? entry.headers : {})) expect(EXPECTED[code]!.headers?.[name], `${code} ${name}`).toBe(value);
    }
  });

  for (const code of Object.keys(ERROR_CATALOG)) {
    const want = EXPECTED[code]!;
    it(`${code}: HTTP ${want.status}, meta.error_code ${code}${want.headers ? `, ${Object.keys(want.headers).join(', ')}` : ''}`, async () => {
      const row = ROWS[code];
      if (!row) throw new Error(`no request in ROWS triggers ${code}: add one`);
      const got = await row(servers);
      expectErrorEnvelope(got, want.status);
      expect(got.body.meta.error_code).toBe(code);
      for (const [name, value] of Object.entries(want.headers ?? {})) {
        const sent = got.headers.get(name);
        if (typeof value === 'string') expect(sent, `${code} ${name}`).toBe(value);
        else expect(sent ?? '', `${code} ${name}`).toMatch(value);
      }
    });
  }
});
