// Each service documents the error codes it can answer with, and no other
// (the school audit: the school dictionary listed govid, year and bulk-file
// codes it never gives). What a service can answer with is derived here from
// the source, not from the catalog's marks under test: a code thrown only
// under src/finance (or workers/finance) is the finance service's, only under
// src/arrests the school service's, and one thrown by the shared server code
// (src/server, ...) either's. The catalog's `service` marks, and the codes the
// dictionary, llms.txt and OpenAPI of each running service list, must equal
// that derivation.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../dist/src/server/errors.js';
import { arrestsUrl, financeUrl, get } from './helpers/http.js';
import { ROOT } from './helpers/server.js';

const sources = (dir: string): string[] =>
  readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath ?? e.path, e.name)));

/** Where each code is named in src/ and workers/ (the catalog's own file aside): finance, arrests or shared. */
function derived(): Map<string, Set<'finance' | 'arrests' | 'shared'>> {
  const out = new Map<string, Set<'finance' | 'arrests' | 'shared'>>();
  const files = [...sources('src'), ...sources('workers')].filter((f) => f !== path.join('src', 'server', 'errors.ts'));
  for (const f of files) {
    const text = readFileSync(path.join(ROOT, f), 'utf8');
    const where = /^(src|workers)\/finance\//.test(f) ? 'finance' : /^(src|workers)\/arrests\//.test(f) ? 'arrests' : 'shared';
    for (const m of text.matchAll(/['"](E_[A-Z_]+)['"]/g)) {
      if (!(m[1]! in ERROR_CATALOG)) continue;
      if (!out.has(m[1]!)) out.set(m[1]!, new Set());
      out.get(m[1]!)!.add(where);
    }
  }
  return out;
}

/** The codes a service can answer with, by the derivation: shared ones, and those named in its own tree. */
function expectedOf(service: 'finance' | 'arrests'): string[] {
  const d = derived();
  return Object.keys(ERROR_CATALOG).filter((c) => {
    const w = d.get(c);
    return w !== undefined && (w.has('shared') || w.has(service));
  }).sort();
}

describe('error codes per service', () => {
  it('every code is named somewhere outside the catalog, and a code named in one service tree alone is marked as that service\'s', () => {
    const d = derived();
    for (const [code, entry] of Object.entries(ERROR_CATALOG)) {
      const w = d.get(code);
      expect(w, `${code} is thrown nowhere`).toBeDefined();
      const only = w!.has('shared') || (w!.has('finance') && w!.has('arrests')) ? undefined : [...w!][0];
      expect((entry as { service?: string }).service, code).toBe(only);
    }
    // The derivation itself: codes the two trees own today (a literal, so a derivation gone blind fails too).
    expect(expectedOf('finance').filter((c) => !expectedOf('arrests').includes(c))).toEqual([
      'E_GOVID_FORMAT', 'E_GOVID_UNKNOWN', 'E_NOT_IN_CORPUS', 'E_RANGE_NOT_SATISFIABLE',
      'E_YEAR_EMPTY_RANGE', 'E_YEAR_FORMAT', 'E_YEAR_HOLE', 'E_YEAR_RANGE',
    ]);
    expect(expectedOf('arrests').filter((c) => !expectedOf('finance').includes(c))).toEqual(['E_LEAID_FORMAT', 'E_LEAID_UNKNOWN']);
  });

  for (const [service, base] of [['finance', financeUrl], ['arrests', arrestsUrl]] as const) {
    it(`${service}: the dictionary, llms.txt and OpenAPI list the codes it can answer with, and no other`, async () => {
      const want = expectedOf(service);
      const dict = (await get('/api/v1/data-dictionary?format=json', undefined, base())).body as { data: { section: string; name: string }[] };
      expect(dict.data.filter((r) => r.section === 'error').map((r) => r.name).sort()).toEqual(want);
      const llms = (await get('/api/v1/llms.txt', undefined, base())).text;
      const errorsPart = llms.slice(llms.indexOf('## Errors'), llms.indexOf('## Attribution'));
      expect([...errorsPart.matchAll(/^- `(E_[A-Z_]+)`/gm)].map((m) => m[1]).sort()).toEqual(want);
      const openapi = (await get('/openapi.json', undefined, base())).body as Record<string, any>;
      expect(Object.keys(openapi['x-error-codes']).sort()).toEqual(want);
      expect([...openapi.components.schemas.ErrorEnvelope.properties.meta.properties.error_code.enum].sort()).toEqual(want);
    });
  }
});
