// Compressed bulk pages kept in the response cache (issue 19): a repeat pull
// of a page in a coding is answered from the cache, byte for byte the first
// pull, with no job run; it holds a page slot for its life like a computed
// pull, so a server whose slots are held refuses it with a 503; a pull cut
// off mid-stream, a HEAD, and an identity page are never kept.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_KEPT_ABOVE, keepWhileStreaming } from '../dist/src/server/kept-streams.js';
import { ResponseCache } from '../dist/src/server/response-cache.js';
import { get, raw as rawAt } from './helpers/http.js';
import { startServer, type Running } from './helpers/server.js';

let s: Running;
beforeAll(async () => { s = await startServer({ CSV_PAGE_SLOTS: '1', FRONT_THREADS: '1' }); }, 60_000);
afterAll(async () => { await s?.stop(); });

const raw = (path: string, headers: Record<string, string>, method = 'GET') => rawAt(path, headers, s.url, method);
const health = async () => (await get('/api/v1/health', undefined, s.url)).body.data[0];

describe('compressed bulk pages kept in the response cache', () => {
  it('answers a repeat pull from the cache, the same bytes, with no job; CSV and Arrow, gzip and br', async () => {
    let streamed = 0;
    for (const [format, enc, limit] of [['csv', 'gzip', 50000], ['arrow', 'br', 20000], ['csv', 'br', 5000]] as const) {
      const p = `/api/v1/revenue?type=city&years=2019,2020&format=${format}&limit=${limit}&per_capita=true`;
      const first = await raw(p, { 'Accept-Encoding': enc });
      expect(first.headers['content-encoding']).toBe(enc);
      expect(first.headers['x-cache']).toBeUndefined();
      const before = await health();
      const again = await raw(p, { 'Accept-Encoding': enc });
      const after = await health();
      expect(again.headers['x-cache'], p).toBe('hit');
      expect(again.body.equals(first.body), p).toBe(true);
      for (const h of ['etag', 'x-total-count', 'link', 'content-disposition', 'content-type', 'content-encoding']) expect(again.headers[h], h).toBe(first.headers[h]);
      // No job and no compression: the pool's batches and the compressed streams are where they were; one slot was leased.
      expect(after.compression.streams_compressed).toBe(before.compression.streams_compressed);
      // A kept body above STREAM_KEPT_ABOVE is streamed and holds a slot; a smaller one is answered whole, with none.
      expect(after.csv_page_slots.pages_in_slots).toBe(before.csv_page_slots.pages_in_slots + (again.body.length > STREAM_KEPT_ABOVE ? 1 : 0));
      if (again.body.length > STREAM_KEPT_ABOVE) streamed++;
      const plain = await raw(p, {});
      expect((enc === 'gzip' ? zlib.gunzipSync(again.body) : zlib.brotliDecompressSync(again.body)).equals(plain.body)).toBe(true);
    }
    expect(streamed).toBeGreaterThan(0);
  });

  it('keeps no identity page and no HEAD', async () => {
    const p = '/api/v1/revenue?type=city&years=2019&format=csv&limit=30000';
    await raw(p, {});
    expect((await raw(p, {})).headers['x-cache']).toBeUndefined();
    await raw(p, { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect((await raw(p, { 'Accept-Encoding': 'gzip' })).headers['x-cache']).toBeUndefined();
  });

  it('keeps a stream only once it ended whole and fits the largest entry: never one whose client left mid-stream', async () => {
    const cache = new ResponseCache(8 * 1024 * 1024);
    const stream = (chunks: number, size: number) => {
      let k = 0;
      return { kind: 'stream' as const, status: 200, contentType: 'text/csv', headers: { 'Content-Encoding': 'gzip' }, next: () => (k++ < chunks ? Promise.resolve(new Uint8Array(size).fill(k)) : null) };
    };
    const whole = keepWhileStreaming(stream(3, 1000), cache, 'whole');
    while ((await whole.next()) !== null);
    expect(cache.get('whole')?.body.length).toBe(3000);
    // Small: kept as a body, answered whole; above STREAM_KEPT_ABOVE, streamed from the cache.
    expect(cache.get('whole')?.stream).toBe(false);
    const large = keepWhileStreaming(stream(3, 100_000), cache, 'large');
    while ((await large.next()) !== null);
    expect(cache.get('large')?.stream).toBe(true);
    // Cut off: done() after two chunks, the third never pulled.
    const cut = keepWhileStreaming(stream(3, 1000), cache, 'cut');
    await cut.next(); await cut.next();
    cut.done?.();
    expect(cache.get('cut')).toBeUndefined();
    // The race of a client leaving: done() while a pull is in flight, which a compressor then answers null.
    let closed = false;
    const racing = keepWhileStreaming({
      kind: 'stream', status: 200, contentType: 'text/csv', headers: {},
      next: () => new Promise((r) => setTimeout(() => r(closed ? null : new Uint8Array(10)), 5)),
      done: () => { closed = true; },
    }, cache, 'race');
    await racing.next();
    const inFlight = racing.next();
    racing.done?.();
    expect(await inFlight).toBeNull();
    expect(cache.get('race')).toBeUndefined();
    // Larger than an eighth of the cache: streamed, not kept.
    const big = keepWhileStreaming(stream(3, 400_000), cache, 'big');
    while ((await big.next()) !== null);
    expect(cache.get('big')).toBeUndefined();
  });

  it('holds a page slot for a hit: with the one slot held by a slow pull, a hit is a 503 with Retry-After', async () => {
    // A page above STREAM_KEPT_ABOVE compressed is kept as a stream; one government's small page as a body, which needs no slot.
    const p = '/api/v1/revenue?type=city&years=2019,2020&format=csv&limit=50000&per_capita=true&adjust=real';
    const small = '/api/v1/governments/062037161174/revenue?format=csv';
    for (const q of [p, small]) await raw(q, { 'Accept-Encoding': 'gzip' });
    expect((await raw(p, { 'Accept-Encoding': 'gzip' })).headers['x-cache']).toBe('hit');
    // A reader with a 4 KB receive buffer that reads only its first bytes holds the one slot (test/helpers/held-reader.py).
    const u = new URL(s.url);
    const held = spawn('python3', [fileURLToPath(new URL('./helpers/held-reader.py', import.meta.url)), u.hostname, u.port, '/api/v1/spending?type=city&years=2011-2020&format=csv', '1'], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => held.stdout!.once('data', () => resolve()));
    try {
      const busy = await raw(p, { 'Accept-Encoding': 'gzip' });
      expect(busy.status).toBe(503);
      expect(busy.headers['retry-after']).toBe('1');
      expect(JSON.parse(busy.body.toString()).meta.error_code).toBe('E_BUSY');
      const kept = await raw(small, { 'Accept-Encoding': 'gzip' });
      expect([kept.status, kept.headers['x-cache'], kept.headers['content-type']]).toEqual([200, 'hit', 'text/csv; charset=utf-8']);
    } finally {
      held.stdin!.end('go\n');
      await new Promise((r) => held.once('exit', r));
    }
    expect((await raw(p, { 'Accept-Encoding': 'gzip' })).headers['x-cache']).toBe('hit');
  });
});
