// The per-client rate limiter's core (issue 20): token buckets in one shared
// table (exact refill on an injected clock, bulk costs, the IETF headers, a
// flood of distinct addresses in fixed memory, no lost update between
// threads), and the address a request is charged to (trusted proxies,
// X-Forwarded-For, normal forms, and what uWS really reports as the peer).

import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { RateLimiter, clientAddress, forwardedFor, parseTrustedProxies, peerText } from '../dist/src/server/rate-limit.js';
import { loadUws } from '../dist/src/server/uws.js';
import { ROOT } from './helpers/server.js';

/** A limiter on its own table and a clock the test moves (ms). */
function limiter(rate: number, burst: number, slots = 1024) {
  const clock = { t: 1_700_000_000_000 };
  const table = RateLimiter.table(slots);
  return { rl: new RateLimiter({ rate, burst }, table, () => clock.t), clock, table };
}

describe('RateLimiter: buckets', () => {
  it('refuses a client over its limit, with Retry-After >= 1, while another client is served', () => {
    const { rl } = limiter(1, 3);
    for (let i = 0; i < 3; i++) expect(rl.take('198.51.100.1', 1).ok).toBe(true);
    const refused = rl.take('198.51.100.1', 1);
    expect(refused).toEqual({ ok: false, remaining: 0, resetS: 3, retryAfterS: 1 });
    expect(rl.take('198.51.100.2', 1)).toEqual({ ok: true, remaining: 2, resetS: 1, retryAfterS: 0 });
    expect(rl.take('198.51.100.1', 1).ok).toBe(false);
  });

  it('a refused client is told to wait at least a second, even a hair before its token', () => {
    let t = 0; // near 0, a double keeps a ten-billionth of a ms
    const rl = new RateLimiter({ rate: 1, burst: 1 }, RateLimiter.table(8), () => t);
    rl.take('c', 1);
    t = 999.9999999;
    expect(rl.take('c', 1)).toEqual({ ok: false, remaining: 0, resetS: 1, retryAfterS: 1 });
  });

  it('refills exactly rate * t tokens, capped at burst, with exact remaining, resetS and retryAfterS', () => {
    const { rl, clock } = limiter(4, 10);
    expect(rl.take('c', 10)).toEqual({ ok: true, remaining: 0, resetS: 3, retryAfterS: 0 }); // 10 tokens at 4/s: 2.5 s
    expect(rl.take('c', 1)).toEqual({ ok: false, remaining: 0, resetS: 3, retryAfterS: 1 });
    clock.t += 249; // 0.996 of a token
    expect(rl.take('c', 1).ok).toBe(false);
    clock.t += 1;
    expect(rl.take('c', 1)).toEqual({ ok: true, remaining: 0, resetS: 3, retryAfterS: 0 });
    clock.t += 1000; // 4 more, exactly
    expect(rl.take('c', 4)).toEqual({ ok: true, remaining: 0, resetS: 3, retryAfterS: 0 });
    expect(rl.take('c', 1).ok).toBe(false);
    clock.t += 1500; // 6 tokens: 4 s to full
    expect(rl.take('c', 2)).toEqual({ ok: true, remaining: 4, resetS: 2, retryAfterS: 0 });
    clock.t += 60_000; // far past full: capped at 10
    expect(rl.take('c', 1)).toEqual({ ok: true, remaining: 9, resetS: 1, retryAfterS: 0 });
    expect(rl.take('c', 9).remaining).toBe(0);
    expect(rl.take('c', 1).ok).toBe(false);
  });

  it('keeps the part of a token that accrues between calls (a refused call every ms)', () => {
    // 0.5/s: half a milli-token a ms, credited every other call; 1.5/s: 1.5 a ms, half of one carried each time.
    for (const [rate, ms, expected] of [[0.5, 4000, 2], [1.5, 3999, 5]] as const) {
      const { rl, clock } = limiter(rate, 1);
      expect(rl.take('c', 1).ok).toBe(true);
      let served = 0;
      for (let i = 0; i < ms; i++) {
        clock.t += 1;
        if (rl.take('c', 1).ok) served++;
      }
      expect(served, `${rate}/s for ${ms} ms`).toBe(expected);
    }
  });

  it('a bulk request spends its cost; one above burst is clamped to burst, and waits for a whole bucket', () => {
    const { rl, clock } = limiter(2, 10);
    expect(rl.take('bulk', 7)).toEqual({ ok: true, remaining: 3, resetS: 4, retryAfterS: 0 });
    expect(rl.take('bulk', 5)).toEqual({ ok: false, remaining: 3, resetS: 4, retryAfterS: 1 }); // 2 more at 2/s
    expect(rl.take('bulk', 3)).toEqual({ ok: true, remaining: 0, resetS: 5, retryAfterS: 0 });
    expect(rl.take('bulk', 1000)).toEqual({ ok: false, remaining: 0, resetS: 5, retryAfterS: 5 });
    clock.t += 5000;
    expect(rl.take('bulk', 1000)).toEqual({ ok: true, remaining: 0, resetS: 5, retryAfterS: 0 });
    expect(rl.take('fresh', 50)).toEqual({ ok: true, remaining: 0, resetS: 5, retryAfterS: 0 });
  });

  it('headers: RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers-10), Retry-After when refused', () => {
    const { rl } = limiter(10, 20);
    expect(rl.headers(rl.take('h', 1))).toEqual({ 'RateLimit-Policy': '"default";q=20;w=2', RateLimit: '"default";r=19;t=1' });
    rl.take('h', 19);
    expect(rl.headers(rl.take('h', 5))).toEqual({ 'RateLimit-Policy': '"default";q=20;w=2', RateLimit: '"default";r=0;t=2', 'Retry-After': '1' });
    // Whole seconds up, without float noise: 21 / 0.7 is 30.000000000000004, and 30 s it is.
    const slow = limiter(0.7, 21).rl;
    expect(slow.headers(slow.take('x', 21))).toEqual({ 'RateLimit-Policy': '"default";q=21;w=30', RateLimit: '"default";r=0;t=30' });
    const odd = limiter(3, 10).rl;
    expect(odd.headers(odd.take('x', 1))).toEqual({ 'RateLimit-Policy': '"default";q=10;w=4', RateLimit: '"default";r=9;t=1' });
  });

  it('refuses a policy or table it cannot honour', () => {
    const table = RateLimiter.table(8);
    expect(() => new RateLimiter({ rate: 0, burst: 5 }, table)).toThrow(/rate must be .* above 0; got 0/);
    expect(() => new RateLimiter({ rate: 1, burst: 0 }, table)).toThrow(/burst must be a whole number/);
    expect(() => new RateLimiter({ rate: 1, burst: 2.5 }, table)).toThrow(/burst must be a whole number/);
    expect(() => new RateLimiter({ rate: 1, burst: 5 }, new SharedArrayBuffer(64 + 8 * 32))).toThrow(/not one made by RateLimiter.table/);
    expect(() => RateLimiter.table(4)).toThrow(/slots must be a whole number from 8/);
    expect(RateLimiter.table().byteLength).toBe(64 + 65_536 * 32);
  });
});

describe('RateLimiter: a fixed table under a flood', () => {
  it('a million distinct addresses through 1,024 slots: memory unchanged, and a refused client stays refused', () => {
    // 1 token per 100 s: over the flood's simulated second the refused client earns 0.01 of one.
    const { rl, clock, table } = limiter(0.01, 5, 1024);
    const size = table.byteLength;
    for (let i = 0; i < 5; i++) expect(rl.take('203.0.113.7', 1).ok).toBe(true);
    const arrayBuffers = process.memoryUsage().arrayBuffers;
    let stillRefused = 0;
    for (let i = 0; i < 1_000_000; i++) {
      clock.t += 0.001;
      rl.take(`10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`, 1);
      if (i % 10_000 === 9_999 && !rl.take('203.0.113.7', 1).ok) stillRefused++;
    }
    expect(stillRefused).toBe(100);
    expect(table.byteLength).toBe(size);
    expect(process.memoryUsage().arrayBuffers - arrayBuffers).toBeLessThan(1024 * 1024);
    // The flood's clients were forgotten for lack of room: the first is served a fresh bucket.
    expect(rl.take('10.0.0.0', 1).remaining).toBe(4);
  });

  it('a new client evicts the fullest bucket, or takes one full by now (8 slots: one window)', () => {
    const { rl, clock } = limiter(1, 10, 8);
    // Eight clients fill the table; client k spends k + 1 tokens (k0 is the fullest, at 9).
    for (let k = 0; k < 8; k++) rl.take(`k${k}`, k + 1);
    rl.take('new1', 1); // evicts k0
    for (let k = 1; k < 8; k++) expect(rl.take(`k${k}`, 1).remaining, `k${k}`).toBe(8 - k); // kept
    expect(rl.take('k0', 1).remaining).toBe(9); // forgotten: back with a full bucket (evicting new1, at 9)
    clock.t += 3000; // k1 and k2 are full by now (7 + 3); k7 is at 1 + 3
    rl.take('new2', 1);
    expect(rl.take('k7', 1).remaining).toBe(3);
    expect(rl.take('k6', 1).remaining).toBe(4); // 2 + 3 - 1
  });
});

describe('RateLimiter: threads sharing one table', () => {
  const moduleUrl = pathToFileURL(path.join(ROOT, 'dist/src/server/rate-limit.js')).href;
  const source = `
    const { workerData, parentPort } = require('node:worker_threads');
    import(${JSON.stringify(moduleUrl)}).then(({ RateLimiter }) => {
      // A big bucket: a lost update (two threads reading one count) needs many tries to show.
      const rl = new RateLimiter({ rate: 0.001, burst: 2_000_000 }, workerData.table);
      const start = new Int32Array(workerData.start);
      Atomics.add(start, 0, 1);
      while (Atomics.load(start, 0) < workerData.threads) {} // all at once
      let ok = 0;
      if (workerData.keys === 0) {
        for (let refused = 0; refused < 200;) { if (rl.take('hot', 1).ok) ok++; else refused++; }
      } else {
        // Every thread meets the same new clients at once: in step, waiting for each other (start[1]) every 8 keys.
        for (let k = 0; k < workerData.keys; k++) {
          if (k % 8 === 0) {
            // Spin (in step), or sleep when the cores are busy with other tests; the last to arrive wakes the rest.
            const target = (k / 8 + 1) * workerData.threads;
            if (Atomics.add(start, 1, 1) + 1 === target) Atomics.notify(start, 1);
            for (let spins = 0, seen; (seen = Atomics.load(start, 1)) < target; spins++) if (spins > 2000) Atomics.wait(start, 1, seen, 1);
          }
          if (rl.take('c' + k, 2_000_000).ok) ok++;
        }
      }
      parentPort.postMessage(ok);
    });`;

  /** Tokens taken per thread: from one key until refused (keys 0), or a whole bucket of each of `keys` new keys. */
  const hammer = async (threads: number, keys = 0): Promise<number[]> => {
    const table = RateLimiter.table(keys === 0 ? 1024 : 1 << 20);
    const start = new SharedArrayBuffer(8);
    const workers = Array.from({ length: threads }, () => new Worker(source, { eval: true, workerData: { table, start, threads, keys } }));
    try {
      return await Promise.all(workers.map((w) => new Promise<number>((resolve, reject) => { w.once('message', resolve); w.once('error', reject); })));
    } finally {
      await Promise.all(workers.map((w) => w.terminate()));
    }
  };

  it('two threads hammering one key take exactly the 2,000,000 tokens there are', async () => {
    const oks = await hammer(2);
    expect(oks.reduce((a, b) => a + b, 0)).toBe(2_000_000);
    expect(Math.min(...oks)).toBeGreaterThan(0); // both took part
  });

  it('four threads on two cores (holders preempted inside a section) take exactly 2,000,000 too', async () => {
    const oks = await hammer(4);
    expect(oks.reduce((a, b) => a + b, 0)).toBe(2_000_000);
  });

  it('threads meeting a new client at once give it one bucket, not one each', async () => {
    // 20,000 keys in 2^20 slots: no window fills, so no bucket is evicted and made anew.
    const oks = await hammer(2, 20_000);
    expect(oks.reduce((a, b) => a + b, 0)).toBe(20_000);
  });
});

describe('RateLimiter: a lock its holder never gives back', () => {
  it('is taken over after about 100 ms, so that a terminated thread cannot hang its slots', () => {
    const table = RateLimiter.table(8);
    // The table's layout: 64 bytes of header, then 32-byte slots whose first Int32 is the slot's lock.
    const words = new Int32Array(table);
    for (let slot = 0; slot < 8; slot++) words[16 + slot * 8] = 1;
    const rl = new RateLimiter({ rate: 1, burst: 5 }, table);
    const started = performance.now();
    expect(rl.take('c', 1)).toEqual({ ok: true, remaining: 4, resetS: 1, retryAfterS: 0 });
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThan(90);
    expect(waited).toBeLessThan(5000);
    expect(rl.take('c', 1).remaining).toBe(3); // and given back, as any other
  });
});

describe('clientAddress', () => {
  const trusted = parseTrustedProxies('127.0.0.1, 10.0.0.0/8, ::1, fd00::/8');
  const none = parseTrustedProxies('');

  it('an untrusted peer is the client, whatever its X-Forwarded-For says (a spoofer cannot pick its bucket)', () => {
    expect(clientAddress('203.0.113.9', '198.51.100.7', trusted)).toBe('203.0.113.9');
    expect(clientAddress('203.0.113.9', '10.0.0.1', trusted)).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', '198.51.100.7', none)).toBe('10.0.0.2');
    expect(none.entries).toEqual([]);
  });

  it('behind trusted proxies: the right-most address that is not a trusted proxy', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.2', '198.51.100.7, 10.0.0.5', trusted)).toBe('198.51.100.7');
    // The client wrote 6.6.6.6 itself; the proxy appended the address it saw.
    expect(clientAddress('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.5', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.2', '10.0.0.9,10.0.0.5', trusted)).toBe('10.0.0.9'); // all trusted: the left-most
    expect(clientAddress('10.0.0.2', '', trusted)).toBe('10.0.0.2');
  });

  it('a malformed entry stops the walk: the last good address, or the peer', () => {
    expect(clientAddress('10.0.0.2', 'unknown, 10.0.0.5', trusted)).toBe('10.0.0.5');
    expect(clientAddress('10.0.0.2', '198.51.100.7, garbage', trusted)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', '198.51.100.7,', trusted)).toBe('10.0.0.2');
    for (const bad of ['300.1.1.1', '01.2.3.4', '1.2.3', '1.2.3.4.5', '1:2', '::1::', 'fe80::1%eth0', '[::1', '1.2.3.4:http', '[1.2.3.4]']) {
      expect(clientAddress('10.0.0.2', `198.51.100.7, ${bad}`, trusted), bad).toBe('10.0.0.2');
    }
  });

  it('strips ports, and writes IPv6 in lower-case compressed form and IPv4-mapped IPv6 as IPv4', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.7:5555', trusted)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.2', '[2001:DB8::7]:443', trusted)).toBe('2001:db8::7');
    expect(clientAddress('10.0.0.2', '[2001:db8::7]', trusted)).toBe('2001:db8::7');
    expect(clientAddress('10.0.0.2:41000', '', trusted)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', '::ffff:198.51.100.7', trusted)).toBe('198.51.100.7');
    const normal = (a: string) => clientAddress(a, '', none);
    expect(normal('0000:0000:0000:0000:0000:0000:0000:0001')).toBe('::1');
    expect(normal('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe('127.0.0.1');
    expect(normal('FD00:0000:0000:0000:0000:0000:0000:0002')).toBe('fd00::2');
    expect(normal('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1'); // the first of two equal runs
    expect(normal('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1'); // one zero group is not ::
    expect(normal('0:0:0:0:0:0:0:0')).toBe('::');
    expect(normal('1::')).toBe('1::');
  });

  it('IPv6 ranges and IPv4-mapped peers are trusted as their ranges say', () => {
    // A dual-stack listener reports an IPv4 client in IPv4-mapped form: it is 127.0.0.1, trusted.
    expect(clientAddress('0000:0000:0000:0000:0000:ffff:7f00:0001', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('fd12:3456::1', '2001:DB8:0:0:0:0:0:1, fd00::5', trusted)).toBe('2001:db8::1');
    expect(clientAddress('fe80::1', '198.51.100.7', trusted)).toBe('fe80::1');
    const mapped = parseTrustedProxies('::ffff:10.0.0.0/104');
    expect(mapped.entries).toEqual(['10.0.0.0/8']);
    expect(clientAddress('10.9.9.9', '198.51.100.7', mapped)).toBe('198.51.100.7');
    expect(clientAddress('11.0.0.1', '198.51.100.7', mapped)).toBe('11.0.0.1');
  });
});

describe('parseTrustedProxies', () => {
  it('reads addresses and ranges in normal form, and names a bad piece', () => {
    expect(parseTrustedProxies(' 127.0.0.1 , 10.0.0.0/8,::1,FD00::/8,').entries).toEqual(['127.0.0.1/32', '10.0.0.0/8', '::1/128', 'fd00::/8']);
    expect(() => parseTrustedProxies('127.0.0.1, 10.0.0.300')).toThrow("TRUST_PROXY: '10.0.0.300' is not an IPv4 or IPv6 address or CIDR range (in '127.0.0.1, 10.0.0.300').");
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow("'10.0.0.0/33' has a prefix length that is not a whole number from 0 to 32");
    expect(() => parseTrustedProxies('fd00::/x')).toThrow("'fd00::/x' has a prefix length that is not a whole number from 0 to 128");
    expect(() => parseTrustedProxies('10.0.0.1/8')).toThrow("'10.0.0.1/8' has bits set past its /8 prefix");
    expect(() => parseTrustedProxies('loopback')).toThrow("'loopback' is not an IPv4 or IPv6 address");
  });
});

describe('the peer as uWebSockets.js reports it', () => {
  type Seen = { text: string; peer: string; xff: string };
  /** One raw request to a uWS app listening on `host`, from `connectTo`, with two X-Forwarded-For lines. */
  async function seen(host: string, connectTo: string): Promise<Seen | null> {
    const uws = loadUws();
    const app = uws.App().get('/*', (res, req) => {
      const body: Seen = { text: Buffer.from(res.getRemoteAddressAsText()).toString(), peer: peerText(res), xff: forwardedFor(req) };
      res.end(JSON.stringify(body));
    });
    let socket: unknown = false;
    const port = await new Promise<number>((r) => app.listen(host, 0, (s) => { socket = s; r(s ? uws.us_socket_local_port(s) : -1); }));
    if (port < 0) return null;
    try {
      return await new Promise<Seen>((resolve, reject) => {
        const c = net.connect(port, connectTo);
        let out = '';
        c.on('data', (d) => { out += d; });
        c.on('end', () => resolve(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)) as Seen));
        c.on('error', reject);
        c.write('GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 6.6.6.6\r\nX-Forwarded-For: 198.51.100.7, 10.0.0.5\r\nConnection: close\r\n\r\n');
      });
    } finally {
      uws.us_listen_socket_close(socket as never);
    }
  }

  it('IPv4 listener: text 127.0.0.1; every X-Forwarded-For line, in order', async () => {
    expect(await seen('127.0.0.1', '127.0.0.1')).toEqual({ text: '127.0.0.1', peer: '127.0.0.1', xff: '6.6.6.6,198.51.100.7, 10.0.0.5' });
  });

  it('dual-stack listener, IPv4 client: expanded IPv4-mapped text, peerText 127.0.0.1', async () => {
    const got = await seen('::', '127.0.0.1');
    if (got === null) return; // no IPv6 here
    expect(got.text).toBe('0000:0000:0000:0000:0000:ffff:7f00:0001');
    expect(got.peer).toBe('127.0.0.1');
    expect(clientAddress(got.text, '', parseTrustedProxies(''))).toBe('127.0.0.1');
  });

  it('IPv6 listener: expanded text, peerText ::1', async () => {
    const got = await seen('::1', '::1');
    if (got === null) return; // no IPv6 here
    expect(got.text).toBe('0000:0000:0000:0000:0000:0000:0000:0001');
    expect(got.peer).toBe('::1');
  });
});
