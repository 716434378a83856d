// The renderer seam (issue 18): a route declares the formats it answers in;
// its `format` parameter, its OpenAPI media types and the render stage's
// Content-Type all come from that declaration and the registry (formats.ts).

import { describe, expect, it } from 'vitest';
import { FORMATS } from '../dist/src/server/formats.js';
import { inject } from '../dist/src/server/inject.js';
import { defineRoute, type RouteSpec } from '../dist/src/server/route-spec.js';
import { formatParam } from '../dist/src/server/params.js';
import { financeService } from '../dist/src/finance/http/service.js';
import { arrestsService, loadArrests } from '../dist/src/arrests/http/service.js';
import { readConfig } from '../dist/src/config.js';
import { beforeAll } from 'vitest';
import { useFixtureCtx } from './helpers/fixture-ctx.js';

const ctx = useFixtureCtx();
let arrests: Awaited<ReturnType<typeof loadArrests>>;
beforeAll(async () => { arrests = await loadArrests(readConfig(process.env), { quiet: true }); }, 60_000);
const services = () => [
  financeService(ctx(), readConfig({ ...process.env, FINANCE_DATA: 'fixtures/finance/v6' })),
  arrestsService(arrests, readConfig(process.env)),
];

/** The media types, written here (not read from the registry under test): what clients and OpenAPI see. */
const MEDIA: Record<string, { sent: string; openapi: string }> = {
  json: { sent: 'application/json; charset=utf-8', openapi: 'application/json' },
  csv: { sent: 'text/csv; charset=utf-8', openapi: 'text/csv' },
  arrow: { sent: 'application/vnd.apache.arrow.stream', openapi: 'application/vnd.apache.arrow.stream' },
  parquet: { sent: 'application/vnd.apache.parquet', openapi: 'application/vnd.apache.parquet' },
  html: { sent: 'text/html; charset=utf-8', openapi: 'text/html' },
};

type Doc = { paths: Record<string, { get: { parameters: { name: string; schema: { enum?: string[] } }[]; responses: { '200': { content: Record<string, unknown> } } } }> };

describe('formats: declared per route, listed in OpenAPI, sent by the render stage', () => {
  it('every envelope route lists its declared formats (json when none) as OpenAPI media types, and a format parameter offers exactly those', async () => {
    const bulk: string[] = [];
    for (const service of services()) {
      const doc = (await inject(service, '/openapi.json')).json<Doc>();
      for (const route of service.routes as RouteSpec<unknown>[]) {
        if (route.produces !== 'envelope') continue;
        const formats = route.formats ?? ['json'];
        const op = doc.paths[route.path]!.get;
        expect(Object.keys(op.responses['200'].content).sort(), route.path).toEqual(formats.map((f) => MEDIA[f]!.openapi).sort());
        const param = op.parameters.find((p) => p.name === 'format');
        if (formats.length > 1) expect(param?.schema.enum, route.path).toEqual([...formats]);
        else expect(param, route.path).toBeUndefined();
        if (formats.includes('csv')) {
          expect(formats, route.path).toEqual(['json', 'csv', 'arrow', 'parquet']);
          bulk.push(route.id);
        }
      }
    }
    // Flat /spending and /revenue, and one government's four money routes, answer CSV, Arrow and Parquet (issue 19).
    expect(bulk.sort()).toEqual(['government_balances', 'government_profile', 'government_revenue', 'government_spending', 'revenue', 'spending']);
  });

  it('a bulk pull is sent with the registry media type of its format', async () => {
    const [finance] = services();
    for (const f of ['csv', 'arrow', 'parquet'] as const) {
      const r = await inject(finance!, `/api/v1/spending?state=NH&type=city&format=${f}&limit=2`);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe(MEDIA[f]!.sent);
    }
    const json = await inject(finance!, '/api/v1/spending?state=NH&type=city&limit=2');
    expect(json.headers['content-type']).toBe(MEDIA.json!.sent);
  });

  it('a route that streams a format it does not declare is a 500 naming the request, and the stream is given back', async () => {
    let released = 0;
    const route = defineRoute<null>()({
      id: 'bad', path: '/bad', summary: '', description: '', tags: [], produces: 'envelope', query: {},
      handle: () => ({ kind: 'stream', format: 'csv', next: () => null, done: () => { released++; } }),
    });
    const service = { name: 'test', routes: [route], ctx: null, assets: new Map(), accessLog: false };
    const errors: unknown[] = [];
    const log = console.error;
    console.error = (m: unknown) => { errors.push(m); };
    try {
      const r = await inject(service, '/bad');
      expect(r.status).toBe(500);
      expect(r.json<{ meta: { error_code: string } }>().meta.error_code).toBe('E_INTERNAL');
    } finally {
      console.error = log;
    }
    expect(released).toBe(1);
    expect(String(errors[0])).toContain('does not declare');
  });

  it('the registry holds exactly these formats and media types', () => {
    expect(Object.fromEntries(Object.entries(FORMATS).map(([f, x]) => [f, { sent: x.mediaType, openapi: x.openapiType }]))).toEqual(MEDIA);
  });

  it('formatParam: the values in order, the first the default, the text from the registry', () => {
    const p = formatParam(['json', 'csv']);
    expect(p.schema.enum).toEqual(['json', 'csv']);
    // Written here, not read from the registry under test.
    expect(p.description).toBe('json (the envelope, default) or csv (header then rows; metadata in X-Total-Count, X-Page, X-Limit; no provenance).');
    expect(p.parse('CSV', 'format', undefined)).toBe('csv');
    expect(() => p.parse('xml', 'format', undefined)).toThrow(/format/);
  });
});
