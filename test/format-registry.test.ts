// One format registry (issue 30): every format it holds is answered with the
// media type, file extension and compression written here as literals (not
// read from the registry under test), by a finance page and, where the school
// service offers it, a school answer; and the lists elsewhere (the routes'
// formats, OpenAPI's enum and media types, /metrics' body formats, what
// compression skips) are the registry's, so a format added there reaches them.

import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { FORMAT_IDS, FORMATS, PAGE_FORMATS } from '../dist/src/formats/registry.js';
import { compressible } from '../dist/src/server/compress.js';
import { inject, type Injected } from '../dist/src/server/inject.js';
import type { RouteSpec } from '../dist/src/server/route-spec.js';
import { BODY_FORMATS, bodyFormat } from '../dist/src/server/telemetry.js';
import { financeService } from '../dist/src/finance/http/service.js';
import { arrestsService, loadArrests } from '../dist/src/arrests/http/service.js';
import { readConfig } from '../dist/src/config.js';
import { useFixtureCtx } from './helpers/fixture-ctx.js';

/** What a client sees of each format, written here: the registry must hold exactly these, in this order. */
const LITERAL = {
  json: { sent: 'application/json; charset=utf-8', openapi: 'application/json', ext: 'json', compressed: true },
  csv: { sent: 'text/csv; charset=utf-8', openapi: 'text/csv', ext: 'csv', compressed: true },
  arrow: { sent: 'application/vnd.apache.arrow.stream', openapi: 'application/vnd.apache.arrow.stream', ext: 'arrow', compressed: true },
  parquet: { sent: 'application/vnd.apache.parquet', openapi: 'application/vnd.apache.parquet', ext: 'parquet', compressed: false },
  html: { sent: 'text/html; charset=utf-8', openapi: 'text/html', ext: 'html', compressed: true },
} as const;
type Id = keyof typeof LITERAL;
/** The formats written from a table as a page (Content-Disposition with the extension), and what the row routes offer. */
const PAGES: Id[] = ['csv', 'arrow', 'parquet'];
const ROW_ROUTE_FORMATS = ['json', 'csv', 'arrow', 'parquet'];

const ctx = useFixtureCtx();
let arrests: Awaited<ReturnType<typeof loadArrests>>;
beforeAll(async () => { arrests = await loadArrests(readConfig(process.env), { quiet: true }); }, 60_000);
const finance = () => financeService(ctx(), readConfig({ ...process.env, FINANCE_DATA: 'fixtures/finance/v6' }));
const school = () => arrestsService(arrests, readConfig(process.env));

/** Answers in each format: flat and one-government pages, the envelope, and the pages for people. */
const FINANCE_URLS: Record<Id, string[]> = {
  json: ['/api/v1/spending?state=NH&type=city&limit=50', '/api/v1/governments/062037161174/spending'],
  csv: ['/api/v1/spending?state=NH&type=city&limit=50&format=csv', '/api/v1/governments/062037161174/spending?format=csv'],
  arrow: ['/api/v1/spending?state=NH&type=city&limit=50&format=arrow', '/api/v1/governments/062037161174/spending?format=arrow'],
  parquet: ['/api/v1/spending?state=NH&type=city&limit=50&format=parquet', '/api/v1/governments/062037161174/spending?format=parquet'],
  html: ['/api/v1/data-dictionary?format=html'],
};
const SCHOOL_URLS: Partial<Record<Id, string[]>> = {
  json: ['/api/v1/data-dictionary', '/api/v1/estimates/1000047/'],
  html: ['/api/v1/data-dictionary?format=html'],
};

/** The literal expectations of one answer in format f, asked for with gzip. */
function expectServed(r: Injected, f: Id, url: string): void {
  expect(r.status, url).toBe(200);
  expect(r.headers['content-type'], url).toBe(LITERAL[f].sent);
  if (PAGES.includes(f)) expect(r.headers['content-disposition'], url).toMatch(new RegExp(`^attachment; filename="[^"]+_page-\\d+\\.${LITERAL[f].ext}"$`));
  else expect(r.headers['content-disposition'], url).toBeUndefined();
  expect(r.headers['content-encoding'], url).toBe(LITERAL[f].compressed ? 'gzip' : undefined);
  // Past the size under which nothing is compressed, so an answer sent as it is was not compressed for its format alone.
  const body = r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body;
  expect(body.byteLength, `${url}: large enough to compress`).toBeGreaterThan(1024);
  expect(BEGINS[f].test(body.subarray(0, 32).toString('latin1')), `${url} begins as ${f} does`).toBe(true);
  if (f === 'parquet') expect(body.subarray(-4).toString('latin1'), url).toBe('PAR1');
}

/** How a body in each format begins: the writer behind it is the format's. */
const BEGINS: Record<Id, RegExp> = {
  json: /^\{"status":"success"/,
  csv: /^[a-z_]+,[a-z_]+/,
  // An IPC stream message: the continuation marker, then the metadata's length.
  arrow: /^\xff\xff\xff\xff/,
  parquet: /^PAR1/,
  html: /^<!doctype html>/i,
};

describe('the format registry', () => {
  it('holds exactly the formats written here, in this order, with these media types, extensions and compression', () => {
    expect(FORMAT_IDS).toEqual(Object.keys(LITERAL));
    for (const f of FORMAT_IDS) {
      const e = FORMATS[f];
      expect({ id: e.id, sent: e.mediaType, openapi: e.openapiType, ext: e.extension, compressed: e.compressible }, f).toEqual({ id: f, ...LITERAL[f as Id] });
    }
    expect(PAGE_FORMATS).toEqual(PAGES);
  });

  it('every format is served by a finance answer, and the school\'s formats by a school answer, with its media type, extension and coding', async () => {
    const served = { finance: new Set<string>(), school: new Set<string>() };
    for (const [name, service, urls] of [['finance', finance(), FINANCE_URLS], ['school', school(), SCHOOL_URLS]] as const) {
      for (const [f, list] of Object.entries(urls) as [Id, string[]][]) {
        for (const url of list) {
          expectServed(await inject(service, url, { headers: { 'accept-encoding': 'gzip' } }), f, url);
          served[name].add(f);
        }
      }
    }
    // Every format has a finance answer; the school offers what its routes declare, each answered above.
    expect([...served.finance].sort()).toEqual(Object.keys(LITERAL).sort());
    const schoolDeclares = new Set((school().routes as RouteSpec<unknown>[]).flatMap((r) => (r.produces === 'envelope' ? [...(r.formats ?? ['json'])] : [])));
    expect([...served.school].sort()).toEqual([...schoolDeclares].sort());
    expect([...schoolDeclares].sort()).toEqual(['html', 'json']);
  });

  it('a page format answers by Accept as by format=, on the flat and the one-government routes', async () => {
    const service = finance();
    for (const f of PAGES) {
      for (const url of ['/api/v1/spending?state=NH&type=city&limit=50', '/api/v1/governments/062037161174/spending']) {
        const r = await inject(service, url, { headers: { accept: LITERAL[f].openapi } });
        expect(r.status, `${url} Accept ${f}`).toBe(200);
        expect(r.headers['content-type'], `${url} Accept ${f}`).toBe(LITERAL[f].sent);
        expect(r.headers['content-disposition'], `${url} Accept ${f}`).toMatch(new RegExp(`\\.${LITERAL[f].ext}"$`));
      }
    }
  });

  it('the lists elsewhere are the registry\'s: the row routes\' formats, OpenAPI\'s enum and media types, /metrics\' body formats, compression', async () => {
    const service = finance();
    const doc = (await inject(service, '/openapi.json')).json<{ paths: Record<string, { get: { parameters: { name: string; schema: { enum?: string[] } }[]; responses: { '200': { content: Record<string, unknown> } } } }> }>();
    const rowRoutes = (service.routes as RouteSpec<unknown>[]).filter((r) => (r.formats ?? []).includes('csv')).map((r) => r.id).sort();
    expect(rowRoutes).toEqual(['government_balances', 'government_profile', 'government_revenue', 'government_spending', 'revenue', 'spending']);
    for (const r of service.routes as RouteSpec<unknown>[]) {
      if (!rowRoutes.includes(r.id)) continue;
      expect(r.formats, r.id).toEqual(ROW_ROUTE_FORMATS);
      const op = doc.paths[r.path]!.get;
      expect(op.parameters.find((p) => p.name === 'format')?.schema.enum, r.id).toEqual(ROW_ROUTE_FORMATS);
      expect(Object.keys(op.responses['200'].content), r.id).toEqual(ROW_ROUTE_FORMATS.map((f) => LITERAL[f as Id].openapi));
    }
    // /metrics counts bytes sent under each format's own label, and compresses what the literal says.
    for (const f of Object.keys(LITERAL) as Id[]) {
      expect(BODY_FORMATS[bodyFormat(LITERAL[f].sent)], f).toBe(f);
      expect(compressible(LITERAL[f].sent), f).toBe(LITERAL[f].compressed);
    }
    expect(BODY_FORMATS[bodyFormat('application/gzip')]).toBe('gzip');
    expect(BODY_FORMATS[bodyFormat('text/markdown; charset=utf-8')]).toBe('text');
    expect(BODY_FORMATS[bodyFormat('application/octet-stream')]).toBe('other');
    // Documents and assets that are not a format keep their own rule.
    expect(compressible('application/javascript; charset=utf-8')).toBe(true);
    expect(compressible('image/svg+xml')).toBe(true);
    expect(compressible('image/png')).toBe(false);
  });
});
