// The envelope contract over a service's whole route table: every JSON route
// answers the success shape with its declared row fields (conditional ones
// only under their condition), every route refuses an unknown key naming it
// and listing the accepted keys, and the HTTP behaviours shared by both
// services hold. New routes are covered automatically.

import { beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '../../dist/src/server/route-spec.js';
import { expectErrorEnvelope, get as getFrom } from './http.js';

export function envelopeContract(service: string, routes: readonly RouteSpec<any>[], base: () => string, fill: (path: string) => string): void {
  const get = (p: string, init?: RequestInit) => getFrom(p, init, base());
  // A route is probed with its first declared example (some need a selection), else its filled path.
  let example = new Map<string, string>();
  const probe = (p: string): string => example.get(p) ?? fill(p);
  /** The url with the keys of q set (replacing any already there). */
  function withQuery(url: string, q: string): string {
    const u = new URL(url, 'http://x');
    for (const [k, v] of new URLSearchParams(q)) u.searchParams.set(k, v);
    return `${u.pathname}${u.search}`;
  }
  /** The url without the keys of q. */
  function withoutKeys(url: string, q: string): string {
    const u = new URL(url, 'http://x');
    for (const k of new URLSearchParams(q).keys()) u.searchParams.delete(k);
    return `${u.pathname}${u.search}`;
  }

  describe(`${service}: envelope over the route table`, () => {
    beforeAll(async () => {
      const rows = (await get('/api/v1/examples')).body.data as { endpoint: string; path: string }[];
      example = new Map();
      for (const e of rows) if (!example.has(e.endpoint)) example.set(e.endpoint, e.path);
    });

    for (const r of routes) {
      it(`${r.path} answers its declared shape`, async () => {
        const got = await get(probe(r.path));
        expect(got.status).toBe(200);
        expect(got.headers.get('x-content-type-options')).toBe('nosniff');
        if (r.produces === 'application/octet-stream') {
          // A file route (bulk files): some binary type of its own, never an envelope.
          expect(got.headers.get('content-type')).not.toContain('json');
          return;
        }
        if (r.produces !== 'envelope') {
          expect(got.headers.get('content-type')).toContain(r.produces);
          return;
        }
        const b = got.body;
        expect(Object.keys(b).sort()).toEqual(['data', 'error', 'meta', 'provenance', 'status', 'suggestions']);
        expect(b.status).toBe('success');
        expect(Array.isArray(b.data)).toBe(true);
        expect(b.error).toBeNull();
        expect(b.meta.version).toBe('v1');
        expect(b.suggestions).toEqual([]);
        for (const f of r.rowFields ?? []) {
          const row = f.when ? (await get(withQuery(probe(r.path), f.when))).body.data[0] : b.data[0];
          expect(row, `${r.path} row field ${f.name}`).toHaveProperty(f.name);
          if (f.when) {
            const without = (await get(withoutKeys(probe(r.path), f.when))).body.data[0];
            expect(without, `${r.path} row field ${f.name} only when ${f.when}`).not.toHaveProperty(f.name);
          }
        }
      });

      if (r.ignoresUnknownKeys) {
        // The pages people reach by links (/, the dictionary) ignore keys they do not declare (a link's utm_source).
        it(`${r.path} ignores an unknown key: the same answer as without it`, async () => {
          const [withKey, without] = [await get(withQuery(probe(r.path), 'nonsense=1')), await get(probe(r.path))];
          expect(withKey.status).toBe(200);
          expect(withKey.body.data).toEqual(without.body.data);
        });
      } else {
        it(`${r.path} refuses an unknown key, listing the accepted ones`, async () => {
          const msg = expectErrorEnvelope(await get(withQuery(probe(r.path), 'nonsense=1')), 400);
          expect(msg).toContain("'nonsense'");
          for (const k of Object.keys(r.query)) expect(msg).toContain(k);
        });
      }
    }

    it('answers a wrong path with 404 in the envelope', async () => {
      for (const p of ['/nope', '/api/v1/nope', '/api/v2/', '/api/v1/openapi.json', '/api/v1/__docs__/', '/api/v1/health/nope']) {
        const msg = expectErrorEnvelope(await get(p), 404);
        expect(msg).toContain('No route');
      }
    });

    it('treats a trailing slash as insignificant', async () => {
      expect((await get('/api/v1')).status).toBe(200);
      expect((await get('/api/v1/data-dictionary/')).status).toBe(200);
    });

    it('is read-only: other methods get 405 in the envelope', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const got = await get('/api/v1/health', { method, body: method === 'DELETE' ? undefined : 'x=1' });
        expectErrorEnvelope(got, 405);
        expect(got.headers.get('allow')).toContain('GET');
      }
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const g = await get('/api/v1/data-dictionary');
      const h = await get('/api/v1/data-dictionary', { method: 'HEAD' });
      expect(h.status).toBe(200);
      expect(h.text).toBe('');
      expect(h.headers.get('content-type')).toBe(g.headers.get('content-type'));
      // The length of the bytes GET sends, in the same coding (fetch asks for one, and decodes GET's body).
      expect(h.headers.get('content-encoding')).toBe(g.headers.get('content-encoding'));
      expect(Number(h.headers.get('content-length'))).toBe(Number(g.headers.get('content-length')));
      const plain = await get('/api/v1/data-dictionary', { method: 'HEAD', headers: { 'Accept-Encoding': 'identity' } });
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(Number(plain.headers.get('content-length'))).toBe(Buffer.byteLength(g.text));
    });

    it('answers CORS preflight and allows any origin', async () => {
      const got = await get('/api/v1/health', { method: 'OPTIONS' });
      expect(got.status).toBe(204);
      expect(got.headers.get('access-control-allow-origin')).toBe('*');
      expect(got.headers.get('access-control-allow-methods')).toContain('GET');
    });
  });
}
