// Static files are looked up by exact path only: no traversal reaches a file
// outside the docs assets, however the dots and slashes are encoded.

import { describe, expect, it } from 'vitest';
import http from 'node:http';
import { arrestsUrl, financeUrl } from './helpers/http.js';

/** A raw GET (fetch would normalize the dots away before sending). */
function raw(base: string, path: string): Promise<{ status: number; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const ATTEMPTS = [
  '/__docs__/../../package.json', '/__docs__/..%2f..%2fpackage.json', '/__docs__/%2e%2e/%2e%2e/package.json', '/__docs__/....//....//package.json',
  '/../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/__docs__/%252e%252e/package.json', '/__docs__//etc/passwd',
  '/api/v1/../../package.json', '/__docs__/swagger-ui-bundle.js/../../../package.json', '/fixtures/finance/v6/manifest.json', '/.git/config',
];

describe('path traversal', () => {
  it('every encoding of a way out is a 404 envelope with no file content, on both services', async () => {
    for (const base of [financeUrl(), arrestsUrl()]) {
      for (const p of ATTEMPTS) {
        const r = await raw(base, p);
        expect(r.status, p).toBe(404);
        const body = JSON.parse(r.body);
        expect(body.status, p).toBe('error');
        expect(r.body, p).not.toMatch(/"dependencies"|root:x:0|schema_version|\[core\]/);
      }
      // The real asset is still served at its exact path.
      expect((await raw(base, '/__docs__/swagger-ui-bundle.js')).status).toBe(200);
    }
  });
});
