// The body slab (src/server/envelope.ts, issue 32): serialize() lends each
// JSON body out of a slab per thread, and the slab is written from its start
// again only once every body lent is given back. A body still lent is never
// written over, whoever holds it: many answers at once in-process (inject
// copies each when its turn comes), and served to many connections at once in
// every coding, as HEAD, and cut off by clients that leave; each body equal to
// the same answer asked alone. And each reader that is last gives its body
// back: the server after uWS's end, a client gone, compression, the cache's
// store, inject.

import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteWriter } from '../dist/src/bytes/byte-writer.js';
import { JsonRows, ok, releaseBody, serialize, slabState } from '../dist/src/server/envelope.js';
import { inject } from '../dist/src/server/inject.js';
import { encodeAnswer } from '../dist/src/server/compress.js';
import { Exchange } from '../dist/src/server/exchange.js';
import { ResponseCache } from '../dist/src/server/response-cache.js';
import { Outgoing } from '../dist/src/server/uws-outgoing.js';
import { useFixtureService } from './helpers/fixture-ctx.js';
import { dropAfter } from './helpers/http.js';
import { startServer, type Running } from './helpers/server.js';

/** An envelope whose one row is `text` (its JSON written by the rows' own writer, as a money table's are). */
const envelopeOf = (text: string): ReturnType<typeof ok> =>
  ok(new JsonRows((w: ByteWriter) => w.text(`[${JSON.stringify(text)}]`), 1, text.length + 8), { n: text.length });
const bodyOf = (text: string): Uint8Array => serialize(envelopeOf(text)) as Uint8Array;

describe('the body slab', () => {
  it('writes over a body only once every body lent is back', () => {
    const a = bodyOf('a'.repeat(5000));
    const keptA = Buffer.from(a);
    expect(JSON.parse(keptA.toString()).data).toEqual(['a'.repeat(5000)]);
    const lentWithA = slabState().lent;
    expect(lentWithA).toBeGreaterThan(0);
    // Many bodies after it, each given back at once: the slab goes on past a, never over it.
    for (let i = 0; i < 300; i++) {
      const b = bodyOf(`b${i}`.repeat(1 + (i % 97) * 20));
      expect(b.buffer === a.buffer ? b.byteOffset >= a.byteOffset + a.byteLength || b.byteOffset + b.byteLength <= a.byteOffset : true).toBe(true);
      releaseBody(b);
      expect(slabState().lent).toBe(lentWithA);
    }
    expect(Buffer.from(a).equals(keptA)).toBe(true);
    // Bodies that are not the slab's: nothing lent changes.
    releaseBody('a string body');
    releaseBody(Buffer.from('a buffer of its own'));
    expect(slabState().lent).toBe(lentWithA);
    // a back (and whatever else was lent before it: none in this file): the next body starts the slab again.
    releaseBody(a);
    expect(slabState()).toMatchObject({ at: 0, lent: 0 });
    const c = bodyOf('c');
    expect(c.buffer === slabState().buffer && c.byteOffset === 0).toBe(true);
    releaseBody(c);
  });

  it('a body past a quarter slab has a buffer of its own and lends nothing', () => {
    const before = slabState();
    const same = (): boolean => { const now = slabState(); return now.at === before.at && now.lent === before.lent && now.buffer === before.buffer; };
    const big = bodyOf('x'.repeat(600 * 1024));
    expect(big.buffer === before.buffer).toBe(false);
    expect(same()).toBe(true);
    releaseBody(big);
    expect(same()).toBe(true);
  });
});

/**
 * A uWS response that keeps what it was given, copied as uWS copies it. With takes, a client whose socket takes
 * only that many bytes of the body at first (0: none) and the rest once writable() is called (uWS's onWritable
 * at the offset reached).
 */
function fakeResponse(o: { takes?: number } = {}): { res: any; ended: Buffer[]; writable: () => void } {
  const ended: Buffer[] = [];
  let takes = o.takes, written = 0, onWritable: ((offset: number) => boolean) | undefined;
  const res = {
    onAborted: () => res, cork: (f: () => void) => { f(); return res; }, writeStatus: () => res, writeHeader: () => res,
    end: (b: Uint8Array | string) => { ended.push(Buffer.from(b)); return res; }, endWithoutBody: () => res,
    getWriteOffset: () => written,
    tryEnd: (b: Uint8Array | string) => {
      const chunk = Buffer.from(b);
      if (takes !== undefined) { ended.push(chunk.subarray(0, takes)); written += takes; takes = undefined; return [false, false]; }
      ended.push(chunk); written += chunk.length;
      return [true, true];
    },
    onWritable: (f: (offset: number) => boolean) => { onWritable = f; return res; },
  };
  return { res, ended, writable: () => { onWritable?.(written); } };
}
const SERVICE = { name: 'finance', accessLog: false } as any;
const bytesAnswer = (body: Uint8Array): any => ({ kind: 'bytes', status: 200, contentType: 'application/json', body });

describe('who gives a body back', () => {
  it('the server, once uWS has taken it; and when its client left, unwritten', () => {
    const lent = slabState().lent;
    const body = bodyOf('served'.repeat(400));
    const copy = Buffer.from(body);
    expect(slabState().lent).toBe(lent + 1);
    const { res, ended } = fakeResponse();
    new Outgoing(res, new Exchange('t1'), SERVICE, 'get', '/x', performance.now()).write(bytesAnswer(body));
    expect(ended).toHaveLength(1);
    expect(ended[0]!.equals(copy)).toBe(true);
    expect(slabState().lent).toBe(lent);
    const gone = bodyOf('gone');
    const ex = new Exchange('t2');
    const out = new Outgoing(fakeResponse().res, ex, SERVICE, 'get', '/x', performance.now());
    ex.gone = true;
    out.write(bytesAnswer(gone));
    expect(slabState().lent).toBe(lent);
  });

  it.each([['none of it', 0], ['part of it', 1000]])('the server, when the client takes %s at first: the rest goes once it can, the slab is back at once', (_, takes) => {
    const lent = slabState().lent;
    const body = bodyOf(Array.from({ length: 400 }, (_, i) => `s${i}`).join(''));
    const copy = Buffer.from(body);
    const { res, ended, writable } = fakeResponse({ takes });
    new Outgoing(res, new Exchange('t3'), SERVICE, 'get', '/x', performance.now()).write(bytesAnswer(body));
    expect(Buffer.concat(ended).length).toBe(takes);
    expect(slabState().lent).toBe(lent);
    // The slab is written over meanwhile; what goes out is still the answer's bytes, each once, in order.
    for (let i = 0; i < 20; i++) releaseBody(bodyOf('q'.repeat(1600)));
    writable();
    expect(Buffer.concat(ended).equals(copy)).toBe(true);
  });

  it.each([['at once', 1000], ['on libuv\'s threads', 9000]])('compression, %s: once it has compressed or copied it', async (_, size) => {
    const lent = slabState().lent;
    const body = bodyOf('z'.repeat(size));
    const copy = Buffer.from(body);
    const coded = encodeAnswer(bytesAnswer(body), 'gzip');
    expect(slabState().lent).toBe(lent);
    // Bodies written after it (over its bytes, now that it is back) do not reach what is compressed.
    for (let i = 0; i < 20; i++) releaseBody(bodyOf('q'.repeat(size)));
    const a = await coded;
    expect(a.kind === 'bytes' && zlib.gunzipSync(a.body as Uint8Array).equals(copy)).toBe(true);
  });
});

describe('in-process, many answers at once', () => {
  const { service } = useFixtureService(2);
  it('each body equals the same answer asked alone', async () => {
    const govs = (await inject(service(), '/api/v1/governments?limit=60')).json<{ data: { canonical_govid: string }[] }>().data.map((g) => g.canonical_govid);
    const urls = govs.flatMap((g) => [`/api/v1/governments/${g}/spending`, `/api/v1/governments/${g}/spending?category=Police`, `/api/v1/governments/${g}/profile?per_capita=true`]);
    const alone = new Map<string, Buffer>();
    for (const u of urls) alone.set(u, (await inject(service(), u)).body);
    // In turns of 24 at once: more would meet the pool's admission limit (503 E_BUSY), not the slab.
    for (let round = 0; round < 3; round++) {
      for (let at = round; at < urls.length; at += 24) {
        const turn = urls.slice(at, at + 24);
        const lent = slabState().lent;
        const got = await Promise.all(turn.map((u) => inject(service(), u)));
        // inject gave back every body it copied.
        expect(slabState().lent).toBe(lent);
        got.forEach((r, i) => {
          expect(r.status, turn[i]).toBe(200);
          expect(r.body.equals(alone.get(turn[i]!)!), turn[i]).toBe(true);
        });
      }
    }
  });

  it("the cache's store, once it has copied it: a miss and then a hit, both equal to the answer", async () => {
    const cached = { ...service(), cache: new ResponseCache(8 << 20) };
    const govs = (await inject(service(), '/api/v1/governments?limit=30')).json<{ data: { canonical_govid: string }[] }>().data.map((g) => g.canonical_govid);
    // A money answer: its rows are bytes, so its body is the slab's (a list of plain rows is text).
    const u = `/api/v1/governments/${govs[0]}/spending`;
    const want = (await inject(service(), u)).body;
    const lent = slabState().lent;
    const miss = await inject(cached, u);
    expect(miss.headers['x-cache']).toBe('miss');
    expect(slabState().lent).toBe(lent);
    for (const g of govs.slice(1)) await inject(service(), `/api/v1/governments/${g}/spending`);
    const hit = await inject(cached, u);
    expect(hit.headers['x-cache']).toBe('hit');
    expect(miss.body.equals(want) && hit.body.equals(want)).toBe(true);
  });
});

const DECODE: Record<string, (b: Buffer) => Buffer> = { identity: (b) => b, gzip: (b) => zlib.gunzipSync(b), br: (b) => zlib.brotliDecompressSync(b) };

describe('served, many connections at once', () => {
  let s: Running;
  beforeAll(async () => { s = await startServer({ RESPONSE_CACHE_MB: '0', RATE_LIMIT: '0' }); });
  afterAll(async () => { await s?.stop(); });

  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  afterAll(() => agent.destroy());
  const get = (path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; body: Buffer; encoding: string }> =>
    new Promise((resolve, reject) => {
      const u = new URL(s.url);
      http.request({ host: u.hostname, port: u.port, path, method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), encoding: String(res.headers['content-encoding'] ?? 'identity') }));
      }).on('error', reject).end();
    });

  it('every coding decodes to the body asked alone, among HEADs and clients that leave', async () => {
    const list = await get('/api/v1/governments?limit=40', {});
    const govs = (JSON.parse(list.body.toString()) as { data: { canonical_govid: string }[] }).data.map((g) => g.canonical_govid);
    // Small bodies (compressed at once) and large ones (compressed on libuv's threads, from a copy).
    const urls = govs.flatMap((g) => [`/api/v1/governments/${g}/spending`, `/api/v1/governments/${g}/spending?category=Police`]);
    const alone = new Map<string, Buffer>();
    for (const u of urls) alone.set(u, (await get(u, { 'Accept-Encoding': 'identity' })).body);
    expect([...alone.values()].some((b) => b.length >= 4096)).toBe(true);
    expect([...alone.values()].some((b) => b.length < 4096)).toBe(true);
    const port = Number(new URL(s.url).port);
    for (let round = 0; round < 3; round++) {
      const asked = urls.flatMap((u, i) => Object.keys(DECODE).map((enc) => ({ u, enc, head: (i + round) % 7 === 0 })));
      const leaving = urls.filter((_, i) => i % 5 === round).map((u) => dropAfter(port, u, 0, 'gzip'));
      const got = await Promise.all(asked.map(({ u, enc, head }) => get(u, { 'Accept-Encoding': enc }, head ? 'HEAD' : 'GET')));
      await Promise.all(leaving);
      got.forEach((r, i) => {
        const { u, enc, head } = asked[i]!;
        expect(r.status, u).toBe(200);
        if (head) { expect(r.body.length, u).toBe(0); return; }
        expect(DECODE[r.encoding]!(r.body).equals(alone.get(u)!), `${enc} ${u}`).toBe(true);
      });
    }
  });
});
