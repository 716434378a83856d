// The operator's routes (issue 20): /metrics counts exactly the requests
// sent, gathered from every front thread to the one that answers the scrape;
// /livez and /readyz as Kubernetes reads them, /readyz turning 503 on
// SIGTERM while the port still answers (SHUTDOWN_DELAY_MS), then closing.

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from './helpers/server.js';

/** One sample line of the exposition: name, labels, value. */
interface Sample { name: string; labels: Record<string, string>; value: number }

/** Parses the Prometheus text format strictly: every line a comment (HELP/TYPE) or a sample, every sample's family declared. */
function parse(text: string): Sample[] {
  const declared = new Set<string>();
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (meta) { if (meta[1] === 'TYPE') { expect(['counter', 'gauge', 'histogram']).toContain(meta[3]); declared.add(meta[2]!); } continue; }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|\+Inf)$/.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    const family = m[1]!.replace(/_(bucket|sum|count)$/, '');
    expect(declared.has(family) || declared.has(m[1]!), `${m[1]} has no TYPE line`).toBe(true);
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

/** A GET on a new connection each time (agent: false), so the kernel spreads them over the front threads. */
function getNew(base: string, path: string, method = 'GET'): Promise<{ status: number; body: Buffer; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { agent: false, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const scrape = async (base: string): Promise<Sample[]> => {
  const r = await getNew(base, '/metrics');
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  expect(r.headers['cache-control']).toBe('no-store');
  return parse(r.body.toString('utf8'));
};

describe('/metrics, /livez, /readyz', () => {
  let s: Running;
  beforeAll(async () => { s = await startServer({ FRONT_THREADS: '2', WORKERS: '2', CSV_PAGE_SLOTS: '6' }); });
  afterAll(async () => { await s?.stop(); });

  it('counts exactly the requests sent, over both front threads, by route id, method and status class, with their bytes', async () => {
    const before = await scrape(s.url);
    const N = 40;
    let jsonBytes = 0;
    for (let i = 0; i < N; i++) {
      const r = await getNew(s.url, `/api/v1/governments?q=spring${i % 7}&limit=5`);
      expect(r.status).toBe(200);
      jsonBytes += r.body.byteLength;
    }
    const missing = await Promise.all([1, 2, 3].map(() => getNew(s.url, '/no/such/route')));
    for (const r of missing) { expect(r.status).toBe(404); jsonBytes += r.body.byteLength; }
    const heads = await Promise.all([1, 2].map(() => getNew(s.url, '/api/v1/categories', 'HEAD')));
    for (const r of heads) expect(r.status).toBe(200);
    const after = await scrape(s.url);
    const count = (x: Sample[], labels: Record<string, string>): number => value(x, 'http_server_request_duration_seconds_count', labels);
    const d = (labels: Record<string, string>): number => count(after, labels) - count(before, labels);
    expect(d({ route: 'governments', method: 'GET', status_class: '2xx' })).toBe(N);
    expect(d({ route: 'unmatched', method: 'GET', status_class: '4xx' })).toBe(3);
    expect(d({ route: 'categories', method: 'HEAD', status_class: '2xx' })).toBe(2);
    // The scrape before this one is counted too, once it has ended.
    expect(d({ route: 'metrics', method: 'GET', status_class: '2xx' })).toBe(1);
    // The histogram's +Inf bucket is its count, and its buckets never decrease.
    const buckets = after.filter((x) => x.name === 'http_server_request_duration_seconds_bucket' && x.labels.route === 'governments' && x.labels.method === 'GET');
    expect(buckets.at(-1)!.labels.le).toBe('+Inf');
    expect(buckets.at(-1)!.value).toBe(count(after, { route: 'governments', method: 'GET', status_class: '2xx' }));
    for (let k = 1; k < buckets.length; k++) expect(buckets[k]!.value).toBeGreaterThanOrEqual(buckets[k - 1]!.value);
    // Body bytes: the JSON answers and the 404 envelopes, to the byte (HEAD sends none).
    const bytes = (x: Sample[]): number => value(x, 'http_server_response_body_bytes_total', { format: 'json', encoding: 'identity' });
    expect(bytes(after) - bytes(before)).toBe(jsonBytes);
    // Every governments lookup was a cache lookup: a hit or a miss on the thread that answered.
    const lookups = (x: Sample[]): number => value(x, 'civicstream_response_cache_lookups_total');
    expect(lookups(after) - lookups(before)).toBe(N + 2);
    // Both front threads report their gauges; this scrape is in flight while it is counted.
    expect(after.filter((x) => x.name === 'nodejs_eventloop_lag_p99_seconds').map((x) => x.labels.thread).sort()).toEqual(['0', '1']);
    expect(value(after, 'http_server_active_requests')).toBeGreaterThanOrEqual(1);
    expect(value(after, 'civicstream_pool_workers')).toBe(2);
    expect(value(after, 'civicstream_csv_page_slots')).toBe(6);
    expect(value(after, 'civicstream_corpus_rows')).toBe(1_131_643);
    expect(after.find((x) => x.name === 'civicstream_build_info')!.labels.service).toBe('finance');
    expect(value(after, 'process_resident_memory_bytes')).toBeGreaterThan(100e6);
  });

  it('counts pool jobs, the workers\' busy time, and compressed CSV bytes by coding', async () => {
    const before = await scrape(s.url);
    const csv = await new Promise<{ status: number; bytes: number; encoding: string | undefined }>((resolve, reject) => {
      http.get(`${s.url}/api/v1/spending?type=state&years=2019&format=csv&limit=2000`, { agent: false, headers: { 'accept-encoding': 'gzip' } }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => { n += c.byteLength; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: n, encoding: res.headers['content-encoding'] }));
      }).on('error', reject);
    });
    expect(csv.status).toBe(200);
    expect(csv.encoding).toBe('gzip');
    // The request counters are written as each request ends; a thread's pool figures by its sampler each second.
    let after = await scrape(s.url);
    const delta = (name: string, labels: Record<string, string> = {}): number => value(after, name, labels) - value(before, name, labels);
    expect(delta('http_server_response_body_bytes_total', { format: 'csv', encoding: 'gzip' })).toBe(csv.bytes);
    // Up to 20 s for both: with other test files sharing the cores, a sampler's tick can come late.
    for (let t = 0; t < 200 && (delta('civicstream_jobs_total', { where: 'pool' }) === 0 || delta('civicstream_worker_busy_seconds_total') === 0); t++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await scrape(s.url);
    }
    expect(delta('civicstream_jobs_total', { where: 'pool' })).toBeGreaterThanOrEqual(1);
    expect(delta('civicstream_worker_busy_seconds_total')).toBeGreaterThan(0);
    expect(value(after, 'civicstream_open_streams')).toBe(0);
  });

  it('answers /livez and /readyz, never cached', async () => {
    const live = await getNew(s.url, '/livez');
    expect([live.status, live.body.toString()]).toEqual([200, 'ok\n']);
    const ready = await getNew(s.url, '/readyz');
    expect([ready.status, ready.body.toString()]).toEqual([200, 'ready\n']);
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(ready.headers.etag).toBeUndefined();
    // The school service has its own, and its own metrics.
    expect((await getNew(s.arrestsUrl, '/readyz')).status).toBe(200);
    const school = parse((await getNew(s.arrestsUrl, '/metrics')).body.toString());
    expect(school.find((x) => x.name === 'civicstream_build_info')!.labels.service).toBe('arrests');
  });
});

describe('SIGTERM', () => {
  it('turns /readyz 503 at once while the port still answers for SHUTDOWN_DELAY_MS, then closes it; /livez stays 200 meanwhile', async () => {
    const s = await startServer({ FRONT_THREADS: '2', SHUTDOWN_DELAY_MS: '3000' });
    expect((await getNew(s.url, '/readyz')).status).toBe(200);
    const exited = new Promise<number | null>((r) => s.proc.once('exit', (c) => r(c)));
    s.proc.kill('SIGTERM');
    let ready = await getNew(s.url, '/readyz');
    // The signal reaches the process within a moment; until then it is still ready.
    for (let t = 0; t < 50 && ready.status === 200; t++) ready = await getNew(s.url, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.toString()).toMatch(/^not ready: shutting down/);
    // New connections are still served (both front threads: several tries), data and liveness alike.
    for (let i = 0; i < 6; i++) {
      expect((await getNew(s.url, '/api/v1/governments?q=springfield')).status).toBe(200);
      expect((await getNew(s.url, '/readyz')).status).toBe(503);
    }
    expect((await getNew(s.url, '/livez')).status).toBe(200);
    expect((await getNew(s.arrestsUrl, '/readyz')).status).toBe(503);
    // After the delay the port closes, and the process exits 0.
    expect(await exited).toBe(0);
    await expect(getNew(s.url, '/livez')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('a second signal during SHUTDOWN_DELAY_MS (Ctrl-C after SIGTERM) closes at once', async () => {
    // Two minutes of delay: past this test's time budget, so only the second signal can end it in time.
    const s = await startServer({ SHUTDOWN_DELAY_MS: '120000' });
    const exited = new Promise<number | null>((r) => s.proc.once('exit', (c) => r(c)));
    s.proc.kill('SIGTERM');
    let ready = await getNew(s.url, '/readyz');
    for (let t = 0; t < 50 && ready.status === 200; t++) ready = await getNew(s.url, '/readyz');
    expect(ready.status).toBe(503);
    s.proc.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});
