// What the connections decision says of this uWebSockets.js build: a request head that arrives in several
// reads is kept in a 4 KB buffer, so a head under 4 KB split as a network splits it is answered, and one over
// it is dropped with no answer. Pinned here so that a uWS upgrade that lifts the limit shows up (then the
// decision's text and this test change together).

import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { financeUrl } from './helpers/http.js';

/** Sends the request in pieces of `piece` bytes a few ms apart; resolves with what came back before the close (or 3 s). */
function sendSplit(request: Buffer, piece: number): Promise<string> {
  const { hostname, port } = new URL(financeUrl());
  return new Promise((resolve) => {
    const sock = net.connect(Number(port), hostname);
    let got = '';
    const done = (): void => { sock.destroy(); resolve(got); };
    sock.setNoDelay(true);
    sock.on('data', (d) => { got += d.toString('latin1'); if (got.includes('\r\n\r\n')) done(); });
    sock.on('close', done);
    sock.on('error', done);
    setTimeout(done, 3_000);
    sock.on('connect', async () => {
      for (let at = 0; at < request.length && !sock.destroyed; at += piece) {
        sock.write(request.subarray(at, at + piece));
        await new Promise((r) => setTimeout(r, 3));
      }
    });
  });
}

const head = (bytes: number): Buffer => {
  const bare = 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Pad: \r\n\r\n';
  return Buffer.from(bare.replace('X-Pad: ', `X-Pad: ${'p'.repeat(bytes - bare.length)}`), 'latin1');
};

describe('a request head split across reads (the build\'s 4 KB buffer)', () => {
  it('is answered up to 4 KB, and dropped past it with no answer', async () => {
    expect(head(4000).length).toBe(4000);
    expect(await sendSplit(head(2000), 1448)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await sendSplit(head(4000), 1448)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await sendSplit(head(6000), 1448)).toBe('');
    // Read whole, the same 6,000-byte head is answered: the limit is the split's, not the size's.
    expect(await sendSplit(head(6000), 6000)).toMatch(/^HTTP\/1\.1 200 /);
  });
});
