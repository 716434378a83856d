// The docs' own examples work (issue 18): for every route of both services,
// the request Swagger UI's "Try it out" builds from /openapi.json (every
// parameter it fills in, as it fills them) answers 2xx, with rows where the
// route answers rows; and each documented error response shows a code of its
// own status, as a real answer. New routes and parameters are covered automatically.

import { beforeAll, describe, expect, it } from 'vitest';
import { arrestsUrl, financeUrl, get } from './helpers/http.js';

interface Param {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  example?: unknown;
  schema?: { example?: unknown; default?: unknown; enum?: unknown[] };
}
interface Operation {
  operationId: string;
  parameters: Param[];
  responses: Record<string, { $ref?: string }>;
}
interface OpenApi {
  paths: Record<string, { get: Operation }>;
  components: { responses: Record<string, { content: { 'application/json': { example?: { meta: { error_code: string } } } } }> };
}

/**
 * The value Swagger UI (5.x, ParameterRow) puts in a parameter's field: the
 * parameter's example, else its schema's example, else its schema's default;
 * a required enumeration still empty then gets its first value. Every filled
 * field is sent.
 */
function filled(p: Param, enumFallback = true): string | undefined {
  const v = p.example ?? p.schema?.example ?? p.schema?.default ?? (enumFallback && p.required && p.schema?.enum?.length ? p.schema.enum[0] : undefined);
  return v === undefined ? undefined : String(v);
}

/** The request Try it out sends for an operation, as path and query. */
function tryItOut(path: string, op: Operation, enumFallback = true): string {
  let url = path;
  const query: string[] = [];
  for (const p of op.parameters) {
    const v = filled(p, enumFallback);
    if (p.in === 'path') {
      if (v === undefined) throw new Error(`${op.operationId}: path parameter ${p.name} has no example, so Try it out cannot be sent as filled in`);
      url = url.replace(`{${p.name}}`, encodeURIComponent(v));
    } else if (v !== undefined) {
      query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(v)}`);
    }
  }
  return query.length ? `${url}?${query.join('&')}` : url;
}

/** Whether v is of JSON Schema type t (integer: a whole number). */
const ofType = (v: unknown, t: string): boolean =>
  t === 'null' ? v === null : t === 'integer' ? Number.isInteger(v) : t === 'array' ? Array.isArray(v) : t === 'object' ? typeof v === 'object' && v !== null && !Array.isArray(v) : typeof v === t;

/** Each row field whose value is not of a type the operation's 200 schema declares for it, and each field it does not declare. */
function rowsAgainstSchema(url: string, rows: Record<string, unknown>[], op: any): string[] {
  const schema = op?.responses?.['200']?.content?.['application/json']?.schema;
  const props: Record<string, { type: string | string[] }> | undefined = schema?.allOf?.[1]?.properties?.data?.items?.properties;
  if (props === undefined) return [];
  const out = new Set<string>();
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) {
      const p = props[k];
      if (p === undefined) { out.add(`${url}: field ${k} is not declared`); continue; }
      const types = Array.isArray(p.type) ? p.type : [p.type];
      if (!types.some((t) => ofType(v, t))) out.add(`${url}: field ${k} is ${v === null ? 'null' : typeof v}, declared ${types.join('|')}`);
    }
  }
  return [...out];
}

for (const [service, base] of [['finance', financeUrl], ['arrests', arrestsUrl]] as const) {
  describe(`${service}: the documented examples`, () => {
    let doc: OpenApi;
    beforeAll(async () => {
      doc = (await get(`${base()}/openapi.json`)).body as OpenApi;
    });

    it('every operation answers 2xx to the request Try it out builds, with rows where it answers rows, each field of a type its schema declares', async () => {
      const failures: string[] = [];
      const ops = Object.entries(doc.paths);
      expect(ops.length).toBeGreaterThan(5);
      for (const [path, item] of ops) {
        const url = tryItOut(path, item.get);
        const got = await get(url, undefined, base());
        if (got.status < 200 || got.status > 299) {
          failures.push(`${got.status} ${url}: ${typeof got.body === 'object' ? `${got.body.meta?.error_code} ${got.body.error}` : got.text.slice(0, 120)}`);
          continue;
        }
        const b = got.body;
        // An envelope answers rows (the documentation documents, /openapi.json an object): an example answering none shows nothing.
        if (typeof b === 'object' && b !== null && 'status' in b && 'data' in b && !Array.isArray(b.data)) failures.push(`${url}: data is not an array`);
        if (typeof b === 'object' && b !== null && Array.isArray(b.data) && b.data.length === 0) failures.push(`${url}: answers no rows`);
        if (typeof b === 'object' && b !== null && Array.isArray(b.data)) failures.push(...rowsAgainstSchema(url, b.data, item.get));
      }
      expect(failures).toEqual([]);
    });

    it('every required parameter of every route has an example (a required one offers no default), and the call filled with examples and defaults alone answers 2xx (issue 31: /draws had none for model)', async () => {
      const failures: string[] = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const p of item.get.parameters) {
          if (!(p.required || p.in === 'path')) continue;
          if ((p.example ?? p.schema?.example) === undefined) failures.push(`${path}: required ${p.name} has no example`);
          if (p.schema?.default !== undefined) failures.push(`${path}: required ${p.name} offers a default`);
        }
        const url = tryItOut(path, item.get, false);
        const got = await get(url, undefined, base());
        if (got.status < 200 || got.status > 299) failures.push(`${got.status} ${url}`);
      }
      expect(failures).toEqual([]);
    });

    it('each documented error response is a real answer of its status: its code written here, its body the server\'s own where a request makes it', async () => {
      // Status -> the code its example shows, as literals (not the catalog the docs are built from).
      const CODE_OF: Record<string, string> = {
        '400': 'E_BAD_VALUE', '404': 'E_NOT_FOUND', '405': 'E_METHOD', '406': 'E_NOT_ACCEPTABLE', '429': 'E_RATE_LIMITED', '500': 'E_INTERNAL', '503': 'E_BUSY', '504': 'E_TIMEOUT',
      };
      // The requests that give the first four; the others need a rate limit, a hung pool or a fault (error-codes.test.ts).
      const REAL: Record<string, [string, RequestInit?]> = {
        '400': [service === 'finance' ? '/api/v1/governments/062037161174/spending?adjust=yes' : '/api/v1/districts?limit=yes'],
        '404': ['/api/v1/nope'],
        '405': ['/api/v1/health', { method: 'POST', body: 'x=1' }],
        ...(service === 'finance' ? { '406': ['/api/v1/spending?state=DE', { headers: { Accept: 'text/html' } }] as [string, RequestInit] } : {}),
      };
      let compared = 0;
      for (const [path, item] of Object.entries(doc.paths)) {
        // 406 where the route answers in several formats (only those read Accept): its 200 lists them.
        const formats = Object.keys((item.get.responses['200'] as any).content ?? {}).length;
        expect(Object.keys(item.get.responses).sort(), path).toEqual(['200', '400', '404', '405', ...(formats > 1 ? ['406'] : []), '429', '500', '503', '504']);
        for (const [status, ref] of Object.entries(item.get.responses)) {
          if (status === '200') continue;
          const name = ref.$ref!.split('/').pop()!;
          const example = doc.components.responses[name]!.content['application/json'].example as { error: string; meta: { error_code: string } } | undefined;
          expect(example, `${path} ${status} has an example`).toBeDefined();
          expect(example!.meta.error_code, `${path} ${status}`).toBe(CODE_OF[status]);
          if (REAL[status] === undefined) continue;
          const [url, init] = REAL[status]!;
          const got = await get(`${base()}${url}`, init);
          expect(got.status, url).toBe(Number(status));
          if ((service === 'finance' && status !== '406') || status === '404' || status === '405') expect(example, `${path} ${status}: the example is the answer to ${url}`).toEqual(got.body);
          else expect(got.body.meta.error_code, url).toBe(example!.meta.error_code);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(3);
    });
  });
}

describe('a search is not narrowed by the docs', () => {
  // Swagger UI sends every filled field: a state example on /governments answered one state's governments
  // to someone who asked for none. Its filters carry no example; routes that need a selection keep theirs.
  it('Try it out on /governments and /districts sends no filter', async () => {
    const finance = (await get(`${financeUrl()}/openapi.json`)).body as OpenApi;
    const arrests = (await get(`${arrestsUrl()}/openapi.json`)).body as OpenApi;
    expect(tryItOut('/api/v1/governments', finance.paths['/api/v1/governments']!.get)).toBe('/api/v1/governments?limit=100&page=0');
    expect(tryItOut('/api/v1/districts', arrests.paths['/api/v1/districts']!.get)).toBe('/api/v1/districts?limit=100&page=0');
  });
});
