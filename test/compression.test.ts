// Compressed answers (issue 19): Accept-Encoding chooses the coding (q-values
// respected), each coding's bytes decode to exactly the identity bytes, for
// JSON envelopes, CSV streams, the docs' files and errors, on both services;
// each coding has its own ETag and cache entry; small bodies and clients that
// do not ask get identity; a header that refuses everything is a 406.

import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeAnswer } from '../dist/src/server/compress.js';
import { negotiate, OFFERED } from '../dist/src/server/encoding.js';
import type { Answer } from '../dist/src/server/answer.js';
import { arrestsUrl, expectErrorEnvelope, financeUrl, raw } from './helpers/http.js';

const DECODE: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gunzipSync(b),
  br: (b) => zlib.brotliDecompressSync(b),
  ...((zlib as unknown as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync ? { zstd: (zlib as any).zstdDecompressSync } : {}),
};
const CODINGS = OFFERED.filter((e) => e !== 'identity');

describe('Accept-Encoding negotiation', () => {
  it.each([
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['gzip;q=1.0, br;q=0.9', 'gzip'],
    ['gzip;q=0.5, br;q=0.9', 'br'],
    ['gzip;q=0.5', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP;Q=1.000', 'gzip'],
    ['*', 'br'],
    ['*;q=0.5, identity', 'identity'],
    ['identity, gzip;q=0.5', 'identity'],
    ['gzip;q=0', 'identity'],
    ['gzip;q=abc', 'identity'],
    ['gzip;q=1.5', 'identity'],
    ['compress, deflate', 'identity'],
    [' , ;, ', 'identity'],
    ['%%%', 'identity'],
    ['identity;q=0', null],
    ['*;q=0', null],
    ['identity;q=0, *;q=0', null],
    ['br;q=0, gzip;q=0, identity;q=0', null],
  ])('%j -> %s', (header, want) => {
    expect(negotiate(header)).toBe(want);
  });
});

describe('compressed answers over HTTP', () => {
  const GOV = '/api/v1/governments/062037161174/spending?years=2011,2019,2020';
  const CSV = '/api/v1/revenue?type=city&years=2019,2020&format=csv';

  it.each(CODINGS)('%s: a JSON envelope, a CSV stream, a docs file and the school service decode to the identity bytes', async (coding) => {
    for (const [path, base] of [[GOV, financeUrl()], [CSV, financeUrl()], ['/__docs__/swagger-ui-bundle.js', financeUrl()], ['/api/v1/data-dictionary', arrestsUrl()]] as const) {
      const plain = await raw(path, {}, base);
      const coded = await raw(path, { 'Accept-Encoding': coding }, base);
      expect(plain.status, path).toBe(200);
      expect(coded.status, path).toBe(200);
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(coded.headers['content-encoding'], path).toBe(coding);
      expect(coded.headers.vary, path).toContain('Accept-Encoding');
      expect(plain.headers.vary, path).toContain('Accept-Encoding');
      expect(coded.body.length, path).toBeLessThan(plain.body.length / 3);
      expect(DECODE[coding]!(coded.body).equals(plain.body), path).toBe(true);
    }
  });

  it.each(CODINGS)('%s: its own ETag, revalidated per coding, and its own cache entry, served again as the same bytes', async (coding) => {
    const path = `${GOV}&category=Police`;
    const plain = await raw(path);
    const first = await raw(path, { 'Accept-Encoding': coding });
    const again = await raw(path, { 'Accept-Encoding': coding });
    const tag = String(plain.headers.etag);
    expect(first.headers.etag).toBe(`${tag.slice(0, -1)}-${coding}"`);
    expect(again.headers['x-cache']).toBe('hit');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['content-encoding']).toBe(coding);
    expect(again.body.equals(first.body)).toBe(true);
    expect((await raw(path, { 'Accept-Encoding': coding, 'If-None-Match': String(first.headers.etag) })).status).toBe(304);
    // The identity tag does not validate the compressed bytes, nor the other way round.
    expect((await raw(path, { 'Accept-Encoding': coding, 'If-None-Match': tag })).status).toBe(200);
    expect((await raw(path, { 'If-None-Match': String(first.headers.etag) })).status).toBe(200);
    const head = await raw(path, { 'Accept-Encoding': coding }, financeUrl(), 'HEAD');
    expect(head.headers['content-encoding']).toBe(coding);
    expect(Number(head.headers['content-length'])).toBe(first.body.length);
  });

  it('sends small bodies and answers to clients that do not ask as they are', async () => {
    const small = await raw('/api/v1/nope', { 'Accept-Encoding': 'gzip, br' });
    expect(small.status).toBe(404);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString()).meta.error_code).toBe('E_NOT_FOUND');
    expect((await raw(CSV)).headers['content-encoding']).toBeUndefined();
  });

  it('reads bad Accept-Encoding values as identity, and answers one that refuses everything with a 406 envelope', async () => {
    for (const bad of ['gzip;q=abc', '%%%', 'compress', ';;;', 'br;q=-1']) {
      const got = await raw(GOV, { 'Accept-Encoding': bad });
      expect(got.status, bad).toBe(200);
      expect(got.headers['content-encoding'], bad).toBeUndefined();
    }
    const refused = await raw(CSV, { 'Accept-Encoding': 'identity;q=0, *;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    const body = JSON.parse(refused.body.toString());
    expectErrorEnvelope({ status: refused.status, headers: new Headers(), body, text: refused.body.toString() }, 406);
    expect(body.meta.error_code).toBe('E_NOT_ACCEPTABLE');
    expect(body.error).toContain('gzip');
  });
});

describe('the compression layer', () => {
  it('pulls a stream\'s source no faster than its output is taken, and a stream given up frees its source', async () => {
    const text = Buffer.from('year,govid,category,amount\r\n'.repeat(2400)); // 64 KB of CSV-like lines
    let pulled = 0, released = 0;
    const source: Answer = { kind: 'stream', status: 200, contentType: 'text/csv; charset=utf-8', next: () => (pulled++ < 200 ? text : null), done: () => { released++; } };
    const coded = encodeAnswer(source, 'gzip');
    if (coded.kind !== 'stream') throw new Error('not a stream');
    const first = await coded.next();
    expect(first).not.toBeNull();
    // A few source chunks at most went in for the first compressed bytes out, not the 200 the source holds.
    expect(pulled).toBeLessThan(10);
    coded.done!();
    expect(released).toBe(1);
    coded.done!();
    expect(released).toBe(1);
    expect(await coded.next()).toBeNull();
  });

  it('decodes a whole stream to the source\'s bytes, in every coding', async () => {
    for (const coding of CODINGS) {
      const parts = Array.from({ length: 40 }, (_, i) => Buffer.from(`${i},${'x'.repeat(i * 97)}\r\n`.repeat(300)));
      let k = 0;
      const coded = encodeAnswer({ kind: 'stream', status: 200, contentType: 'text/csv', next: () => parts[k++] ?? null }, coding);
      if (coded.kind !== 'stream') throw new Error('not a stream');
      const out: Uint8Array[] = [];
      for (let c = await coded.next(); c !== null; c = await coded.next()) out.push(c);
      coded.done?.();
      expect(DECODE[coding]!(Buffer.concat(out)).equals(Buffer.concat(parts)), coding).toBe(true);
    }
  });

  it('compresses a body of a few KB or more off the serving thread (issue 32), a smaller one at once, each decoding to the body', async () => {
    const json = (n: number): Buffer => Buffer.from(JSON.stringify({ data: Array.from({ length: n }, (_, i) => ({ year: 2000 + (i % 20), amount: i * 7919 })) }));
    const big = json(400), small = json(60);
    expect(big.byteLength).toBeGreaterThan(8192);
    expect(small.byteLength).toBeGreaterThan(1024);
    expect(small.byteLength).toBeLessThan(4096);
    for (const coding of CODINGS) {
      const answer = (body: Buffer): Answer => ({ kind: 'bytes', status: 200, contentType: 'application/json; charset=utf-8', body, headers: { ETag: '"x"' } });
      // A view into a larger buffer, as the JSON writer hands out: what zlib reads later must be the body's bytes.
      const pool = Buffer.alloc(big.byteLength + 100, 0x7b);
      big.copy(pool, 50);
      const view = pool.subarray(50, 50 + big.byteLength);
      const later = encodeAnswer(answer(view), coding);
      expect(later, `${coding}: a large body is compressed off the thread`).toBeInstanceOf(Promise);
      pool.fill(0x20);
      const coded = await later;
      if (coded.kind !== 'bytes') throw new Error('not bytes');
      expect(coded.headers?.['Content-Encoding']).toBe(coding);
      expect(coded.headers?.ETag).toBe('"x"');
      expect(DECODE[coding]!(Buffer.from(coded.body as Uint8Array)).equals(big), coding).toBe(true);
      const now = encodeAnswer(answer(small), coding);
      expect(now, `${coding}: a small body is compressed at once`).not.toBeInstanceOf(Promise);
      if (now instanceof Promise || now.kind !== 'bytes') throw new Error('not bytes now');
      expect(DECODE[coding]!(Buffer.from(now.body as Uint8Array)).equals(small), coding).toBe(true);
    }
  });
});
