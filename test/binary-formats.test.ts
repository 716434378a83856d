// Arrow and Parquet answers (issue 19): the same rows as JSON and CSV, in
// typed columns, with the same paging headers, and the provenance in the
// key-value metadata. Arrow is read with apache-arrow and with arrow-rs
// (parquet-wasm's IPC reader); Parquet with DuckDB and with parquet-wasm.
// DuckDB's own Arrow reader is a community extension it cannot install
// offline, so DuckDB reads the Arrow answer through arrow-rs's Parquet.

import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tableFromIPC, type Table } from 'apache-arrow';
import { Table as WasmTable, readParquet, writeParquet } from 'parquet-wasm';
import { describe, expect, it } from 'vitest';
import { linkTarget } from 'civicstream/client';
import { query } from './helpers/duckdb.js';
import { expectErrorEnvelope, financeUrl, get, raw } from './helpers/http.js';
import { parseCsv } from './helpers/csv.js';

type Row = Record<string, unknown>;
const dir = mkdtempSync(path.join(os.tmpdir(), 'civicstream-binary-'));
let files = 0;

async function fetchBytes(p: string, init?: RequestInit): Promise<{ res: Response; bytes: Uint8Array }> {
  const res = await fetch(`${financeUrl()}${p}`, init);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** Arrow rows as plain values (int32 and float64 numbers, dictionary words strings, nulls null). */
const arrowRows = (t: Table): Row[] => t.toArray().map((r) => ({ ...(r.toJSON() as Row) }));

/** A Parquet or Arrow answer read by DuckDB from a file. */
async function duckRows(bytes: Uint8Array, kind: 'parquet' | 'arrow'): Promise<Row[]> {
  // The Arrow stream through arrow-rs (parquet-wasm's IPC reader) into Parquet, which DuckDB reads.
  const parquet = kind === 'parquet' ? bytes : writeParquet(WasmTable.fromIPCStream(bytes));
  const file = path.join(dir, `answer-${files++}.parquet`);
  writeFileSync(file, parquet);
  return query(`SELECT * FROM read_parquet('${file}')`);
}

/** CSV cells typed as the JSON row's value is (the oracle): '' is null where JSON has null. */
async function csvRows(text: string, like: Row[]): Promise<Row[]> {
  const [header, ...rows] = await parseCsv(text);
  return rows.map((cells, i) => Object.fromEntries(header!.map((name, c) => {
    const j = like[i]?.[name], cell = cells[c]!;
    const v = j === null ? (cell === '' ? null : cell) : typeof j === 'number' ? Number(cell) : typeof j === 'boolean' ? cell === 'true' : cell;
    return [name, v];
  })));
}

/** Every page of a query by its Link rel="next", in one format. */
async function walk(first: string): Promise<{ pages: Uint8Array[]; headers: Headers[] }> {
  const pages: Uint8Array[] = [], headers: Headers[] = [];
  for (let url: string | null = first; url !== null;) {
    const { res, bytes } = await fetchBytes(url);
    expect(res.status).toBe(200);
    pages.push(bytes);
    headers.push(res.headers);
    url = linkTarget(res.headers.get('link'), 'next');
  }
  return { pages, headers };
}

/** Every JSON page of a query by page number, to meta.total rows. */
async function jsonPages(p: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = 0, total = 1; rows.length < total; page++) {
    const env = (await get(`${p}&page=${page}`)).body;
    total = env.meta.total;
    expect(env.data.length).toBeGreaterThan(0);
    rows.push(...env.data);
  }
  return rows;
}

/** A canonical URL's query as a sorted list of its pieces (the canonical order is the route's, not the test's). */
const pieces = (url: string): string[] => url.slice(url.indexOf('?') + 1).split('&').sort();

const FLAT = '/api/v1/spending?state=DE&type=city&category=Police&years=2019,2020&per_capita=true&adjust=real&complete=true&identity=true&limit=100';

describe('Arrow and Parquet pages of a flat query', () => {
  it('hold the JSON rows and the CSV rows, page for page, read by apache-arrow, arrow-rs, DuckDB and parquet-wasm', async () => {
    const json = await jsonPages(FLAT);
    expect(json.length).toBeGreaterThan(200);
    // Nulls, both booleans and every typed column occur, so the comparison covers them.
    expect(json.some((r) => r.amt_nominal === null) && json.some((r) => typeof r.amt_real === 'number')).toBe(true);
    expect(json.some((r) => r.population === null) && json.some((r) => typeof r.population === 'number')).toBe(true);
    // identity=true: who each row is. population is the per-capita denominator of the row.
    expect(json.every((r) => r.state === 'DE' && r.type === 'city')).toBe(true);
    for (const r of json.filter((x) => typeof x.amt_per_capita_nominal === 'number' && (x.amt_nominal as number) > 0)) {
      expect(Math.round((r.amt_nominal as number) / (r.amt_per_capita_nominal as number))).toBe(r.population);
    }
    expect(json.filter((r) => r.population === null).every((r) => r.pop_source === 'unavailable')).toBe(true);
    const plain = (await get(FLAT.replace('&identity=true', ''))).body.data[0];
    expect(Object.keys(plain)).not.toContain('state');
    expect(Object.keys(json[0]!).slice(0, 6)).toEqual(['year', 'canonical_govid', 'gov_name', 'state', 'type', 'population']);
    const csv = await walk(`${FLAT}&format=csv`);
    const csvAll: Row[] = [];
    for (const b of csv.pages) csvAll.push(...(await csvRows(Buffer.from(b).toString('utf8'), json.slice(csvAll.length))));
    expect(csvAll).toEqual(json);

    const arrow = await walk(`${FLAT}&format=arrow`);
    expect(arrow.pages.length).toBe(Math.ceil(json.length / 100));
    const apache: Row[] = [], rs: Row[] = [], viaDuck: Row[] = [];
    for (const b of arrow.pages) {
      apache.push(...arrowRows(tableFromIPC(b)));
      rs.push(...arrowRows(tableFromIPC(WasmTable.fromIPCStream(b).intoIPCStream())));
      viaDuck.push(...(await duckRows(b, 'arrow')));
    }
    expect(apache).toEqual(json);
    expect(rs).toEqual(json);
    expect(viaDuck).toEqual(json);

    const parquet = await walk(`${FLAT}&format=parquet`);
    const duck: Row[] = [], wasm: Row[] = [];
    for (const b of parquet.pages) {
      duck.push(...(await duckRows(b, 'parquet')));
      wasm.push(...arrowRows(tableFromIPC(readParquet(b).intoIPCStream())));
    }
    expect(duck).toEqual(json);
    expect(wasm).toEqual(json);
    for (const h of [...arrow.headers, ...parquet.headers]) expect(Number(h.get('x-total-count'))).toBe(json.length);
  });

  it('types the columns: integers int32, amounts float64, words dictionary-encoded, flags boolean, all nullable', async () => {
    const { res, bytes } = await fetchBytes(`${FLAT}&format=arrow`);
    expect(res.headers.get('content-type')).toBe('application/vnd.apache.arrow.stream');
    const t = tableFromIPC(bytes);
    const types = Object.fromEntries(t.schema.fields.map((f) => [f.name, String(f.type)]));
    expect(types).toEqual({
      year: 'Int32', canonical_govid: 'Dictionary<Int32, Utf8>', gov_name: 'Dictionary<Int32, Utf8>', state: 'Dictionary<Int32, Utf8>',
      type: 'Dictionary<Int32, Utf8>', population: 'Int32', category: 'Dictionary<Int32, Utf8>', spend_subtype: 'Dictionary<Int32, Utf8>',
      amt_nominal: 'Float64', amt_real: 'Float64', amt_per_capita_nominal: 'Float64', amt_per_capita_real: 'Float64',
      pop_source: 'Dictionary<Int32, Utf8>', codes_included: 'Dictionary<Int32, Utf8>', aggregate_fallback: 'Bool', notes: 'Dictionary<Int32, Utf8>',
      value_source: 'Dictionary<Int32, Utf8>',
    });
    expect(t.schema.fields.every((f) => f.nullable)).toBe(true);
    // Batch by batch: a 100-row page is one batch; a full page is several (8,192 rows each).
    const big = tableFromIPC((await fetchBytes('/api/v1/revenue?type=city&years=2019,2020&format=arrow&limit=20000')).bytes);
    expect(big.batches.map((b) => b.numRows)).toEqual([8192, 8192, 3616]);
    const d = await query(`DESCRIBE SELECT * FROM read_parquet('${path.join(dir, await saved((await fetchBytes(`${FLAT}&format=parquet`)).bytes))}')`);
    expect(Object.fromEntries(d.map((r) => [r.column_name, r.column_type]))).toMatchObject({
      year: 'INTEGER', population: 'INTEGER', amt_nominal: 'DOUBLE', aggregate_fallback: 'BOOLEAN', gov_name: 'VARCHAR',
    });
  });

  it('carries the query and its provenance in the Arrow schema and the Parquet footer', async () => {
    const url = `${FLAT}&format=arrow`;
    const meta = tableFromIPC((await fetchBytes(url)).bytes).schema.metadata;
    expect([...meta.keys()]).toEqual(['civicstream.provenance']);
    const prov = JSON.parse(meta.get('civicstream.provenance')!);
    expect(pieces(prov.call)).toEqual(pieces(url));
    expect(prov).toMatchObject({ verb: 'spending', years: [2019, 2020], category: 'Police', basis: 'harmonized', completion: { applied: true } });
    expect(prov.transformations.inflation).toMatchObject({ applied: true, base_year: 2020 });
    // The record it names is the JSON envelope of the same query, whose provenance has the scan's findings.
    const record = await get(prov.record);
    expect(record.status).toBe(200);
    expect(record.body.provenance.codes_summed.observed.length).toBeGreaterThan(0);
    expect(record.body.provenance.manifest).toEqual(prov.manifest);
    const file = await saved((await fetchBytes(`${FLAT}&format=parquet`)).bytes);
    const kv = await query(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${path.join(dir, file)}')`);
    const byKey = new Map(kv.map((r) => [r.k as string, r.v as string]));
    expect([...byKey.keys()].sort()).toEqual(['ARROW:schema', 'civicstream.provenance']);
    expect(pieces(JSON.parse(byKey.get('civicstream.provenance')!).call)).toEqual(pieces(`${FLAT}&format=parquet`));
  });

  it('walks a multi-page pull by Link to exactly X-Total-Count rows, each page named for its format', async () => {
    for (const format of ['arrow', 'parquet'] as const) {
      const { pages, headers } = await walk(`/api/v1/revenue?type=city&years=2019,2020&format=${format}&limit=20000`);
      const rows = pages.map((b) => (format === 'arrow' ? tableFromIPC(b) : tableFromIPC(readParquet(b).intoIPCStream())).numRows);
      expect(rows.reduce((a, b) => a + b, 0)).toBe(Number(headers[0]!.get('x-total-count')));
      expect(pages.length).toBe(3);
      expect(headers.map((h) => h.get('content-disposition'))).toEqual([0, 1, 2].map((p) => `attachment; filename="revenue_type-city_years-2019-2020_limit-20000_page-${p}.${format}"`));
    }
  });
});

async function saved(bytes: Uint8Array): Promise<string> {
  const name = `saved-${files++}.parquet`;
  writeFileSync(path.join(dir, name), bytes);
  return name;
}

describe("one government's money routes in CSV, Arrow and Parquet", () => {
  const gov = '/api/v1/governments/062037161174';
  for (const route of ['spending?category=Police&per_capita=true&adjust=real', 'revenue', 'balances', 'profile']) {
    it(`${route.split('?')[0]}: the JSON page's rows, and its provenance in the metadata`, async () => {
      const env = (await get(`${gov}/${route}`)).body;
      expect(env.data.length).toBeGreaterThan(0);
      const sep = route.includes('?') ? '&' : '?';
      const arrow = tableFromIPC((await fetchBytes(`${gov}/${route}${sep}format=arrow`)).bytes);
      expect(arrowRows(arrow)).toEqual(env.data);
      const prov = JSON.parse(arrow.schema.metadata.get('civicstream.provenance')!);
      expect({ ...prov, call: null }).toEqual({ ...env.provenance, call: null });
      expect(pieces(prov.call)).toEqual(pieces(`${gov}/${route}${sep}format=arrow`));
      expect(await duckRows((await fetchBytes(`${gov}/${route}${sep}format=parquet`)).bytes, 'parquet')).toEqual(env.data);
      const csv = await fetchBytes(`${gov}/${route}${sep}format=csv`);
      expect(csv.res.headers.get('x-total-count')).toBe(String(env.meta.total));
      expect(await csvRows(Buffer.from(csv.bytes).toString('utf8'), env.data)).toEqual(env.data);
    });
  }
});

describe('choosing the format by Accept', () => {
  const q = '/api/v1/spending?state=DE&type=city&years=2020&limit=50';
  const kind = async (accept: string, p = q): Promise<[number, string]> => {
    const r = await fetch(`${financeUrl()}${p}`, { headers: { Accept: accept } });
    await r.arrayBuffer();
    return [r.status, String(r.headers.get('content-type'))];
  };

  it('answers in the format Accept prefers when the query names none, and the query wins over Accept', async () => {
    expect(await kind('application/vnd.apache.arrow.stream')).toEqual([200, 'application/vnd.apache.arrow.stream']);
    expect(await kind('application/vnd.apache.parquet')).toEqual([200, 'application/vnd.apache.parquet']);
    expect(await kind('text/csv')).toEqual([200, 'text/csv; charset=utf-8']);
    expect(await kind('application/json;q=0.5, application/vnd.apache.arrow.stream')).toEqual([200, 'application/vnd.apache.arrow.stream']);
    expect(await kind('text/*;q=0.9, application/json')).toEqual([200, 'application/json; charset=utf-8']);
    expect(await kind('*/*')).toEqual([200, 'application/json; charset=utf-8']);
    expect(await kind('text/html,application/xhtml+xml,*/*;q=0.8')).toEqual([200, 'application/json; charset=utf-8']);
    expect(await kind('application/vnd.apache.arrow.stream', `${q}&format=csv`)).toEqual([200, 'text/csv; charset=utf-8']);
    // Nothing that parses is no preference; an element whose q is not RFC 9110's is not read; a route of one format ignores Accept.
    expect(await kind(';;, /, q=2')).toEqual([200, 'application/json; charset=utf-8']);
    expect(await kind('text/csv;q=0.0001, application/json;q=0.5')).toEqual([200, 'application/json; charset=utf-8']);
    expect(await kind('text/csv;q=1.5, application/json;q=0.5')).toEqual([200, 'application/json; charset=utf-8']);
    expect(await kind('text/csv', '/api/v1/governments?state=DE')).toEqual([200, 'application/json; charset=utf-8']);
  });

  it('gives the negotiated answer the bytes and the ETag of the same format asked by name', async () => {
    const named = await fetchBytes(`${q}&format=arrow`);
    const chosen = await fetchBytes(q, { headers: { Accept: 'application/vnd.apache.arrow.stream' } });
    // The provenance's call included: Accept picked format=arrow as if the query had named it.
    expect(Buffer.from(chosen.bytes).equals(Buffer.from(named.bytes))).toBe(true);
    expect(chosen.res.headers.get('etag')).toBe(named.res.headers.get('etag'));
    expect(chosen.res.headers.get('etag')).not.toBe((await fetchBytes(q)).res.headers.get('etag'));
  });

  it('tells shared caches that the answer varies with Accept on routes of several formats, 304s included', async () => {
    const r = await fetch(`${financeUrl()}${q}`);
    await r.arrayBuffer();
    expect(r.headers.get('vary')).toBe('Accept, Accept-Encoding');
    const again = await fetch(`${financeUrl()}${q}`, { headers: { 'If-None-Match': r.headers.get('etag')! } });
    expect([again.status, again.headers.get('vary')]).toEqual([304, 'Accept, Accept-Encoding']);
    const one = await fetch(`${financeUrl()}/api/v1/governments?state=DE`);
    await one.arrayBuffer();
    expect(one.headers.get('vary')).toBe('Accept-Encoding');
  });

  it('refuses with a 406 envelope an Accept that allows none of the route\'s formats', async () => {
    const got = await get(q, { headers: { Accept: 'image/png, text/html;q=0.5' } });
    const msg = expectErrorEnvelope(got, 406);
    expect(msg).toContain('application/vnd.apache.arrow.stream');
    expect(got.body.meta.error_code).toBe('E_NOT_ACCEPTABLE');
    expectErrorEnvelope(await get(q, { headers: { Accept: 'application/json;q=0, */*;q=0' } }), 406);
  });
});

describe('bad formats and the encodings over binary answers', () => {
  it('refuses an unknown format and a limit over the bulk cap, naming the formats and the cap', async () => {
    const bad = expectErrorEnvelope(await get('/api/v1/spending?state=DE&type=city&format=feather'), 400);
    expect(bad).toContain('json, csv, arrow, parquet');
    const cap = expectErrorEnvelope(await get('/api/v1/spending?state=DE&type=city&format=arrow&limit=50001'), 400);
    expect(cap).toContain('at most 50000');
    const narrow = expectErrorEnvelope(await get('/api/v1/spending?state=DE&type=city&format=parquet&subtype=capital&limit=1001'), 400);
    expect(narrow).toContain('format=parquet with subtype or recipe');
  });

  it('compresses Arrow (its decoded bytes the identity bytes) and leaves Parquet as it is', async () => {
    const p = '/api/v1/revenue?type=city&years=2020&format=arrow&limit=5000';
    const plain = await fetchBytes(p);
    const gz = await raw(p, { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.length).toBeLessThan(plain.bytes.length / 2);
    expect(gunzipSync(gz.body).equals(Buffer.from(plain.bytes))).toBe(true);
    const pq = await raw('/api/v1/revenue?type=city&years=2020&format=parquet&limit=5000', { 'Accept-Encoding': 'gzip, br' });
    expect(pq.headers['content-encoding']).toBeUndefined();
    expect(Buffer.from(pq.body.subarray(0, 4)).toString()).toBe('PAR1');
  });

  it('answers HEAD on a binary page with its headers and no page written', async () => {
    const r = await fetch(`${financeUrl()}/api/v1/revenue?type=city&years=2019,2020&format=parquet&limit=20000`, { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-total-count')).toBe('52218');
    expect(r.headers.get('link')).toContain('rel="next"');
    expect(r.headers.get('content-type')).toBe('application/vnd.apache.parquet');
  });
});
