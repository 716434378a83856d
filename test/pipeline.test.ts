// The request pipeline in-process (inject): the same stages as over HTTP,
// without a socket. Its answers must be the server's answers byte for byte,
// and each stage must end the request where it should.

import { describe, expect, it } from 'vitest';
import { financeService } from '../dist/src/finance/http/service.js';
import { readConfig } from '../dist/src/config.js';
import { inject } from '../dist/src/server/inject.js';
import { ROUTED_STAGES } from '../dist/src/server/pipeline.js';
import { financeUrl, rawGet } from './helpers/http.js';
import { useFixtureCtx } from './helpers/fixture-ctx.js';

const ctx = useFixtureCtx();
const service = () => financeService(ctx(), readConfig({ ...process.env, FINANCE_DATA: 'fixtures/finance/v6' }));

// Headers that name the request, the cache state or the socket's framing (chunked), not the answer.
// Content-Length is the answer's: inject() announces what the server does (answer-head.ts), HEAD included.
const VOLATILE = new Set(['x-request-id', 'x-cache', 'date', 'transfer-encoding', 'uwebsockets', 'connection']);
const answerHeaders = (h: Record<string, string> | Headers): Record<string, string> => {
  const entries = h instanceof Headers ? [...h.entries()] : Object.entries(h);
  return Object.fromEntries(entries.map(([k, v]) => [k.toLowerCase(), v] as const).filter(([k]) => !VOLATILE.has(k)).sort(([a], [b]) => a.localeCompare(b)));
};

const URLS = [
  '/api/v1/governments/062037161174/spending?category=Police',
  '/api/v1/governments/062037161174/revenue?years=2019,2020&per_capita=true',
  '/api/v1/spending?state=NH&type=city&category=Police&years=2011-2020&format=csv&limit=500',
  '/api/v1/spending?state=NH&type=city&format=csv&limit=3&page=2',
  '/api/v1/rollups?layer=state&years=2020&category=Police',
  '/api/v1/categories',
  '/api/v1/governments/999999999999/spending',
  '/api/v1/spending?state=NH&years=1990',
  '/api/v1/nowhere',
  '/openapi.json',
  '/api/v1/llms.txt',
];

describe('inject: the pipeline in-process', () => {
  it.each(URLS)('answers %s as the server does, byte for byte', async (url) => {
    const [local, remote] = await Promise.all([inject(service(), url, { headers: { host: new URL(financeUrl()).host } }), rawGet(url)]);
    expect(local.status).toBe(remote.status);
    expect(answerHeaders(local.headers)).toEqual(answerHeaders(remote.headers));
    expect(local.text()).toBe(remote.text);
  });

  it.each(URLS)('answers HEAD %s with the headers the server sends, Content-Length included', async (url) => {
    const [local, remote] = await Promise.all([
      inject(service(), url, { method: 'HEAD', headers: { host: new URL(financeUrl()).host } }),
      fetch(`${financeUrl()}${url}`, { method: 'HEAD', headers: { 'Accept-Encoding': 'identity' } }),
    ]);
    expect(local.status).toBe(remote.status);
    expect(answerHeaders(local.headers)).toEqual(answerHeaders(remote.headers));
    expect(local.body.length).toBe(0);
  });

  it('runs the routed stages in this order', () => {
    expect(ROUTED_STAGES).toEqual(['route', 'validate', 'freshness', 'rate', 'revalidate', 'cache', 'handle', 'render', 'encode', 'store']);
  });

  it('revalidation: a matching If-None-Match is a 304 before any work, a stale one the 200', async () => {
    const url = '/api/v1/governments/062037161174/spending?category=Police';
    const first = await inject(service(), url);
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await inject(service(), url, { headers: { 'If-None-Match': `W/${etag}, "other"` } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect((await inject(service(), url, { headers: { 'If-None-Match': '"stale"' } })).status).toBe(200);
  });

  it('the cache stage: a repeat of a cacheable answer is a hit with the same bytes', async () => {
    const s = service();
    const url = '/api/v1/governments/062037161174/spending?category=Police&years=2020';
    const miss = await inject(s, url);
    const hit = await inject(s, url);
    expect([miss.headers['x-cache'], hit.headers['x-cache']]).toEqual(['miss', 'hit']);
    expect(hit.body.equals(miss.body)).toBe(true);
  });

  it('the limits stage: a long URL is 414, heavy headers 431, both in the envelope', async () => {
    const long = await inject(service(), `/api/v1/categories?x=${'a'.repeat(9000)}`);
    expect(long.status).toBe(414);
    expect(long.json<{ meta: { error_code: string } }>().meta.error_code).toBe('E_URI_TOO_LONG');
    const heavy = await inject(service(), '/api/v1/categories', { headers: { 'x-big': 'b'.repeat(17_000) } });
    expect(heavy.status).toBe(431);
    expect(heavy.json<{ meta: { error_code: string } }>().meta.error_code).toBe('E_HEADERS_TOO_LARGE');
  });

  it('the preflight stage: OPTIONS is 204 with the CORS headers; a write method is 405 with Allow', async () => {
    const opt = await inject(service(), '/api/v1/categories', { method: 'OPTIONS' });
    expect(opt.status).toBe(204);
    expect(opt.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    const post = await inject(service(), '/api/v1/categories', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(post.json<{ error: string }>().error).toContain('Method POST is not allowed');
  });

  it('HEAD: the headers of the GET and no body', async () => {
    const url = '/api/v1/spending?state=NH&type=city&format=csv&limit=3';
    const [head, get] = await Promise.all([inject(service(), url, { method: 'HEAD' }), inject(service(), url)]);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(answerHeaders(head.headers)).toEqual(answerHeaders(get.headers));
    expect(get.body.length).toBeGreaterThan(0);
    // A JSON answer in bytes announces its GET's length on HEAD too; the CSV page above is chunked: none.
    const json = '/api/v1/categories';
    const [jh, jg] = await Promise.all([inject(service(), json, { method: 'HEAD' }), inject(service(), json)]);
    expect(jh.headers['content-length']).toBe(String(jg.body.length));
    expect(head.headers['content-length']).toBeUndefined();
  });
});
