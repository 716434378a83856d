// Bulk pages streamed as their worker writes them (issue 32). A never-seen
// CSV page's first bytes go to the client while its worker still writes the
// rest (the test hook /__faults__/pages holds every writer between its
// pieces, so the order is seen, not timed), and what it sends first is the
// page's first step, a few hundred rows summed before the rest of the page's
// groups (so the stepped path is the one taken); the streamed page equals its
// repeat byte for byte and the JSON rows, with the same headers; in gzip and
// br the worker codes it as it writes it, and curl, Python's requests,
// Node's fetch and Chromium all decode it to the identity bytes, with no
// compressor on the front thread; a client that leaves mid-page frees its
// slot and its worker's coder, its writer stopping before the page's end.
// And the serving side's pull, on its own: a page that outgrew its slot is
// sent whole, a job failing after bytes went makes the pull fail (the
// connection is then cut, never ended as if whole).

import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageArena, publishWritten } from '../dist/src/bytes/page-arena.js';
import { slotStream } from '../dist/src/finance/page-stream.js';
import type { MoneyPageResult } from '../dist/src/finance/job-io.js';
import { launchBrowser } from './helpers/browser.js';
import { parseCsv } from './helpers/csv.js';
import { get, raw, type Raw } from './helpers/http.js';
import { runCommand } from './helpers/run.js';
import { startServer, type Running } from './helpers/server.js';

const DECODE: Record<string, (b: Buffer) => Buffer> = { gzip: (b) => zlib.gunzipSync(b), br: (b) => zlib.brotliDecompressSync(b) };
const CODINGS = ['gzip', 'br'];
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let s: Running;
// One front thread, so the hook sees every page's slot; no response cache, so every pull is computed and coded anew.
beforeAll(async () => { s = await startServer({ WORKERS: '2', FRONT_THREADS: '1', CSV_PAGE_SLOTS: '4', RESPONSE_CACHE_MB: '0', CIVICSTREAM_FAULTS: '1' }); }, 60_000);
afterAll(async () => { await s?.stop(); });

interface PagesHook { coders_open: number; pages_cut: number; slots_writing: number; slots_free: number; slots_total: number }
const hook = async (hold?: boolean, fail?: boolean): Promise<PagesHook> =>
  (await get(`/__faults__/pages?${hold === undefined ? '' : `hold=${hold}`}${fail === undefined ? '' : `&fail=${fail}`}`, undefined, s.url)).body.data[0];
const health = async () => (await get('/api/v1/health', undefined, s.url)).body.data[0];
const pull = (p: string, headers: Record<string, string> = {}): Promise<Raw> => raw(p, headers, s.url);

/** Until the hook's figures satisfy ok (polled, at most 10 s). */
async function hookUntil(ok: (h: PagesHook) => boolean): Promise<PagesHook> {
  let h = await hook();
  for (let i = 0; i < 100 && !ok(h); i++) { await sleep(100); h = await hook(); }
  return h;
}

/**
 * A GET on a socket of its own: `first` resolves once the head and some body bytes have come (or rejects after
 * 20 s); `rest` once the answer has ended, with its body unchunked and whether it ended with the chunked
 * terminator; `drop` cuts the connection.
 */
function socketPull(port: number, p: string, acceptEncoding = '') {
  const sock = net.connect(port, '127.0.0.1', () => sock.write(`GET ${p} HTTP/1.1\r\nHost: x\r\n${acceptEncoding ? `Accept-Encoding: ${acceptEncoding}\r\n` : ''}Connection: close\r\n\r\n`));
  let got = Buffer.alloc(0);
  let onData: () => void = () => {};
  sock.on('data', (d: Buffer) => { got = Buffer.concat([got, d]); onData(); });
  const ended = new Promise<void>((r) => { sock.on('close', () => r()); sock.on('error', () => r()); });
  const headEnd = (): number => got.indexOf('\r\n\r\n');
  const first = new Promise<{ head: string; bodyBytes: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no body bytes within 20 s')), 20_000);
    onData = () => {
      const at = headEnd();
      if (at >= 0 && got.length > at + 4) { clearTimeout(timer); onData = () => {}; resolve({ head: got.subarray(0, at).toString(), bodyBytes: got.length - at - 4 }); }
    };
  });
  /** The body unchunked from what has come so far (a chunk not yet whole is left out), and whether it ended. */
  const unchunked = (): { body: Buffer; terminated: boolean } => {
    const parts: Buffer[] = [];
    let at = headEnd() + 4;
    for (;;) {
      const eol = got.indexOf('\r\n', at);
      if (eol < 0) return { body: Buffer.concat(parts), terminated: false };
      const size = parseInt(got.subarray(at, eol).toString(), 16);
      if (size === 0) return { body: Buffer.concat(parts), terminated: true };
      if (got.length < eol + 2 + size) return { body: Buffer.concat(parts), terminated: false };
      parts.push(got.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
  };
  const rest = async (): Promise<{ body: Buffer; terminated: boolean }> => { await ended; return unchunked(); };
  return { first, rest, sofar: () => unchunked().body, drop: () => sock.destroy() };
}

type Row = Record<string, unknown>;
/** CSV cells read as the JSON rows type them (numbers, booleans, nulls). */
async function csvRows(text: string, like: Row[]): Promise<Row[]> {
  const [header, ...rows] = await parseCsv(text);
  return rows.map((cells, i) => Object.fromEntries(header!.map((name, c) => {
    const j = like[i]?.[name], cell = cells[c]!;
    return [name, j === null ? (cell === '' ? null : cell) : typeof j === 'number' ? Number(cell) : typeof j === 'boolean' ? cell === 'true' : cell];
  })));
}

/** Headers a page's pulls must agree on (never the request id or the date). */
const PAGE_HEADERS = ['content-type', 'x-total-count', 'x-page', 'x-limit', 'x-units-expected', 'x-units-reporting', 'link', 'content-disposition', 'etag', 'vary', 'content-encoding'];
const headersOf = (r: Raw): Record<string, unknown> => Object.fromEntries(PAGE_HEADERS.map((h) => [h, r.headers[h]]));

describe('a never-seen CSV page streamed as its worker writes it', () => {
  it.each([
    ['50,000 rows of the national city page', '/api/v1/spending?type=city&years=2020&format=csv', 0, 50_000],
    ['a second page of 3,000 wide rows', '/api/v1/revenue?type=county&years=2011-2020&per_capita=true&adjust=real&identity=true&limit=3000&page=1&format=csv', 3000, 3000],
  ])('%s: the first pull equals its repeat byte for byte and the JSON rows, with the same headers', async (_name, q, offset, limit) => {
    const first = await pull(q);
    const again = await pull(q);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(first.body.equals(again.body)).toBe(true);
    expect(headersOf(first)).toEqual(headersOf(again));
    // The reference: the same rows as JSON envelopes, 1,000 a page, and their total.
    const json: Row[] = [];
    const base = q.replace(/&(format|limit|page)=[^&]*/g, '');
    let total = -1;
    for (let page = offset / 1000; json.length < limit; page++) {
      const env = (await get(`${base}&limit=1000&page=${page}`, undefined, s.url)).body;
      total = env.meta.total;
      if (env.data.length === 0) break;
      json.push(...env.data);
    }
    expect(first.headers['x-total-count']).toBe(String(total));
    expect(json.length).toBe(Math.min(limit, total - offset));
    expect(await csvRows(first.body.toString('utf8'), json)).toEqual(json);
  }, 60_000);

  it('sends its first bytes while its worker still writes the page, then the rest, the same bytes as a repeat', async () => {
    const q = '/api/v1/spending?type=city&years=2019&format=csv&per_capita=true';
    await hook(true);
    try {
      const p = socketPull(s.port, q);
      const { head, bodyBytes } = await p.first;
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      expect(head).toMatch(/\r\nX-Total-Count: \d+/i);
      // The head and the first rows came; the page's writer still holds its slot, between two pieces.
      const mid = await hook();
      expect(mid.slots_writing).toBe(1);
      // What came before the hold is lifted is the page's first step (money-page.ts csvInSteps): the header and
      // the rows of the groups summed until 256 rows were held (a group, one government's year, adds a few dozen
      // at most), sent before the rest of the page's groups were summed. A page summed whole sends its first
      // 64 KB piece, about 600 of these rows, and only after summing every group.
      // Polled, not timed: until whole rows and at least a step's worth have come (10 s at most, on a loaded
      // machine), then a moment more, in case the serving thread had more published to send.
      const rowsIn = (text: string): number => text.split('\n').length - 2;
      const whole = (text: string): boolean => text.endsWith('\n') && rowsIn(text) >= 256;
      for (const until = Date.now() + 10_000; !whole(p.sofar().toString('utf8')) && Date.now() < until;) await sleep(50);
      await sleep(300);
      const held = p.sofar().toString('utf8');
      expect(held.endsWith('\n')).toBe(true);
      const rows = rowsIn(held);
      expect(rows).toBeGreaterThanOrEqual(256);
      expect(rows).toBeLessThan(400);
      await hook(false);
      const { body, terminated } = await p.rest();
      expect(terminated).toBe(true);
      expect(bodyBytes).toBeLessThan(body.length);
      expect(body.equals((await pull(q)).body)).toBe(true);
    } finally {
      await hook(false);
    }
  }, 60_000);
});

describe('pages coded by their worker', () => {
  const PAGE = '/api/v1/spending?type=city&years=2019&limit=20000&format=csv';
  const ARROW = '/api/v1/revenue?type=city&years=2019,2020&format=arrow';
  let identity: Buffer, arrowIdentity: Buffer, compressedBefore: number;
  beforeAll(async () => {
    compressedBefore = (await health()).compression.streams_compressed;
    identity = (await pull(PAGE)).body;
    arrowIdentity = (await pull(ARROW)).body;
    expect(identity.length).toBeGreaterThan(1_000_000);
  }, 60_000);

  it.each(CODINGS)('%s: one coded stream, as sent, that decodes to the identity bytes (CSV and Arrow), coded by no front-thread compressor', async (coding) => {
    for (const [q, plain] of [[PAGE, identity], [ARROW, arrowIdentity]] as const) {
      const r = await pull(q, { 'accept-encoding': coding });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBe(coding);
      expect(r.headers.vary).toBe('Accept, Accept-Encoding');
      expect(r.headers.etag).toMatch(new RegExp(`-${coding}"$`));
      expect(r.body.length).toBeLessThan(plain.length / 3);
      expect(DECODE[coding]!(r.body).equals(plain)).toBe(true);
    }
    // Every coded page of this test was coded by its worker: the front thread's compressor count did not move.
    expect((await health()).compression.streams_compressed).toBe(compressedBefore);
    expect((await hookUntil((h) => h.coders_open === 0)).coders_open).toBe(0);
  }, 60_000);

  it.each(CODINGS)('%s: curl --compressed, Python requests and Node fetch decode it to the identity bytes', async (coding) => {
    const url = `${s.url}${PAGE}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'page-stream-'));
    try {
      const out = path.join(dir, 'body'), head = path.join(dir, 'head');
      const curl = await runCommand('curl', ['-s', '--compressed', '-H', `Accept-Encoding: ${coding}`, '-D', head, '-o', out, url]);
      expect(curl.status).toBe(0);
      expect(readFileSync(head, 'utf8')).toMatch(new RegExp(`\\r\\ncontent-encoding: ${coding}\\r\\n`, 'i'));
      expect(sha(readFileSync(out))).toBe(sha(identity));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // requests decodes br only with a brotli module beside it (urllib3): both must be there.
    const ready = await runCommand('python3', ['-c', 'import requests, brotli']);
    expect(ready.status, `python3 needs requests and brotli: python3 -m pip install requests brotli (${ready.stderr})`).toBe(0);
    const py = await runCommand('python3', ['-c', [
      'import hashlib, sys, requests',
      'r = requests.get(sys.argv[1], headers={"Accept-Encoding": sys.argv[2]})',
      'print(r.status_code, r.headers.get("Content-Encoding"), hashlib.sha256(r.content).hexdigest())',
    ].join('\n'), url, coding]);
    expect(py.stdout.trim(), py.stderr).toBe(`200 ${coding} ${sha(identity)}`);
    const res = await fetch(url, { headers: { 'accept-encoding': coding } });
    expect(res.headers.get('content-encoding')).toBe(coding);
    expect(sha(new Uint8Array(await res.arrayBuffer()))).toBe(sha(identity));
  }, 60_000);

  describe('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => { browser = await launchBrowser(); }, 60_000);
    afterAll(async () => { await browser?.close(); });

    it.each(CODINGS)('%s: a page\'s fetch() decodes it to the identity bytes', async (coding) => {
      const page = await browser.newPage();
      try {
        // Chromium names its own codings; the page's requests here ask for this one alone.
        await page.setExtraHTTPHeaders({ 'Accept-Encoding': coding });
        await page.goto(`${s.url}/api/v1/health`);
        const got = await page.evaluate(async (u) => {
          const r = await fetch(u);
          const digest = await crypto.subtle.digest('SHA-256', await r.arrayBuffer());
          return { status: r.status, coding: r.headers.get('content-encoding'), sha: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('') };
        }, `${s.url}${PAGE}`);
        expect(got).toEqual({ status: 200, coding, sha: sha(identity) });
      } finally {
        await page.close();
      }
    }, 60_000);
  });
});

describe('a client that leaves mid-page', () => {
  it.each([['no coding', ''], ['gzip', 'gzip'], ['br', 'br']])('%s: its slot and its worker\'s coder are freed, its writer stopped before the page\'s end', async (_name, coding) => {
    const q = `/api/v1/spending?type=city&years=2011&format=csv&adjust=real&limit=${coding === '' ? 49_000 : coding === 'gzip' ? 48_000 : 47_000}`;
    const before = await hookUntil((h) => h.slots_free === h.slots_total && h.coders_open === 0);
    await hook(true);
    try {
      const p = socketPull(s.port, q, coding);
      expect((await p.first).head).toMatch(/^HTTP\/1\.1 200 /);
      const mid = await hook();
      expect(mid.slots_writing).toBe(1);
      expect(mid.coders_open).toBe(coding === '' ? 0 : 1);
      p.drop();
      // Still held: the writer can only have come back by seeing its lease given up, not by finishing the page.
      const after = await hookUntil((h) => h.slots_free === h.slots_total && h.coders_open === 0 && h.slots_writing === 0);
      expect(after).toMatchObject({ slots_free: before.slots_total, coders_open: 0, slots_writing: 0 });
      expect(after.pages_cut - before.pages_cut).toBe(1);
    } finally {
      await hook(false);
    }
    // And the server pulls on.
    expect((await pull(q)).status).toBe(200);
  }, 60_000);
});

describe('a page job failing after its first bytes went', () => {
  it.each([['no coding', ''], ['gzip', 'gzip']])('%s: the connection is cut without the chunked terminator, the slot comes back, the server pulls on', async (_name, coding) => {
    const q = `/api/v1/revenue?type=city&years=2011&format=csv&limit=${coding === '' ? 46_000 : 45_000}`;
    await hook(true);
    try {
      const p = socketPull(s.port, q, coding);
      expect((await p.first).head).toMatch(/^HTTP\/1\.1 200 /);
      await hook(undefined, true);
      const { body, terminated } = await p.rest();
      expect(terminated).toBe(false);
      expect(body.length).toBeGreaterThan(0);
    } finally {
      await hook(false, false);
    }
    const after = await hookUntil((h) => h.slots_free === h.slots_total && h.coders_open === 0);
    expect(after).toMatchObject({ slots_free: after.slots_total, coders_open: 0 });
    const again = await pull(q, coding === '' ? {} : { 'accept-encoding': coding });
    expect(again.status).toBe(200);
  }, 60_000);
});

describe('the serving side of a slot (page-stream.ts)', () => {
  const never = (): Promise<void> => new Promise(() => {});
  /** Pulls until the end or a failure: the chunks, and the failure if any. */
  async function drain(next: () => Uint8Array | null | Promise<Uint8Array | null>): Promise<{ bytes: Buffer; failed?: unknown }> {
    const chunks: Buffer[] = [];
    try {
      for (let c = await next(); c !== null; c = await next()) chunks.push(Buffer.from(c));
      return { bytes: Buffer.concat(chunks) };
    } catch (failed) {
      return { bytes: Buffer.concat(chunks), failed };
    }
  }

  it('sends what is published as it is published, then a page that outgrew its slot from its whole bytes', async () => {
    const a = new PageArena(1, 1000, never);
    const lease = a.acquire()!;
    const page = Buffer.from(Array.from({ length: 3000 }, (_, i) => `${i % 10}`).join(''));
    let finish!: (r: MoneyPageResult) => void;
    const next = slotStream(a, lease, new Promise<MoneyPageResult>((r) => { finish = r; }));
    a.view(lease.slot, 1000).set(page.subarray(0, 600));
    publishWritten(a.slots, lease, 600);
    expect(Buffer.from((await next())!).equals(page.subarray(0, 600))).toBe(true);
    const waiting = next();
    expect(waiting).toBeInstanceOf(Promise);
    a.view(lease.slot, 1000).set(page.subarray(600, 1000), 600);
    publishWritten(a.slots, lease, 1000);
    expect(Buffer.from((await waiting)!).equals(page.subarray(600, 1000))).toBe(true);
    const rest = drain(next);
    finish({ total: 1, count: null, inSlot: false, length: page.length, bytes: page, cut: false });
    expect((await rest).bytes.equals(page.subarray(1000))).toBe(true);
    a.release(lease);
  });

  it('a job failing after bytes went makes the pull fail, never end as if the page were whole', async () => {
    const a = new PageArena(1, 1000, never);
    const lease = a.acquire()!;
    let fail!: (e: Error) => void;
    const next = slotStream(a, lease, new Promise<MoneyPageResult>((_r, j) => { fail = j; }));
    a.view(lease.slot, 1000).set(Buffer.from('year,amt\r\n'));
    publishWritten(a.slots, lease, 10);
    const got = drain(next);
    await sleep(10);
    fail(new Error('the worker died'));
    const { bytes, failed } = await got;
    expect(bytes.toString()).toBe('year,amt\r\n');
    expect(String(failed)).toMatch(/the worker died/);
    a.release(lease);
  });
});
