// Pipelining over raw sockets (issue 33), against what the data dictionary's `connections` decision says:
// answers ready at once are answered in order, each whole, however many are pipelined; an answer that
// waits on a job may come last, but a request behind it makes this uWS build close the connection (it
// denies "async pipelining"), and then nothing partial or out of order has been sent, the connection is
// closed at once, and the requests left unanswered are answered when sent again (RFC 9112 9.3.2).
// Each expected answer is the server's answer to that request sent alone on a connection of its own.

import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { gunzipSync } from 'node:zlib';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrestsUrl, financeUrl } from './helpers/http.js';
import { freePort, renderNginx, startNginx, type Nginx } from './helpers/nginx.js';
import { parseAnswers, portOf, type RawAnswer } from './helpers/raw-http.js';

interface Req { name: string; method: 'GET' | 'HEAD'; path: string; headers?: string; waits: boolean }

const J = '/api/v1/spending?type=state&years=2019&limit=3';
const READY: Req[] = [
  { name: 'cached JSON', method: 'GET', path: J, waits: false },
  { name: 'HEAD of cached JSON', method: 'HEAD', path: J, waits: false },
  { name: 'cached gzip CSV', method: 'GET', path: '/api/v1/spending?type=state&years=2019&limit=4&format=csv', headers: 'Accept-Encoding: gzip\r\n', waits: false },
  { name: 'livez', method: 'GET', path: '/livez', waits: false },
  { name: 'an error', method: 'GET', path: '/api/v1/no-such-route', waits: false },
  { name: 'a docs file', method: 'GET', path: '/__docs__/', waits: false },
  { name: 'HEAD of a docs file', method: 'HEAD', path: '/__docs__/', waits: false },
];
/** Answers made by a job each time: a limit never asked before (n) keeps them out of every cache. */
let fresh = 100;
const WAITING: ((n: number) => Req)[] = [
  (n) => ({ name: 'uncached JSON', method: 'GET', path: `/api/v1/spending?type=city&years=2019&limit=${n}`, waits: true }),
  (n) => ({ name: 'uncached CSV', method: 'GET', path: `/api/v1/spending?type=city&years=2019&format=csv&limit=${n}`, waits: true }),
  (n) => ({ name: 'uncached Arrow', method: 'GET', path: `/api/v1/spending?type=city&years=2019&format=arrow&limit=${n}`, waits: true }),
  (n) => ({ name: 'uncached Parquet', method: 'GET', path: `/api/v1/spending?type=city&years=2019&format=parquet&limit=${n}`, waits: true }),
];
const waiting = (i: number): Req => WAITING[i % WAITING.length]!(fresh++);
/** A bulk file, read from disk as the client takes it (the test server builds them: global-setup.ts). */
let bulkFile: Req;

const wire = (r: Req): string => `${r.method} ${r.path} HTTP/1.1\r\nHost: test\r\n${r.headers ?? ''}\r\n`;
/** Where the pipelines go: the server itself, or nginx in front of it (the describe block's beforeAll sets it). */
let target = (): number => portOf(financeUrl());
const port = (): number => target();

/** What a client can compare of two answers: status, the headers of the representation, the body (decoded: a gzip stream's bytes may differ between a miss and a hit). */
const shape = (a: RawAnswer): unknown => ({
  status: a.status, type: a.headers['content-type'], length: a.headers['content-length'], etag: a.headers.etag, coding: a.headers['content-encoding'],
  body: (a.headers['content-encoding'] === 'gzip' && a.body.length > 0 ? gunzipSync(a.body) : a.body).toString('latin1'),
});

/** The request answered alone, on a connection of its own (the expected answer), once per request. */
let seenAlone = new Map<string, unknown>();
async function alone(r: Req): Promise<unknown> {
  const key = wire(r);
  if (!seenAlone.has(key)) {
    const answers = await oneAtATime([r]);
    expect(answers, `${r.name} alone`).toHaveLength(1);
    seenAlone.set(key, shape(answers[0]!));
  }
  return seenAlone.get(key);
}

/** The requests written at once; done when every answer is in whole, or the server closed, or 30 s passed. */
function pipelined(reqs: Req[]): Promise<{ answers: RawAnswer[]; rest: Buffer; closedAfter: number | null }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port(), '127.0.0.1');
    const t0 = Date.now();
    let bytes = Buffer.alloc(0);
    const done = (closedAfter: number | null): void => { clearTimeout(timer); sock.destroy(); resolve({ ...parseAnswers(bytes, reqs.map((r) => r.method)), closedAfter }); };
    const timer = setTimeout(() => done(null), 30_000);
    sock.on('connect', () => sock.write(reqs.map(wire).join('')));
    sock.on('data', (d) => {
      bytes = Buffer.concat([bytes, d]);
      if (parseAnswers(bytes, reqs.map((r) => r.method)).answers.length === reqs.length) done(Date.now() - t0);
    });
    sock.on('close', () => done(Date.now() - t0));
    sock.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

/** Requests on one kept-alive connection, each sent once the answer before it is in whole (no pipelining). */
function oneAtATime(reqs: Req[]): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port(), '127.0.0.1');
    let bytes = Buffer.alloc(0);
    let sent = 0;
    const timer = setTimeout(() => { sock.destroy(); resolve(parseAnswers(bytes, reqs.map((r) => r.method)).answers); }, 10_000);
    const next = (): void => {
      const { answers } = parseAnswers(bytes, reqs.map((r) => r.method));
      if (answers.length === reqs.length) { clearTimeout(timer); sock.destroy(); resolve(answers); return; }
      if (answers.length === sent) sock.write(wire(reqs[sent++]!));
    };
    sock.on('connect', next);
    sock.on('data', (d) => { bytes = Buffer.concat([bytes, d]); next(); });
    sock.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

/** Pipelines of n requests drawn in turn from `from`, starting at each offset. */
const mixes = (from: Req[], n: number): Req[][] => from.map((_, k) => Array.from({ length: n }, (_, i) => from[(k + i) % from.length]!));

describe('pipelining', () => {
  beforeAll(async () => {
    // The ready answers are in the response cache before any pipeline asks for them: the cache of every
    // front thread (each has its own, and the kernel picks the thread of a new connection), hence 12 connections each.
    for (const r of READY) for (let i = 0; i < 12; i++) await oneAtATime([r]);
    const listing = (await (await fetch(`${financeUrl()}/api/v1/bulk`)).json()) as { data: { url: string | null; format: string }[] };
    const file = listing.data.find((e) => e.url !== null && e.format === 'csv.gz') ?? listing.data.find((e) => e.url !== null);
    bulkFile = { name: 'a bulk file', method: 'GET', path: file!.url!, waits: true };
  });

  it.each([2, 3, 10])('%i answers ready at once, in every mix: all answered, in order, each whole', async (n) => {
    const expected = new Map<Req, unknown>();
    for (const r of READY) expected.set(r, await alone(r));
    for (const reqs of mixes(READY, n)) {
      const got = await pipelined(reqs);
      expect(got.rest.length, reqs.map((r) => r.name).join(', ')).toBe(0);
      expect(got.answers.map(shape)).toEqual(reqs.map((r) => expected.get(r)));
    }
  });

  it.each([2, 3, 10])('%i requests, the last one waiting on a job (JSON, CSV, Arrow, Parquet, a bulk file): all answered, in order, each whole', async (n) => {
    for (let w = 0; w <= WAITING.length; w++) {
      const reqs = [...mixes(READY, n - 1)[w % READY.length]!, w === WAITING.length ? bulkFile : waiting(w)];
      const expected = [];
      for (const r of reqs) expected.push(await alone(r));
      const got = await pipelined(reqs);
      expect(got.rest.length).toBe(0);
      expect(got.answers.map(shape), reqs.map((r) => r.name).join(', ')).toEqual(expected);
    }
  });

  it.each([2, 3, 10])('%i requests with one behind an answer that waits: the documented refusal (nothing partial, closed at once), and each unanswered request is answered when sent again', async (n) => {
    for (let w = 0; w <= WAITING.length; w++) {
      // The waiting request at each place but the last.
      for (const at of n === 10 ? [0, 4, 8] : Array.from({ length: n - 1 }, (_, i) => i)) {
        const ready = mixes(READY, n - 1)[(w + at) % READY.length]!;
        const reqs = [...ready.slice(0, at), w === WAITING.length ? bulkFile : waiting(w), ...ready.slice(at)];
        const got = await pipelined(reqs);
        const names = reqs.map((r) => r.name).join(', ');
        // Only whole answers, a prefix of the pipeline in its order, none for the waiting one or after it.
        expect(got.rest.length, names).toBe(0);
        expect(got.answers.length, names).toBeLessThanOrEqual(at);
        // Closed by the server at once, not left to a timeout (closedAfter counts to the close here: fewer answers than requests).
        expect(got.closedAfter, names).not.toBeNull();
        expect(got.closedAfter!, names).toBeLessThan(6_000);
        for (let i = 0; i < got.answers.length; i++) expect(shape(got.answers[i]!), names).toEqual(await alone(reqs[i]!));
        // The retry the dictionary asks of a pipelining client: what was left, one request at a time on one kept-alive connection.
        const left = reqs.slice(got.answers.length);
        const retried = await oneAtATime(left);
        expect(retried, names).toHaveLength(left.length);
        for (let i = 0; i < left.length; i++) expect(shape(retried[i]!), left[i]!.name).toEqual(await alone(left[i]!));
      }
    }
  }, 120_000);
});

/** The requests pipelined by a client whose TCP window is a few KB and who reads nothing for delayMs (helpers/small-window-pipeline.py). */
function smallWindow(reqs: Req[], delayMs: number): { answers: RawAnswer[]; rest: Buffer; closedAfter: number | null } {
  const script = fileURLToPath(new URL('./helpers/small-window-pipeline.py', import.meta.url));
  const run = spawnSync('python3', [script, '127.0.0.1', String(port()), String(delayMs)], { input: reqs.map(wire).join(''), maxBuffer: 64 << 20, timeout: 15_000 });
  expect(run.error).toBeUndefined();
  expect(run.status, run.stderr.toString()).toBe(0);
  const m = /closed (\d+)/.exec(run.stderr.toString());
  return { ...parseAnswers(run.stdout, reqs.map((r) => r.method)), closedAfter: m === null ? null : Number(m[1]) };
}

describe('pipelining behind a stream that is ready at once', () => {
  // A gzip bulk page over 256 KB is kept once it has gone out whole, and a repeat is streamed from the kept
  // bytes (X-Cache: hit): ready at once, but still a stream, pending until its last chunk. Started inside
  // uWS's parse, its first chunks went out before uWS read the request behind it and closed the connection:
  // the client got a cut answer. A client with a small window makes the cut certain (the socket fills).
  const kept: Req = { name: 'a kept gzip bulk page', method: 'GET', path: '/api/v1/spending?type=city&years=2019&format=csv&limit=50000', headers: 'Accept-Encoding: gzip\r\n', waits: true };
  beforeAll(async () => {
    // Kept in the cache of every front thread (each has its own; the kernel picks the thread of a new
    // connection): pulled until 16 new connections in a row get it from the cache.
    for (let i = 0, hits = 0; hits < 16 && i < 200; i++) {
      const [a] = await oneAtATime([kept]);
      hits = a?.headers['x-cache'] === 'hit' ? hits + 1 : 0;
    }
  });

  it.each(READY.filter((r) => r.method === 'GET').map((r) => [r.name, r] as const))('a kept bulk page, then %s: nothing partial, closed at once, and both answered when sent again', async (_, behind) => {
    const [hit] = await oneAtATime([kept]);
    expect(hit!.headers['x-cache']).toBe('hit');
    expect(hit!.headers['transfer-encoding']).toBe('chunked');
    // Three connections: each lands on a front thread that holds the page (beforeAll), so each is the cut case.
    await closedBeforeAnyThenAnswered([kept, behind]);
  }, 60_000);
});

/** Pipelined by a small-window client, three times: nothing of either answer sent, the connection closed at once; then each answered alone. */
async function closedBeforeAnyThenAnswered(reqs: Req[]): Promise<void> {
  for (let k = 0; k < 3; k++) {
    const got = smallWindow(reqs, 300);
    expect(got.rest.length).toBe(0);
    expect(got.answers).toHaveLength(0);
    expect(got.closedAfter).not.toBeNull();
    expect(got.closedAfter!).toBeLessThan(6_000);
  }
  const retried = await oneAtATime(reqs);
  expect(retried).toHaveLength(2);
  for (let i = 0; i < 2; i++) expect(shape(retried[i]!), reqs[i]!.name).toEqual(await alone(reqs[i]!));
}

describe('pipelining behind a large answer that is ready at once', () => {
  // A body over 16 KB may not go whole at once; it is kept until the client reads it, pending to uWS meanwhile
  // (src/server/uws-outgoing.ts endOrKeep: a client that never reads holds one answer). Written inside uWS's parse,
  // the request behind it closed the connection with it cut short (a review: 47,768 bytes of a 400 KB answer).
  const large: Req = { name: 'the data dictionary (80 KB, cached)', method: 'GET', path: '/api/v1/data-dictionary', waits: true };
  it('nothing partial, closed at once, and both answered when sent again', async () => {
    const behind = READY.find((r) => r.name === 'livez')!;
    await oneAtATime([large]);
    await closedBeforeAnyThenAnswered([large, behind]);
  }, 60_000);
});

// The deployment (deploy/nginx): nginx reads a client's pipeline and sends the server one request at a time
// on its kept-alive upstream connections, so a pipeline through it is answered whole and in order, whatever
// waits on a job and wherever it stands: what the `connections` decision tells a pipelining client to use.
describe('pipelining through nginx (deploy/nginx, in front of the test server)', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-pipeline-'));
  let nginx: Nginx | null = null;
  beforeAll(async () => {
    const [finance, arrests] = [await freePort(), await freePort()];
    const replica = { finance: portOf(financeUrl()), arrests: portOf(arrestsUrl()) };
    const layout = { replicas: [replica, replica], listen: { finance, arrests } };
    renderNginx(tmp, layout);
    nginx = await startNginx(tmp, layout);
    target = () => finance;
    seenAlone = new Map();
  });
  afterAll(async () => {
    await nginx?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it.each([2, 3, 10])('%i requests, one waiting on a job (JSON, CSV, Arrow, Parquet, a bulk file) at each place: all answered, in order, each whole', async (n) => {
    for (let w = 0; w <= WAITING.length; w++) {
      for (const at of n === 10 ? [0, 4, 9] : Array.from({ length: n }, (_, i) => i)) {
        const ready = mixes(READY, n - 1)[(w + at) % READY.length]!;
        const reqs = [...ready.slice(0, at), w === WAITING.length ? bulkFile : waiting(w), ...ready.slice(at)];
        const names = reqs.map((r) => r.name).join(', ');
        const expected = [];
        for (const r of reqs) expected.push(await alone(r));
        const got = await pipelined(reqs);
        expect(got.rest.length, names).toBe(0);
        expect(got.answers.map(shape), names).toEqual(expected);
      }
    }
  }, 120_000);

  it('10 requests, every one waiting on a job: all answered, in order, each whole', async () => {
    const reqs = Array.from({ length: 10 }, (_, i) => (i === 5 ? bulkFile : waiting(i)));
    const expected = [];
    for (const r of reqs) expected.push(await alone(r));
    const got = await pipelined(reqs);
    expect(got.rest.length).toBe(0);
    expect(got.answers.map(shape)).toEqual(expected);
  });
});
