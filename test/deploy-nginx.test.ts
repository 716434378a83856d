// The deploy files say what this uWS build needs from a proxy (issue 23,
// finding 3): it never answers HTTP/1.0, nginx's default to upstreams, so
// every location that proxies to civicstream sets proxy_http_version 1.1 and
// clears Connection (upstream keep-alive). Issue 20 runs nginx for real.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const conf = readFileSync(new URL('../deploy/nginx.conf', import.meta.url), 'utf8').replace(/#.*$/gm, '');

describe('deploy/nginx.conf', () => {
  it('speaks HTTP/1.1 to civicstream in every location that proxies to it', () => {
    const locations = [...conf.matchAll(/location\s+[^{]+\{([^}]*)\}/g)].map((m) => m[1]!);
    const proxied = locations.filter((l) => /proxy_pass\s+http:\/\/civicstream_/.test(l));
    expect(proxied.length).toBe(2);
    for (const l of proxied) {
      expect(l).toMatch(/proxy_http_version\s+1\.1\s*;/);
      expect(l).toMatch(/proxy_set_header\s+Connection\s+""\s*;/);
    }
  });
});
