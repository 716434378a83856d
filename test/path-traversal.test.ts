// Static files are looked up by exact path only: no traversal reaches a file
// outside the docs assets, however the dots and slashes are encoded.

import { describe, expect, it } from 'vitest';
import { arrestsUrl, financeUrl, rawGet } from './helpers/http.js';

const ATTEMPTS = [
  '/__docs__/../../package.json', '/__docs__/..%2f..%2fpackage.json', '/__docs__/%2e%2e/%2e%2e/package.json', '/__docs__/....//....//package.json',
  '/../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/__docs__/%252e%252e/package.json', '/__docs__//etc/passwd',
  '/api/v1/../../package.json', '/__docs__/swagger-ui-bundle.js/../../../package.json', '/fixtures/finance/v6/manifest.json', '/.git/config',
];

describe('path traversal', () => {
  it('every encoding of a way out is a 404 envelope with no file content, on both services', async () => {
    for (const base of [financeUrl(), arrestsUrl()]) {
      for (const p of ATTEMPTS) {
        const r = await rawGet(p, { base });
        expect(r.status, p).toBe(404);
        expect(r.body.status, p).toBe('error');
        expect(r.text, p).not.toMatch(/"dependencies"|root:x:0|schema_version|\[core\]/);
      }
      // The real asset is still served at its exact path.
      expect((await rawGet('/__docs__/swagger-ui-bundle.js', { base })).status).toBe(200);
    }
  });
});
