// A format added to the registry (issue 30): one entry and its writer, and
// the routes that answer pages offer it, OpenAPI lists it, the page is sent
// with its media type and extension, and compression and /metrics know it.
// The entry is added in-process (vi.mock over the registry module), so it
// reaches the thread serving the request but not the pool's workers, which
// load the real registry: it is asked of a one-government route, whose page
// is written on the thread (page-formats.ts tablePage).

import { describe, expect, it, vi } from 'vitest';
import { compressible } from '../dist/src/server/compress.js';
import { inject } from '../dist/src/server/inject.js';
import { BODY_FORMATS, bodyFormat } from '../dist/src/server/telemetry.js';
import { financeService } from '../dist/src/finance/http/service.js';
import { readConfig } from '../dist/src/config.js';
import { useFixtureCtx } from './helpers/fixture-ctx.js';

vi.mock('../dist/src/formats/registry.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../dist/src/formats/registry.js')>();
  const tsv = {
    id: 'tsv', name: 'TSV', mediaType: 'text/tab-separated-values; charset=utf-8', openapiType: 'text/tab-separated-values', extension: 'tsv',
    compressible: false, description: 'Tab-separated rows.', paramText: 'tsv (tab-separated rows)', inPlace: false, carriesMeta: false,
    write: (t: { names: string[]; n: number; get: ((i: number) => unknown)[] }) =>
      new TextEncoder().encode([t.names.join('\t'), ...Array.from({ length: t.n }, (_, i) => t.get.map((g) => String(g(i) ?? '')).join('\t'))].join('\n') + '\n'),
  };
  // The registry's derived lists, over the entries with the new one.
  const FORMATS = { ...real.FORMATS, tsv } as Record<string, (typeof real.FORMATS)['csv']>;
  const FORMAT_IDS = Object.keys(FORMATS);
  const isPageFormat = (f: string | undefined): boolean => f !== undefined && FORMATS[f]!.write !== null;
  const namesOf = (formats: readonly string[], last = 'or'): string => {
    const names = formats.map((f) => FORMATS[f]!.name);
    return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} ${last} ${names.at(-1)!}`;
  };
  return { ...real, FORMATS, FORMAT_IDS, isPageFormat, PAGE_FORMATS: FORMAT_IDS.filter(isPageFormat), namesOf, pageFormat: (f: string) => FORMATS[f] };
});

const ctx = useFixtureCtx();
const GOV = '/api/v1/governments/062037161174/spending';

describe('a format added to the registry', () => {
  it('is offered, documented, sent with its media type and extension, and counted, from its entry alone', async () => {
    const service = financeService(ctx(), readConfig({ ...process.env, FINANCE_DATA: 'fixtures/finance/v6' }));
    const csv = await inject(service, `${GOV}?format=csv`);
    const r = await inject(service, `${GOV}?format=tsv`, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.status, r.text().slice(0, 300)).toBe(200);
    expect(r.headers['content-type']).toBe('text/tab-separated-values; charset=utf-8');
    expect(r.headers['content-disposition']).toMatch(/_page-\d+\.tsv"$/);
    expect(r.headers['content-encoding']).toBeUndefined();
    // The page's table through the entry's writer: the CSV page's header and rows, tab-separated.
    const lines = r.text().split('\n'), csvLines = csv.text().split('\r\n');
    expect(lines[0]!.split('\t')).toEqual(csvLines[0]!.split(','));
    expect(lines.length).toBe(csvLines.length);
    expect(lines.map((l) => l.split('\t')[1])).toEqual(csvLines.map((l) => l.split(',')[1]));
    expect((await inject(service, GOV, { headers: { accept: 'text/tab-separated-values' } })).headers['content-type']).toBe('text/tab-separated-values; charset=utf-8');
    type Doc = { paths: Record<string, { get: { parameters: { name: string; schema: { enum?: string[] } }[]; responses: { '200': { content: Record<string, unknown> } } } }> };
    const doc = (await inject(service, '/openapi.json')).json<Doc>();
    for (const path of ['/api/v1/governments/{govid}/spending', '/api/v1/spending']) {
      expect(doc.paths[path]!.get.parameters.find((p) => p.name === 'format')?.schema.enum, path).toEqual(['json', 'csv', 'arrow', 'parquet', 'tsv']);
      expect(Object.keys(doc.paths[path]!.get.responses['200'].content), path).toContain('text/tab-separated-values');
    }
    expect(compressible('text/tab-separated-values; charset=utf-8')).toBe(false);
    expect(BODY_FORMATS[bodyFormat('text/tab-separated-values; charset=utf-8')]).toBe('tsv');
  });
});
