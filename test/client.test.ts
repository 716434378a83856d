// The typed client (civicstream/client) against the real server: every page
// of a flat query, a 50,000-row CSV streamed, retries on 503 after
// Retry-After, the API's message on an error, and types that refuse a wrong
// parameter at compile time.

import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, CivicstreamError, arrestsClient, csvRecords, financeClient, linkTarget } from 'civicstream/client';
import { clientTypes } from '../dist/scripts/gen-client-types.js';
import { arrestsUrl, financeUrl, get } from './helpers/http.js';
import { asCell, parseCsv } from './helpers/csv.js';
import { ROOT } from './helpers/server.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-client-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('typed client', () => {
  it('walks every page of a flat query: each row once, meta.total rows in all, the same rows as one big page', async () => {
    const fin = financeClient(financeUrl());
    const rows = [];
    for await (const r of fin.pages('/api/v1/spending', { state: 'DE', type: 'city', years: '2011-2020', limit: 100 })) rows.push(r);
    const one = await get('/api/v1/spending?state=DE&type=city&years=2011-2020&limit=1000');
    expect(rows.length).toBe(one.body.meta.total);
    expect(rows.length).toBeGreaterThan(300); // several pages
    expect(rows).toEqual(one.body.data);
    const school = arrestsClient(arrestsUrl());
    const est = [];
    for await (const r of school.pages('/api/v1/estimates', { state: 'DE', year: '21-22', limit: 50 })) est.push(r);
    const all = await get('/api/v1/estimates?state=DE&year=21-22&limit=1000', undefined, arrestsUrl());
    expect(est).toEqual(all.body.data);
  });

  it('streams a CSV pull record by record and follows Link from page to page, to exactly X-Total-Count records, equal to the pages parsed whole', async () => {
    const fin = financeClient(financeUrl());
    const params = { type: 'city', years: '2011', limit: 20000 } as const;
    const got: Record<string, unknown>[] = [];
    for await (const r of fin.csv('/api/v1/spending', params)) got.push(r);
    const first = await fetch(`${financeUrl()}/api/v1/spending?type=city&years=2011&limit=20000&format=csv`);
    const total = Number(first.headers.get('x-total-count'));
    expect(total).toBeGreaterThan(40000); // three pages at least
    expect(got.length).toBe(total);
    const whole: string[][] = [];
    let head: string[] = [];
    for (let page = 0; page * 20000 < total; page++) {
      const rows = await parseCsv(await (await fetch(`${financeUrl()}/api/v1/spending?type=city&years=2011&limit=20000&format=csv&page=${page}`)).text());
      head = rows[0]!;
      whole.push(...rows.slice(1));
    }
    expect(Object.keys(got[0]!)).toEqual(head);
    // Typed records, written back as CSV writes them: null an empty cell.
    expect(got.map((r) => Object.values(r).map(asCell))).toEqual(whole);
    await first.arrayBuffer();
  }, 60_000);

  it('types csv() records from the route\'s declared row fields: the JSON rows, numbers, booleans and nulls included (issue 22, item 8)', async () => {
    const fin = financeClient(financeUrl());
    const q = { state: 'DE', type: 'city', years: '2011,2020', category: 'Police', per_capita: true, adjust: 'real', complete: true, identity: true } as const;
    const typed: Record<string, unknown>[] = [];
    for await (const r of fin.csv('/api/v1/spending', { ...q, limit: 50 })) typed.push(r);
    const json: unknown[] = [];
    for await (const r of fin.pages('/api/v1/spending', { ...q, limit: 1000 })) json.push(r);
    expect(json.length).toBeGreaterThan(100);
    expect(typed).toEqual(json);
    expect(typed.some((r) => r.amt_nominal === null) && typed.some((r) => typeof r.amt_real === 'number') && typed.some((r) => r.aggregate_fallback === false)).toBe(true);
    // One government's CSV too (the per-government routes answer CSV now).
    const one: unknown[] = [];
    for await (const r of fin.csv('/api/v1/governments/{govid}/revenue', { govid: '062037161174', category: 'Property Tax' })) one.push(r);
    expect(one).toEqual((await get('/api/v1/governments/062037161174/revenue?category=Property%20Tax')).body.data);
  }, 60_000);

  it('reads Link headers as RFC 8288 writes them', () => {
    expect(linkTarget('</a?page=1>; rel="next", </a?page=4>; rel="last"', 'next')).toBe('/a?page=1');
    expect(linkTarget('</a?page=1>; rel="next", </a?page=4>; rel="last"', 'last')).toBe('/a?page=4');
    expect(linkTarget('<https://x/b>; rel=next', 'next')).toBe('https://x/b');
    expect(linkTarget('</a?page=0>; title="p, 0"; rel="prev first"', 'first')).toBe('/a?page=0');
    expect(linkTarget('</a?page=0>; rel="prev"', 'next')).toBeNull();
    expect(linkTarget(null, 'next')).toBeNull();
  });

  it('parses quoted fields split across chunks: commas, doubled quotes, line breaks', async () => {
    const text = 'a,b\r\n"x, ""y""","multi\r\nline"\r\nplain,"q"\r\n';
    for (const size of [1, 2, 3, 7, 100]) {
      const bytes = new TextEncoder().encode(text);
      const stream = new ReadableStream<Uint8Array>({
        start(c) { for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.slice(i, i + size)); c.close(); },
      });
      const out = [];
      for await (const r of csvRecords(stream)) out.push(r);
      expect(out, `chunks of ${size}`).toEqual([['a', 'b'], ['x, "y"', 'multi\r\nline'], ['plain', 'q']]);
    }
  });

  it('retries a 503 after its Retry-After seconds (or its backoff without one), then answers; gives up after its retries', async () => {
    let calls = 0, noHeader = false;
    const stamps: number[] = [];
    const srv = createServer((_req, res) => {
      calls++;
      stamps.push(Date.now());
      if (calls <= 2) { res.writeHead(503, noHeader ? { 'Content-Type': 'application/json' } : { 'Retry-After': '1', 'Content-Type': 'application/json' }); res.end('{"status":"error","data":null,"error":"busy","meta":{},"provenance":null,"suggestions":[]}'); return; }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"status":"success","data":[{"x":1}],"error":null,"meta":{"total":1,"limit":10,"page":0},"provenance":null,"suggestions":[]}');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    try {
      const c = new Client<{ '/x': { params: object; row: { x: number } } }>(`http://127.0.0.1:${port}`);
      const env = await c.get('/x');
      expect(env.data).toEqual([{ x: 1 }]);
      expect(calls).toBe(3);
      expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(950);
      expect(stamps[2]! - stamps[1]!).toBeGreaterThanOrEqual(950);
      // A 503 without Retry-After (a proxy's, say) waits the backoff, not zero.
      calls = 1;
      noHeader = true;
      const backoff = new Client<{ '/x': { params: object; row: { x: number } } }>(`http://127.0.0.1:${port}`, { backoffMs: 300 });
      stamps.length = 0;
      expect((await backoff.get('/x')).data).toEqual([{ x: 1 }]);
      expect(stamps[1]! - stamps[0]!).toBeGreaterThanOrEqual(280);
      noHeader = false;
      calls = -100; // from now on every answer is a 503
      const stubborn = new Client<{ '/x': { params: object; row: object } }>(`http://127.0.0.1:${port}`, { retries: 1 });
      const err = await stubborn.get('/x').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CivicstreamError);
      expect((err as CivicstreamError).status).toBe(503);
      expect((err as CivicstreamError).message).toBe('busy');
    } finally {
      srv.close();
    }
  }, 30_000);

  it('an API error is a CivicstreamError with the API\'s message', async () => {
    const fin = financeClient(financeUrl());
    const err = await fin.get('/api/v1/governments/{govid}/spending', { govid: '000000000000' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CivicstreamError);
    const api = await get('/api/v1/governments/000000000000/spending');
    expect((err as CivicstreamError).status).toBe(api.status);
    expect((err as CivicstreamError).message).toBe(api.body.error);
  });

  it('its types come from the route tables (regenerated equal) and refuse a wrong parameter at compile time', async () => {
    expect(readFileSync(path.join(ROOT, 'src/client/routes.gen.ts'), 'utf8')).toBe(clientTypes());
    const use = (line: string): string => [
      `import { financeClient } from ${JSON.stringify(path.join(ROOT, 'dist/src/client/index.js'))};`,
      'const c = financeClient();',
      `export async function f(): Promise<void> { ${line} }`,
    ].join('\n');
    const tsc = (file: string): Promise<string> => new Promise((resolve) => {
      execFile(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--skipLibCheck', file], { cwd: ROOT }, (_e, stdout) => resolve(stdout));
    });
    const good = path.join(tmp, 'good.mts'), bad = path.join(tmp, 'bad.mts');
    writeFileSync(good, use("for await (const r of c.pages('/api/v1/spending', { state: 'TX', type: 'county', years: '2011-2020' })) { const n: number | null = r.amt_nominal; void n; }"));
    writeFileSync(bad, use("await c.get('/api/v1/spending', { type: 'village' });"));
    expect(await tsc(good)).toBe('');
    expect(await tsc(bad)).toMatch(/error TS2322: Type '"village"' is not assignable/);
  }, 60_000);

  it('names the URL it could not reach, and how often it tried (issue 22, item 8)', async () => {
    // A port nothing listens on: a server started and closed again.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const c = financeClient(`http://127.0.0.1:${port}`, { retries: 1, backoffMs: 1 });
    const err = await c.get('/api/v1/governments', { state: 'DE' }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(`could not reach http://127.0.0.1:${port}/api/v1/governments?state=DE after 2 attempts: connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});
