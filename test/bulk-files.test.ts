// Bulk files (issue 19): a server on a fresh copy of the fixture builds, per
// published year, the spending and revenue tables as Parquet and gzip CSV in
// the background; /bulk lists them (building, then ready); each file is the
// flat route's CSV pages walked by Link (DuckDB reads both back), served with
// its length, byte ranges, immutable caching, HEAD, and its descriptor closed
// when a client leaves mid-file. inject() answers with the same headers.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkTarget } from 'civicstream/client';
import { readConfig } from '../dist/src/config.js';
import { loadFinance, financeService } from '../dist/src/finance/http/service.js';
import { bulkOf } from '../dist/src/finance/bulk-set.js';
import { serveOrBuild } from '../dist/src/finance/http/bulk-start.js';
import { inject } from '../dist/src/server/inject.js';
import { compilePipeline } from '../dist/src/server/pipeline.js';
import { Exchange } from '../dist/src/server/exchange.js';
import { query } from './helpers/duckdb.js';
import { ROOT, startServer, type Running } from './helpers/server.js';

interface Entry { year: number; table: string; format: string; status: string; url: string | null; file_name: string | null; media_type: string; rows: number | null; bytes: number | null; sha256: string | null }
interface Listing { data: Entry[]; meta: { total: number; ready: number; building: number; failed: number } }

const TYPES = ['state', 'county', 'city', 'township'];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-bulk-test-'));
const mirror = path.join(tmp, 'v6');
let server: Running;
let first: Listing;
let listing: Listing;
let years: number[];
const files = new Map<string, Buffer>();

const listOf = async (): Promise<Listing> => (await fetch(`${server.url}/api/v1/bulk`)).json() as Promise<Listing>;
const entry = (table: string, format: string, year = Math.max(...years)): Entry => listing.data.find((e) => e.table === table && e.format === format && e.year === year)!;
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const range = (url: string, value: string, extra: Record<string, string> = {}): Promise<Response> => fetch(`${server.url}${url}`, { headers: { range: value, ...extra } });

beforeAll(async () => {
  // A fresh copy: no set beside it and none in the cache for its path, so the server builds one.
  // Without what a server or `civicstream bulk` left beside the fixture (its caches, a prebuilt set).
  const src = path.join(ROOT, 'fixtures/finance/v6');
  cpSync(src, mirror, { recursive: true, filter: (f) => !['.civicstream-cache', 'bulk'].includes(path.relative(src, f).split(path.sep)[0]!) });
  server = await startServer({ FINANCE_DATA: mirror, BULK_BUILD: 'true' });
  first = await listOf();
  years = ((await (await fetch(`${server.url}/api/v1/`)).json()) as { data: { published_years: number[] }[] }).data[0]!.published_years;
  // The build threads run at nice 19, so they get only the CPU the rest of the machine leaves: with other test
  // files busy on the same cores, a build of a few seconds took over a minute once (a clean-clone run, 2026-11-29).
  const deadline = Date.now() + 200_000;
  for (listing = await listOf(); listing.meta.ready !== listing.meta.total && Date.now() < deadline; listing = await listOf()) {
    await new Promise((r) => setTimeout(r, 250));
  }
  if (listing.meta.ready !== listing.meta.total) throw new Error(`the bulk set was not built within 200 s: ${JSON.stringify(listing.meta)}`);
  for (const e of listing.data) files.set(e.url!, Buffer.from(await (await fetch(`${server.url}${e.url}`)).arrayBuffer()));
}, 240_000);

afterAll(async () => {
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('the listing', () => {
  it('says, while building, what is not ready yet (url null) and how many are', () => {
    expect(first.meta.total).toBe(first.data.length);
    expect(first.meta.ready + first.meta.building).toBe(first.meta.total);
    // Right after start on a fresh mirror the build has just begun.
    expect(first.meta.building).toBeGreaterThan(0);
    for (const e of first.data.filter((x) => x.status === 'building')) expect([e.url, e.rows, e.sha256]).toEqual([null, null, null]);
  });

  it('lists a file per published year, table and format, each ready with rows, bytes and sha256 of its file', () => {
    expect(listing.meta).toMatchObject({ ready: years.length * 4, building: 0, failed: 0 });
    const keys = listing.data.map((e) => `${e.table} ${e.year} ${e.format}`).sort();
    expect(keys).toEqual(years.flatMap((y) => ['spending', 'revenue'].flatMap((t) => ['parquet', 'csv.gz'].map((f) => `${t} ${y} ${f}`))).sort());
    for (const e of listing.data) {
      const body = files.get(e.url!)!;
      expect(e.url).toMatch(new RegExp(`^/api/v1/bulk/files/${e.table}-${e.year}-${e.sha256!.slice(0, 16)}\\.${e.format.replace('.', '\\.')}$`));
      expect(body.byteLength).toBe(e.bytes);
      expect(sha(body)).toBe(e.sha256);
      expect(e.rows).toBeGreaterThan(0);
    }
  });
});

describe('a file', () => {
  it('is served whole with its length, type, ETag, immutable caching and name, never content-coded', async () => {
    for (const e of [entry('spending', 'parquet'), entry('revenue', 'csv.gz')]) {
      const res = await fetch(`${server.url}${e.url}`, { headers: { 'accept-encoding': 'gzip, br' } });
      expect(res.status).toBe(200);
      expect(Object.fromEntries(['content-type', 'content-length', 'etag', 'cache-control', 'accept-ranges', 'content-disposition', 'content-encoding'].map((h) => [h, res.headers.get(h)]))).toEqual({
        'content-type': e.media_type, 'content-length': String(e.bytes), etag: `"${e.sha256}"`, 'cache-control': 'public, max-age=31536000, immutable',
        'accept-ranges': 'bytes', 'content-disposition': `attachment; filename="${e.file_name}"`, 'content-encoding': null,
      });
      expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(e.sha256);
    }
  });

  it('holds the rows of the flat route\'s CSV pages walked by Link, every type (DuckDB reads both files back)', async () => {
    const year = Math.max(...years);
    for (const table of ['spending', 'revenue']) {
      let csv = '';
      for (const type of TYPES) {
        let url: string | null = `${server.url}/api/v1/${table}?type=${type}&years=${year}&format=csv`;
        while (url !== null) {
          const res: Response = await fetch(url);
          const text = await res.text();
          csv += csv === '' ? text : text.slice(text.indexOf('\r\n') + 2);
          const next = linkTarget(res.headers.get('link'), 'next');
          url = next === null ? null : new URL(next, url).href;
        }
      }
      const gz = gunzipSync(files.get(entry(table, 'csv.gz').url!)!);
      // The gzip CSV is the pages' bytes, one header.
      expect(gz.equals(Buffer.from(csv))).toBe(true);
      const api = path.join(tmp, `${table}-api.csv`), got = path.join(tmp, `${table}-file.csv`), pq = path.join(tmp, `${table}.parquet`);
      writeFileSync(api, csv);
      writeFileSync(got, gz);
      writeFileSync(pq, files.get(entry(table, 'parquet').url!)!);
      // Each file read back by DuckDB, typed as the parquet is, against the API's pages: the same rows, as a multiset.
      const cols = await query(`DESCRIBE SELECT * FROM read_parquet('${pq}')`);
      // Typed columns, not text: a parquet of strings would still compare equal below, read with its own types.
      expect(Object.fromEntries(cols.map((c) => [c.column_name, c.column_type]))).toMatchObject({ year: 'INTEGER', amt_nominal: 'DOUBLE', aggregate_fallback: 'BOOLEAN', gov_name: 'VARCHAR' });
      const types = `{${cols.map((c) => `'${c.column_name}': '${c.column_type}'`).join(', ')}}`;
      const norm = cols.map((c) => (c.column_type === 'VARCHAR' ? `coalesce("${c.column_name}", '') AS "${c.column_name}"` : `"${c.column_name}"`)).join(', ');
      const from = (f: string): string => (f.endsWith('.parquet') ? `read_parquet('${f}')` : `read_csv('${f}', header = true, types = ${types})`);
      const diff = async (a: string, b: string): Promise<number> => (await query(`SELECT count(*) AS n FROM (SELECT ${norm} FROM ${from(a)} EXCEPT ALL SELECT ${norm} FROM ${from(b)})`))[0]!.n;
      const count = async (f: string): Promise<number> => (await query(`SELECT count(*) AS n FROM ${from(f)}`))[0]!.n;
      expect(await count(api)).toBe(entry(table, 'parquet').rows);
      expect([await count(pq), await count(got)]).toEqual([await count(api), await count(api)]);
      expect([await diff(pq, api), await diff(api, pq), await diff(got, api), await diff(api, got)]).toEqual([0, 0, 0, 0]);
    }
  });

  it('answers byte ranges exactly: a-b, a-, -n; 416 past the end; the whole file for several ranges or another If-Range', async () => {
    const e = entry('spending', 'parquet');
    const whole = files.get(e.url!)!, size = whole.byteLength;
    const cases: [string, number, number][] = [['bytes=0-0', 0, 0], ['bytes=100-199', 100, 199], [`bytes=${size - 1}-${size - 1}`, size - 1, size - 1],
      ['bytes=300000-', 300000, size - 1], ['bytes=-1000', size - 1000, size - 1], [`bytes=1-${size + 5000}`, 1, size - 1], [`bytes=-${size + 9}`, 0, size - 1]];
    for (const [value, a, b] of cases) {
      const res = await range(e.url!, value);
      expect([value, res.status, res.headers.get('content-range'), res.headers.get('content-length')]).toEqual([value, 206, `bytes ${a}-${b}/${size}`, String(b - a + 1)]);
      expect(Buffer.from(await res.arrayBuffer()).equals(whole.subarray(a, b + 1))).toBe(true);
    }
    for (const value of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
      const res = await range(e.url!, value);
      expect([res.status, res.headers.get('content-range')]).toEqual([416, `bytes */${size}`]);
      expect(((await res.json()) as { meta: { error_code: string } }).meta.error_code).toBe('E_RANGE_NOT_SATISFIABLE');
    }
    for (const [value, extra] of [['bytes=0-9,20-29', {}], ['bytes=0-9', { 'if-range': '"not-this-file"' }], ['items=0-9', {}], ['bytes=9-1', {}]] as const) {
      const res = await range(e.url!, value, extra);
      expect([value, res.status, res.headers.get('content-range')]).toEqual([value, 200, null]);
      expect(Buffer.from(await res.arrayBuffer()).equals(whole)).toBe(true);
    }
    const same = await range(e.url!, 'bytes=0-9', { 'if-range': `"${e.sha256}"` });
    expect([same.status, same.headers.get('content-range')]).toEqual([206, `bytes 0-9/${whole.length}`]);
    expect(Buffer.from(await same.arrayBuffer()).equals(whole.subarray(0, 10))).toBe(true);
  });

  it('answers HEAD with its length and no body, for the whole file and for a range', async () => {
    const e = entry('revenue', 'parquet');
    const head = await fetch(`${server.url}${e.url}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.headers.get('etag'), (await head.arrayBuffer()).byteLength]).toEqual([200, String(e.bytes), `"${e.sha256}"`, 0]);
    const part = await fetch(`${server.url}${e.url}`, { method: 'HEAD', headers: { range: 'bytes=10-19' } });
    expect([part.status, part.headers.get('content-length'), part.headers.get('content-range')]).toEqual([206, '10', `bytes 10-19/${e.bytes}`]);
  });

  it('revalidates by If-None-Match to a bodiless 304 with its ETag (GET and HEAD; *, lists, weak tags; before Range), and a tag of another file gets the file', async () => {
    const e = entry('spending', 'csv.gz'), other = entry('revenue', 'parquet');
    const tag = `"${e.sha256}"`;
    for (const method of ['GET', 'HEAD']) {
      for (const inm of [tag, 'W/' + tag, '*', `"0123", ${tag}`, `W/"${other.sha256}" ,W/${tag}`]) {
        for (const extra of [{}, { range: 'bytes=0-9' }]) {
          const res = await fetch(`${server.url}${e.url}`, { method, headers: { 'if-none-match': inm, ...extra } });
          const body = (await res.arrayBuffer()).byteLength;
          expect([res.status, res.headers.get('etag'), res.headers.get('cache-control'), body], `${method} ${inm} ${JSON.stringify(extra)}`)
            .toEqual([304, tag, 'public, max-age=31536000, immutable', 0]);
        }
      }
      for (const inm of [`"${other.sha256}"`, `"${e.sha256.slice(0, 16)}"`, e.sha256]) {
        const res = await fetch(`${server.url}${e.url}`, { method, headers: { 'if-none-match': inm } });
        expect([res.status, res.headers.get('content-length')], `${method} ${inm}`).toEqual([200, String(e.bytes)]);
        if (method === 'GET') expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(e.sha256);
        else await res.arrayBuffer();
      }
    }
  });

  it('is a 404 envelope by an unknown name; a name without its hash redirects to the current file', async () => {
    for (const name of ['spending-2020-0123456789abcdef.parquet', 'nope.parquet', `spending-${Math.max(...years)}-${'0'.repeat(16)}.csv.gz`]) {
      const res = await fetch(`${server.url}/api/v1/bulk/files/${name}`);
      expect([res.status, ((await res.json()) as { meta: { error_code: string } }).meta.error_code]).toEqual([404, 'E_NOT_FOUND']);
    }
    const res = await fetch(`${server.url}/api/v1/bulk/files/spending-latest.parquet`, { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([307, entry('spending', 'parquet').url]);
  });
});

/** Descriptors of process pid open on a file of this name. */
const openOn = (pid: number | 'self', name: string): number => readdirSync(`/proc/${pid}/fd`).filter((fd) => {
  try { return readlinkSync(`/proc/${pid}/fd/${fd}`).endsWith(name); } catch { return false; }
}).length;

describe('a client that leaves mid-file', () => {
  it('over HTTP: leaves no descriptor open, and the server goes on answering', async () => {
    const e = [...listing.data].sort((a, b) => b.bytes! - a.bytes!)[0]!;
    // A 4 KB receive buffer, set before connect, reading 1 KB and killed. (The fixture's files fit in the
    // kernel's send buffer, so the server may have written it all by then; the stream's own abort is below.)
    const py = spawn('python3', ['-c', `import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096); s.connect(('127.0.0.1', ${server.port}))
s.sendall(b'GET ${e.url} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'); s.recv(1024); print('ready', flush=True); sys.stdin.readline()`], { stdio: ['pipe', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => py.stdout.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(); }));
    py.kill('SIGKILL');
    let open = 1;
    for (let t = 0; t < 400 && open > 0; t++) { await new Promise((r) => setTimeout(r, 50)); open = openOn(server.proc.pid!, e.file_name!); }
    expect(open).toBe(0);
    const again = await fetch(`${server.url}${e.url}`);
    expect(sha(Buffer.from(await again.arrayBuffer()))).toBe(e.sha256);
  });
});

describe('revalidation and the rate limit', () => {
  // A server of its own on the same mirror (its set found in the cache the first one built), with a bucket of 10.
  let limited: Running | undefined;
  beforeAll(async () => {
    limited = await startServer({ FINANCE_DATA: mirror, BULK_BUILD: 'true', RATE_LIMIT: '1', RATE_LIMIT_BURST: '10' });
    for (let t = 0; t < 240; t++) {
      const l = (await (await fetch(`${limited.url}/api/v1/bulk`)).json()) as Listing;
      if (l.meta.ready === l.meta.total) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 120_000);
  afterAll(async () => { await limited?.stop(); });

  it('a bulk file revalidated to a 304 costs what any 304 costs (a tenth of a token), GET and HEAD: 40 fit in a bucket of 10', async () => {
    const e = entry('spending', 'parquet');
    const left = (res: Response): number => Number(/r=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1]);
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 40; i++) {
      last = await fetch(`${limited!.url}${e.url}`, { method: i % 2 === 0 ? 'GET' : 'HEAD', headers: { 'if-none-match': `"${e.sha256}"` } });
      await last.arrayBuffer();
      statuses.push(last.status);
    }
    expect(new Set(statuses)).toEqual(new Set([304]));
    // 40 tenths spent of 10: at least 5 whole tokens left (more as the bucket refills at 1 a second).
    expect(left(last!)).toBeGreaterThanOrEqual(5);
  });
});

describe('in-process', () => {
  let ctx: Awaited<ReturnType<typeof loadFinance>>;
  let service: ReturnType<typeof financeService>;
  beforeAll(async () => {
    ctx = await loadFinance(readConfig({ ...process.env, FINANCE_DATA: mirror, WORKERS: '1' }));
    service = financeService(ctx, readConfig({ ...process.env, FINANCE_DATA: mirror }));
    // The set the server built, found and checked as a server would (without building).
    await serveOrBuild(bulkOf(ctx), service, mirror, false, {});
  }, 60_000);
  afterAll(async () => { await ctx?.pool.close(); });

  it('inject answers a file with the headers the server sends, Content-Length included', async () => {
    const e = entry('spending', 'csv.gz');
    for (const headers of [{}, { range: 'bytes=5-104' }]) {
      const local = await inject(service, e.url!, { headers });
      const res = await fetch(`${server.url}${e.url}`, { headers });
      const wire = Object.fromEntries([...res.headers].filter(([k]) => !['date', 'x-request-id', 'uwebsockets', 'connection', 'keep-alive'].includes(k)));
      const mine = Object.fromEntries(Object.entries(local.headers).filter(([k]) => k !== 'x-request-id'));
      expect(mine).toEqual(wire);
      expect(local.body.equals(Buffer.from(await res.arrayBuffer()))).toBe(true);
    }
  });

  it('a file stream ended mid-file closes its descriptor, at once or once the read in flight ends', async () => {
    const e = entry('spending', 'csv.gz');
    const answer = async (): Promise<{ next(): unknown; done?(): void; length?: number }> => {
      const req = { method: 'get', methodText: 'GET', path: e.url!, query: '', host: 'x', ifNoneMatch: '', acceptEncoding: '', accept: '', range: '', ifRange: '', headerBytes: 0, conflictingLength: false, peer: '', forwardedFor: '' };
      const a = await compilePipeline(service).dispatch(req, new Exchange('t'));
      if (a.kind !== 'stream') throw new Error(`not a stream: ${a.kind}`);
      expect(a.length).toBe(e.bytes);
      return a;
    };
    const a = await answer();
    expect(((await a.next()) as Uint8Array).byteLength).toBe(64 * 1024);
    expect(openOn('self', e.file_name!)).toBe(1);
    a.done!();
    expect(openOn('self', e.file_name!)).toBe(0);
    const b = await answer();
    const reading = b.next() as Promise<Uint8Array | null>;
    b.done!();
    expect(openOn('self', e.file_name!)).toBe(1);
    await reading;
    expect(openOn('self', e.file_name!)).toBe(0);
  });
});
