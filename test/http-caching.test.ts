// Conditional requests: answers of the immutable routes carry an ETag that is
// a function of the corpus and the URL, and If-None-Match short-circuits them.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { arrestsUrl, get } from './helpers/http.js';
import { ROOT, startServer } from './helpers/server.js';

const GOVS = '/api/v1/governments?state=CA&type=county&limit=5';

describe('ETag and If-None-Match', () => {
  it('a cacheable answer carries a strong ETag and Cache-Control; the same URL gives the same tag, another URL another', async () => {
    const a = await get(GOVS);
    const b = await get(GOVS);
    const c = await get('/api/v1/governments?state=CA&type=county&limit=6');
    expect(a.status).toBe(200);
    expect(a.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    expect(a.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    expect(c.headers.get('etag')).not.toBe(a.headers.get('etag'));
  });

  it('If-None-Match with the tag (alone, weak, in a list, or *) is a 304 with no body; another tag gets the 200', async () => {
    const tag = (await get(GOVS)).headers.get('etag')!;
    for (const inm of [tag, `W/${tag}`, `"nope", ${tag}`, '*']) {
      const got = await get(GOVS, { headers: { 'if-none-match': inm } });
      expect(got.status, inm).toBe(304);
      expect(got.text).toBe('');
      expect(got.headers.get('content-length')).toBeNull();
      expect(got.headers.get('etag')).toBe(tag);
    }
    const other = await get(GOVS, { headers: { 'if-none-match': '"nope"' } });
    expect(other.status).toBe(200);
    expect(other.body.data.length).toBe(5);
  });

  it('errors and live routes carry no ETag; CSV pulls do, and revalidate', async () => {
    const bad = await get('/api/v1/governments?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('etag')).toBeNull();
    const health = await get('/api/v1/health');
    expect(health.status).toBe(200);
    expect(health.headers.get('etag')).toBeNull();
    const csvPath = '/api/v1/spending?state=CA&type=county&category=Police&format=csv';
    const csv = await get(csvPath);
    expect(csv.status).toBe(200);
    const tag = csv.headers.get('etag')!;
    expect(tag).toMatch(/^"/);
    expect((await get(csvPath, { headers: { 'if-none-match': tag } })).status).toBe(304);
  });

  it('the school service does the same', async () => {
    const first = await get('/api/v1/states', undefined, arrestsUrl());
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"/);
    expect((await get('/api/v1/states', { headers: { 'if-none-match': tag } }, arrestsUrl())).status).toBe(304);
  });

  it('browsers may read the paging and validator headers across origins', async () => {
    const exposed = (await get(GOVS)).headers.get('access-control-expose-headers')!.split(',').map((s) => s.trim());
    for (const h of ['ETag', 'X-Total-Count', 'X-Page', 'X-Limit', 'X-Request-Id']) expect(exposed).toContain(h);
  });

  it('the tag is stable across restarts on the same corpus and changes with the corpus', async () => {
    const tags: string[] = [];
    for (const v of ['v6', 'v6', 'v5']) {
      const s = await startServer({ FINANCE_DATA: path.join(ROOT, `fixtures/finance/${v}`), WORKERS: '1' });
      try {
        tags.push((await fetch(`${s.url}${GOVS}`)).headers.get('etag')!);
      } finally {
        await s.stop();
      }
    }
    expect(tags[1]).toBe(tags[0]);
    expect(tags[2]).not.toBe(tags[0]);
  }, 180_000);
});
