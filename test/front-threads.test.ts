// Front threads: with FRONT_THREADS above 1 the finance API is served by
// that many threads on one port, each running the small jobs itself. The
// answers are the bytes one thread gives, every thread serves, a worker fault
// (which never runs on a front thread) costs one request, and SIGTERM with
// kept-alive clients still exits 0.

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorEnvelope, get } from './helpers/http.js';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { MAIN, startServer, type Running } from './helpers/server.js';

let three: Running, one: Running;

beforeAll(async () => {
  [three, one] = await Promise.all([
    startServer({ FRONT_THREADS: '3', WORKERS: '2', CSV_PAGE_SLOTS: '4', RESPONSE_CACHE_MB: '0', CIVICSTREAM_FAULTS: '1' }),
    startServer({ FRONT_THREADS: '1', WORKERS: '2', RESPONSE_CACHE_MB: '0' }),
  ]);
}, 60_000);
afterAll(async () => { await Promise.all([three?.stop(), one?.stop()]); });

/** /health over a fresh connection (so the kernel may hand it to any front thread). */
function healthFresh(port: number): Promise<any> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/api/v1/health', agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve(JSON.parse(text).data[0]));
    }).on('error', reject);
  });
}

describe('front threads', () => {
  it('start on one port and say so', () => {
    expect(three.ready.front_threads).toBe(3);
    expect(one.ready.front_threads).toBe(1);
  });

  it('give the bytes one thread gives, for every example call (JSON and CSV)', async () => {
    const examples = (await get('/api/v1/examples', undefined, one.url)).body.data as { path: string }[];
    expect(examples.length).toBeGreaterThan(10);
    const calls = examples.flatMap((e) => [e.path, `${e.path}${e.path.includes('?') ? '&' : '?'}format=csv`]);
    for (const call of calls) {
      const [a, b] = await Promise.all([get(call, undefined, three.url), get(call, undefined, one.url)]);
      expect(a.status, call).toBe(b.status);
      expect(a.text, call).toBe(b.text);
    }
  });

  it('every thread serves, and runs one government\'s query itself (no pool message)', async () => {
    const govs = (await get('/api/v1/governments?limit=30', undefined, three.url)).body.data as { canonical_govid: string }[];
    await Promise.all(govs.map((g) => get(`/api/v1/governments/${g.canonical_govid}/spending?category=Police`, undefined, three.url)));
    const seen = new Map<number, any>();
    for (let i = 0; i < 200 && seen.size < 3; i++) {
      const h = await healthFresh(three.port);
      seen.set(h.front_thread.thread_id, h);
    }
    expect(seen.size).toBe(3);
    const all = [...seen.values()];
    for (const h of all) {
      expect(h.front_thread.of).toBe(3);
      expect(h.front_thread.thread_id).toBeGreaterThan(0);
      // WORKERS=2 shared out among 3 threads: at least one each.
      expect(h.workers).toBe(1);
      expect(h.pool_batches.jobs).toBe(0);
    }
    expect(all.reduce((n, h) => n + h.inline_jobs, 0)).toBeGreaterThanOrEqual(govs.length);
    // CSV_PAGE_SLOTS=4 shared out among 3 threads: 2, 1 and 1, adding up to the total.
    expect(all.map((h) => h.csv_page_slots.total).sort()).toEqual([1, 1, 2]);
    const single = await healthFresh(one.port);
    expect(single.front_thread).toEqual({ thread_id: 0, of: 1 });
    expect(single.inline_jobs).toBe(0);
  });

  it('/health gives the process\'s view over every front thread (process: the sums; threads: each thread\'s own), whichever thread answers', async () => {
    const seen = new Map<number, any>();
    for (let i = 0; i < 200 && seen.size < 3; i++) {
      const h = await healthFresh(three.port);
      seen.set(h.front_thread.thread_id, h);
    }
    expect(seen.size).toBe(3);
    const ids = [...seen.keys()].sort();
    // Each thread's own share, as it reports it when it answers: the process's are their sums.
    const ownWorkers = [...seen.values()].reduce((n, h) => n + h.workers, 0);
    const ownSlots = [...seen.values()].reduce((n, h) => n + h.csv_page_slots.total, 0);
    expect(ownSlots).toBe(4);
    for (const h of seen.values()) {
      expect(h.process.threads).toBe(3);
      expect(h.threads.map((t: any) => t.thread_id).sort()).toEqual(ids);
      expect(h.process.workers).toBe(ownWorkers);
      expect(h.process.csv_page_slots.total).toBe(4);
      expect(h.process.requests_in_flight).toBeGreaterThanOrEqual(1);
      const mine = h.threads.find((t: any) => t.thread_id === h.front_thread.thread_id);
      expect([mine.workers, mine.csv_page_slots.total]).toEqual([h.workers, h.csv_page_slots.total]);
      for (const k of ['workers', 'pool_jobs', 'inline_jobs', 'requests_in_flight', 'open_streams'] as const) {
        expect(h.process[k], k).toBe(h.threads.reduce((n: number, t: any) => n + t[k], 0));
      }
    }
    // One thread's view is the whole on a single thread.
    const single = await healthFresh(one.port);
    expect([single.process.threads, single.process.workers, single.threads.length]).toEqual([1, single.workers, 1]);
  });

  it('a worker that dies costs its one request, even sent as a small job; the threads keep serving', async () => {
    for (const q of ['kind=exit', 'kind=exit&batched=true', 'kind=throw&batched=true']) {
      const got = await get(`/__faults__/worker?${q}`, undefined, three.url);
      expect(expectErrorEnvelope(got, 500), q).toBe(`Internal error; request id ${got.headers.get('x-request-id')}.`);
    }
    for (let i = 0; i < 12; i++) expect((await healthFresh(three.port)).status).toBe('ok');
    expect((await get('/api/v1/governments?limit=3', undefined, three.url)).status).toBe(200);
  });

  it('bad input is a 400 envelope on every thread', async () => {
    for (let i = 0; i < 12; i++) {
      const got = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: three.port, path: '/api/v1/spending?years=19x7', agent: false }, (res) => {
          let text = '';
          res.on('data', (d) => { text += d; });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        }).on('error', reject);
      });
      expect(got.status).toBe(400);
      expect(JSON.parse(got.text).status).toBe('error');
    }
  });
});

describe('front threads at SIGTERM', () => {
  it('drain, close kept-alive connections and exit 0', async () => {
    const s = await startServer({ FRONT_THREADS: '2', WORKERS: '1' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    await Promise.all(Array.from({ length: 8 }, () => new Promise<void>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: s.port, path: '/api/v1/health', agent }, (res) => { res.resume(); res.on('end', () => resolve()); }).on('error', reject);
    })));
    let out = '', err = '';
    s.proc.stdout!.on('data', (d) => { out += d; });
    s.proc.stderr!.on('data', (d) => { err += d; });
    const code = await s.stop();
    agent.destroy();
    expect(err).toBe('');
    expect(code).toBe(0);
    const line = out.split('\n').find((l) => l.includes('"event":"shutdown"'));
    expect(JSON.parse(line!)).toMatchObject({ drained: 'idle', unfinished: 0 });
  });
});

describe('front threads at a failed start', () => {
  it('a port taken after the front threads listen: refuses to start with exit 1, not an abort', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      // The finance API is already listening when the school API fails to: the process must still exit cleanly.
      // SHARE_PORT skips the check before loading, which would refuse the taken port before anything listens.
      const proc = spawn(process.execPath, [MAIN], { env: { ...process.env, FINANCE_PORT: '0', ARRESTS_PORT: String(port), ACCESS_LOG: 'false', WORKERS: '1', FRONT_THREADS: '2', SHARE_PORT: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '', stderr = '';
      proc.stdout!.on('data', (d) => { stdout += d; });
      proc.stderr!.on('data', (d) => { stderr += d; });
      const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
      const out = { code, stdout, stderr };
      expect(out.stdout).toContain('"service":"finance"');
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`civicstream: refusing to start: cannot listen on 127.0.0.1:${port}`);
      expect(out.stderr).not.toContain('Assertion failed');
    } finally {
      taken.close();
    }
  });
});
