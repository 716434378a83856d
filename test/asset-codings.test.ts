// The fixed files (pages, scripts, maps) in every coding the server offers: compressed the first time a
// client asks for one in a coding (not at start), then the same bytes every time, each decoding to the file.

import http from 'node:http';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { OFFERED } from '../dist/src/server/encoding.js';
import { arrestsUrl, financeUrl } from './helpers/http.js';

interface Raw { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** A GET whose body is left as sent (fetch would decode it). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, base), { headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const decode: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gunzipSync(b),
  br: (b) => zlib.brotliDecompressSync(b),
  zstd: (b) => (zlib as unknown as { zstdDecompressSync(b: Buffer): Buffer }).zstdDecompressSync(b),
};

const FILES = ['/explore/vendor/plot.min.js', '/explore/geo/states.json', '/explore/', '/favicon.svg'];

describe('fixed files in every coding', () => {
  for (const [name, base] of [['finance', financeUrl], ['arrests', arrestsUrl]] as const) {
    it(`${name}: each coding decodes to the file, the same bytes each time, with its own ETag that revalidates`, async () => {
      for (const file of FILES) {
        const plain = await rawGet(base(), file, { 'Accept-Encoding': 'identity' });
        expect(plain.status, file).toBe(200);
        expect(plain.headers['content-encoding'], file).toBeUndefined();
        const etags = new Set([plain.headers.etag]);
        for (const enc of OFFERED.filter((e) => e !== 'identity')) {
          const first = await rawGet(base(), file, { 'Accept-Encoding': enc });
          const again = await rawGet(base(), file, { 'Accept-Encoding': enc });
          expect(first.status, `${file} ${enc}`).toBe(200);
          // The favicon is under the size worth compressing: it goes as it is, in any coding asked.
          if (plain.body.length < 1024) {
            expect(first.headers['content-encoding'], `${file} ${enc}`).toBeUndefined();
            expect(first.body.equals(plain.body)).toBe(true);
            continue;
          }
          expect(first.headers['content-encoding'], `${file} ${enc}`).toBe(enc);
          expect(first.body.length, `${file} ${enc}`).toBeLessThan(plain.body.length);
          expect(decode[enc]!(first.body).equals(plain.body), `${file} ${enc} decodes to the file`).toBe(true);
          expect(again.body.equals(first.body), `${file} ${enc} the same bytes again`).toBe(true);
          expect(again.headers.etag).toBe(first.headers.etag);
          etags.add(first.headers.etag);
          const revalidated = await rawGet(base(), file, { 'Accept-Encoding': enc, 'If-None-Match': first.headers.etag! });
          expect(revalidated.status, `${file} ${enc} If-None-Match`).toBe(304);
          expect(revalidated.body.length).toBe(0);
        }
        if (plain.body.length >= 1024) expect(etags.size, `${file}: an ETag per coding`).toBe(OFFERED.length);
      }
    });
  }
});
