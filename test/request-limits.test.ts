// Limits on what a request may carry, each a clear 4xx envelope; a body on a
// GET is ignored without disturbing the next request on the connection.

import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, financeUrl, get } from './helpers/http.js';
import { exchange, parseAnswers, portOf, req, statuses } from './helpers/raw-http.js';

/** Writes raw bytes on one connection and collects what comes back, until two answers are whole (or 15 s). */
async function rawExchange(bytes: string): Promise<string> {
  return (await exchange(portOf(financeUrl()), [[0, bytes]], 15_000, ['GET', 'GET'])).text;
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

describe('conflicting Content-Length (RFC 9112 6.3: 400 and close)', () => {
  const port = (): number => portOf(financeUrl());
  const withLengths = (method: string, lengths: string[]): string =>
    `${method} /api/v1/categories HTTP/1.1\r\nHost: test\r\n${lengths.map((l) => `Content-Length: ${l}\r\n`).join('')}\r\nhello`;

  it.each(['GET', 'HEAD'])('%s with Content-Length 5 then 0: a 400 E_BAD_FRAMING with Connection: close, and the connection is closed', async (method) => {
    const got = await exchange(port(), [[0, withLengths(method, ['5', '0'])]], 7_500);
    expect(statuses(got.text)).toEqual([400]);
    expect(got.text).toMatch(/\r\nConnection: close\r\n/i);
    if (method === 'GET') expect(JSON.parse(got.text.slice(got.text.indexOf('\r\n\r\n') + 4)).meta.error_code).toBe('E_BAD_FRAMING');
    // Closed by the server at once, not by the 10 s idle timeout nor the test's deadline (6 s: a busy machine's
    // answer can take seconds, and the idle timeout is further still).
    expect(got.closedAfter).not.toBeNull();
    expect(got.closedAfter!).toBeLessThan(6_000);
  });

  it('a request pipelined after the ambiguous body is never answered: the connection is closed', async () => {
    const got = await exchange(port(), [[0, withLengths('GET', ['5', '0']) + req('GET', '/livez')]], 7_500);
    // The 400 cannot go out here (see the dictionary's request limits), but nothing after it is answered either.
    expect(statuses(got.text).filter((s) => s !== 400)).toEqual([]);
    expect(got.closedAfter).not.toBeNull();
    expect(got.closedAfter!).toBeLessThan(6_000);
  });

  it('the same length twice is one length: answered, and the next request on the connection too', async () => {
    const got = await exchange(port(), [[0, `GET /api/v1/health HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n${req('GET', '/livez')}`]], 15_000, ['GET', 'GET']);
    expect(parseAnswers(Buffer.from(got.text, 'latin1'), ['GET', 'GET']).answers.map((a) => a.status)).toEqual([200, 200]);
  });
});
