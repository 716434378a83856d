// Limits on what a request may carry, each a clear 4xx envelope; a body on a
// GET is ignored without disturbing the next request on the connection.

import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, financeUrl, get } from './helpers/http.js';

/** Writes raw bytes on one connection and collects what comes back within waitMs. */
function rawExchange(bytes: string, waitMs = 400): Promise<string> {
  const u = new URL(financeUrl());
  return new Promise((resolve) => {
    let got = '';
    const sock = net.connect(Number(u.port), u.hostname, () => sock.write(bytes));
    sock.setEncoding('utf8');
    sock.on('data', (d) => { got += d; });
    sock.on('error', () => resolve(got));
    setTimeout(() => { sock.destroy(); resolve(got); }, waitMs);
  });
}

describe('request limits', () => {
  it('a URL over 8,192 characters is a 414 envelope', async () => {
    const got = await get(`/api/v1/governments?q=${'x'.repeat(9000)}`);
    expect(expectErrorEnvelope(got, 414)).toBe('URL longer than 8192 characters.');
  });

  it('more than 64 query keys is a 400 envelope', async () => {
    const got = await get(`/api/v1/governments?${Array.from({ length: 65 }, (_, i) => `k${i}=1`).join('&')}`);
    expect(expectErrorEnvelope(got, 400)).toBe('Query string has more than 64 keys.');
  });

  it('headers over 16 KB in all are a 431 envelope; 8 KB of headers pass', async () => {
    const big = await get('/api/v1/categories', { headers: { 'x-padding': 'x'.repeat(20_000) } });
    expect(expectErrorEnvelope(big, 431)).toMatch(/^Request headers of \d+ bytes; at most 16384 are accepted\.$/);
    expect((await get('/api/v1/categories', { headers: { 'x-padding': 'x'.repeat(8000) } })).status).toBe(200);
  });

  it('a body on a GET is ignored, and the next request on the same connection is answered on its own', async () => {
    const body = 'GET /api/v1/evil HTTP/1.1\r\nHost: x\r\n\r\n';
    const text = await rawExchange(
      `GET /api/v1/categories?type=spending HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}` +
      'GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    // A response's body is not followed by CRLF, so the next status line starts right after it.
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
    expect(statuses).toEqual(['200', '200']);
    expect(text).toContain('"corpus"');
    expect(text).not.toContain('/api/v1/evil');
  });
});
