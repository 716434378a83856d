// deploy/nginx/ read statically (issue 20; issue 23, finding 3), with its
// includes inlined as nginx reads them: every location that proxies to
// civicstream speaks HTTP/1.1 and clears Connection (this uWS build never
// answers HTTP/1.0, nginx's default to upstreams), caches and revalidates,
// fails over for idempotent requests within bounds, passes the server's
// compression through, and keeps the operators' endpoints off the public
// side. Then the rendered files (loopback ports, a temp dir) pass `nginx -t`.
// test/stress/scale-out.test.ts runs them under load.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkNginx, DEPLOY, renderNginx, renderUpstreams } from './helpers/nginx.js';

const read = (f: string): string => readFileSync(path.join(DEPLOY, f), 'utf8').replace(/#.*$/gm, '');
/** nginx.conf with each `include f;` replaced by f's text, as nginx reads it. */
const conf = read('nginx.conf').replace(/^\s*include\s+(\S+);/gm, (_, f: string) => read(f));
const servers = [...conf.matchAll(/server\s*\{([\s\S]*?)\n {2}\}/g)].map((m) => m[1]!);
const locations = [...conf.matchAll(/location\s+([^{]+)\{([^}]*)\}/g)].map((m) => ({ at: m[1]!.trim(), body: m[2]! }));
const proxied = locations.filter((l) => /proxy_pass\s+http:\/\/civicstream_/.test(l.body));

describe('deploy/nginx: what each proxied location does', () => {
  it('speaks HTTP/1.1 to civicstream in every location that proxies to it, and clears Connection', () => {
    expect(proxied.map((l) => l.at)).toEqual(['/', '/']);
    for (const l of proxied) {
      expect(l.body).toMatch(/proxy_http_version\s+1\.1\s*;/);
      expect(l.body).toMatch(/proxy_set_header\s+Connection\s+""\s*;/);
    }
  });

  it('caches what the server marks cacheable, revalidating with its ETag, and passes compression through', () => {
    for (const l of proxied) {
      expect(l.body).toMatch(/proxy_cache\s+civicstream\s*;/);
      expect(l.body).toMatch(/proxy_cache_revalidate\s+on\s*;/);
      expect(l.body).toMatch(/proxy_set_header\s+X-Forwarded-For\s+\$remote_addr\s*;/);
      // A client's remaining count, which a cached copy would carry to others.
      expect(l.body).toMatch(/proxy_hide_header\s+RateLimit\s*;/);
      expect(l.body).toMatch(/proxy_buffering\s+on\s*;/);
    }
    // No proxy_cache_valid anywhere: only answers carrying Cache-Control are cached (not /health, errors, the bulk listing).
    expect(conf).not.toMatch(/proxy_cache_valid|proxy_ignore_headers/);
    expect(conf).toMatch(/proxy_cache_path\s+\S+\s+[^;]*keys_zone=civicstream:/);
    expect(conf).toMatch(/^\s*gzip\s+off\s*;/m);
    expect(conf).not.toMatch(/gzip\s+on|gunzip|gzip_static/);
  });

  it('retries idempotent requests on another replica on errors, timeouts, 502, 503 and 504, a bounded number of times', () => {
    for (const l of proxied) {
      expect(l.body).toMatch(/proxy_next_upstream\s+error\s+timeout\s+http_502\s+http_503\s+http_504\s*;/);
      expect(l.body).not.toMatch(/non_idempotent/);
      expect(Number(/proxy_next_upstream_tries\s+(\d+)\s*;/.exec(l.body)?.[1])).toBeGreaterThan(1);
      expect(/proxy_next_upstream_timeout\s+(\d+)s\s*;/.exec(l.body)?.[1]).toBeDefined();
    }
  });

});

describe('deploy/nginx: the replicas, the operators\' endpoints and each client\'s share', () => {
  it('upstreams.conf holds the replicas: each with passive failover, idle connections kept below the server\'s idle timeout (8 to 12 s)', () => {
    const ups = [...conf.matchAll(/upstream\s+(civicstream_\w+)\s*\{([^}]*)\}/g)];
    expect(ups.map((u) => u[1])).toEqual(['civicstream_finance', 'civicstream_arrests']);
    for (const [, , body] of ups) {
      const servers = [...body!.matchAll(/server\s+(\S+)([^;]*);/g)];
      expect(servers.length).toBeGreaterThanOrEqual(2);
      for (const s of servers) expect(s[2]).toMatch(/max_fails=\d+\s+fail_timeout=\d+s/);
      expect(body).toMatch(/keepalive\s+\d+\s*;/);
      expect(Number(/keepalive_timeout\s+(\d+)s\s*;/.exec(body!)?.[1])).toBeLessThan(8);
      expect(body).toMatch(/zone\s+civicstream_\w+\s+\d+k\s*;/);
    }
    // Nothing else in nginx.conf names a replica: a deploy changes upstreams.conf alone.
    expect(read('nginx.conf')).not.toMatch(/server\s+[\w.-]+:\d+/);
  });

  it('keeps /metrics, /livez and /readyz off the public side of each service', () => {
    expect(servers.length).toBe(2);
    for (const s of servers) {
      for (const p of ['/metrics', '/livez', '/readyz']) expect(s).toMatch(new RegExp(`location\\s+=\\s+${p}\\s*\\{\\s*return\\s+404;\\s*\\}`));
    }
  });

  it('holds each client to its share: requests in progress per address capped (429 past it), idle client connections closed within 15 s', () => {
    // The server's connection gate is global and has no per-client count (an audit: one client's 15,300 idle sockets refused everyone).
    expect(conf).toMatch(/limit_conn_zone\s+\$binary_remote_addr\s+zone=perclient:\d+m\s*;/);
    const cap = Number(/limit_conn\s+perclient\s+(\d+)\s*;/.exec(conf)?.[1]);
    expect(cap).toBeGreaterThanOrEqual(16);
    expect(cap).toBeLessThanOrEqual(256);
    expect(conf).toMatch(/limit_conn_status\s+429\s*;/);
    for (const k of ['keepalive_timeout', 'client_header_timeout', 'client_body_timeout']) expect(Number(new RegExp(`${k}\\s+(\\d+)s\\s*;`).exec(conf)?.[1]), k).toBeLessThanOrEqual(15);
  });
});

describe('deploy/nginx rendered for a test (loopback ports, a temp dir)', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-nginx-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const l = { replicas: [{ finance: 20001, arrests: 20002 }, { finance: 20003, arrests: 20004 }], listen: { finance: 20005, arrests: 20006 } };

  it('keeps every parameter of upstreams.conf but the addresses, and refuses a deploy file that no longer has the lines it replaces', () => {
    const got = renderUpstreams(readFileSync(path.join(DEPLOY, 'upstreams.conf'), 'utf8'), l.replicas);
    expect(got).toContain('server 127.0.0.1:20001 max_fails=');
    expect(got).toContain('server 127.0.0.1:20004 max_fails=');
    expect(() => renderUpstreams('upstream civicstream_finance { server a:1; }', l.replicas)).toThrow(/expected 2/);
  });

  it('passes nginx -t', () => {
    renderNginx(tmp, l);
    expect(checkNginx(tmp)).toBe('');
  });
});
