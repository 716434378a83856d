// Scale-out run for real (issue 20): two replicas of the built server behind
// nginx running deploy/nginx/ (rendered with loopback ports: test/helpers/
// nginx.ts). Through the proxy an answer is the replica's, byte for byte,
// and revalidates; a rolling restart (SIGTERM to one replica, then starting
// it again) under steady load costs no request; a SIGKILL costs at most the
// answers cut mid-body; each replica's metrics count exactly the requests
// nginx sent it. The figures are printed (bench/results/scale-out.md).
//
// Two lines are the test's own, added to the rendered files: a header naming
// the replica that answered ($upstream_addr, to attribute requests), and one
// location whose cached copy expires after 1 s instead of the server's hour,
// to see nginx revalidate it.

import http from 'node:http';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, renderNginx, startNginx, type Layout, type Nginx } from '../helpers/nginx.js';
import { heldReaders } from '../helpers/held-readers.js';
import { getOnce, startLoad, type Answer } from '../helpers/proxy-load.js';
import { MAIN, startServer, type Running } from '../helpers/server.js';

const GOV = '/api/v1/governments/062037161174';
const REVALIDATED = `${GOV}/revenue`;
const CSV = '/api/v1/spending?state=CA&type=city&years=2011-2020&format=csv';
// A 50,000-row page: megabytes, longer than any socket buffer holds.
const PULL = '/api/v1/spending?type=city&years=2011-2020&format=csv';
// Replicas as the deploy runs them: the proxy trusted for X-Forwarded-For, no rate limit between
// them and the load, a delay before the listener closes (SIGTERM: /readyz 503 at once).
const ENV = { TRUST_PROXY: '127.0.0.1', RATE_LIMIT: '0', SHUTDOWN_DELAY_MS: '2000', SHUTDOWN_GRACE_MS: '10000' };

const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-scale-'));
let layout: Layout;
const replicas: (Running | null)[] = [null, null];
let nginx: Nginx | null = null;
let proxy: { finance: string; arrests: string };
let govids: string[] = [];
let leaids: string[] = [];

const start = async (i: number, env: Record<string, string> = {}): Promise<Running> => {
  const p = layout.replicas[i]!;
  replicas[i] = await startServer({ ...ENV, ...env, FINANCE_PORT: String(p.finance), ARRESTS_PORT: String(p.arrests) }, 120_000, process.env.STRESS_MAIN ?? MAIN);
  return replicas[i]!;
};
/** Starts again a replica an earlier test signalled and left (one that failed half-way), so each test begins with both. */
const bothUp = (): Promise<unknown> => Promise.all(replicas.map(async (r, i) => {
  if (r !== null && !r.proc.killed && r.proc.exitCode === null) return;
  if (r !== null) await exited(r);
  await start(i);
}));
const exited = (r: Running): Promise<number | null> => new Promise((resolve) => {
  if (r.proc.exitCode !== null || r.proc.signalCode !== null) resolve(r.proc.exitCode);
  else r.proc.once('exit', (code) => resolve(code));
});
/** Which replica an answer came from: the last address nginx tried (-1: a cache hit). */
const replicaOf = (a: Answer): number => {
  const port = Number(a.upstream.split(', ').at(-1)?.split(':')[1]);
  return layout.replicas.findIndex((r) => r.finance === port || r.arrests === port);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Whether a connection to the port is accepted (the listener is open). */
const accepts = (port: number): Promise<boolean> => new Promise((resolve) => {
  const c = net.connect(port, '127.0.0.1', () => { c.destroy(); resolve(true); });
  c.on('error', () => resolve(false));
});

/** A replica's /metrics, which must be Prometheus text: the samples by series. */
async function scrape(base: string): Promise<Map<string, number>> {
  const got = await getOnce(base, '/metrics', false);
  expect([got.status, got.headers['content-type']]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
  const samples = new Map<string, number>();
  for (const line of got.body.toString('utf8').split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*(?:\{.*\})?)\s+(\S+)/.exec(line);
    if (m) samples.set(m[1]!, Number(m[2]));
  }
  return samples;
}

/** How far the request-duration histogram's counts moved between two scrapes (the scrapes themselves left out), and which series moved. */
function requestsCounted(before: Map<string, number>, after: Map<string, number>): { total: number; series: string[] } {
  const series: string[] = [];
  let total = 0;
  for (const [k, v] of after) {
    if (!k.startsWith('http_server_request_duration_seconds_count{') || /route="[^"]*metrics/.test(k)) continue;
    const d = v - (before.get(k) ?? 0);
    if (d > 0) { total += d; series.push(`${k.slice(k.indexOf('{'))} +${d}`); }
  }
  return { total, series };
}

beforeAll(async () => {
  const ports = await Promise.all(Array.from({ length: 6 }, freePort));
  layout = {
    replicas: [{ finance: ports[0]!, arrests: ports[1]! }, { finance: ports[2]!, arrests: ports[3]! }],
    listen: { finance: ports[4]!, arrests: ports[5]! },
    proxyExtra: 'add_header X-Test-Upstream $upstream_addr always;',
    financeExtra: `location = ${REVALIDATED} { proxy_pass http://civicstream_finance; include proxy.conf; proxy_ignore_headers Cache-Control; proxy_cache_valid 200 1s; }`,
  };
  await Promise.all([start(0), start(1)]);
  renderNginx(tmp, layout);
  nginx = await startNginx(tmp, layout);
  proxy = { finance: `http://127.0.0.1:${layout.listen.finance}`, arrests: `http://127.0.0.1:${layout.listen.arrests}` };
  const list = async (url: string): Promise<any[]> => (await (await fetch(url)).json() as { data: any[] }).data;
  for (let page = 0; page < 4; page++) govids.push(...(await list(`${replicas[0]!.url}/api/v1/governments?limit=1000&page=${page}`)).map((g) => g.canonical_govid as string));
  leaids = (await list(`${replicas[0]!.arrestsUrl}/api/v1/districts?limit=1000`)).map((d) => String(d.leaid));
});

afterAll(async () => {
  await nginx?.stop();
  await Promise.all(replicas.map((r) => r?.stop()));
  rmSync(tmp, { recursive: true, force: true });
});

const CLIENTS = 6;
/** Steady load: small JSON of both services and CSV pages, each URL new (so nginx's cache passes it to a replica). */
function load(): ReturnType<typeof startLoad> {
  let g = 0, d = 0, c = 0;
  const gov = (): string => { const k = g++; return `/api/v1/governments/${govids[k % govids.length]}/${['spending', 'revenue'][Math.floor(k / govids.length) % 2]}`; };
  const states = ['CA', 'TX', 'NY', 'PA', 'OH', 'IL', 'MI', 'WI', 'MN', 'MO', 'IN', 'NJ', 'FL', 'GA', 'WA', 'IA', 'KS', 'NE'];
  const csv = (): string => { const k = c++; return `/api/v1/${['spending', 'revenue'][k % 2]}?state=${states[k % states.length]}&type=${['city', 'township', 'county'][k % 3]}&years=2011-2020&format=csv&limit=${20_000 + Math.floor(k / 108)}`; };
  const est = (): string => { const k = d++; return `/api/v1/estimates/${leaids[k % leaids.length]}?interval=${[50, 80, 95][Math.floor(k / leaids.length) % 3]}`; };
  return startLoad([
    { base: proxy.finance, next: gov }, { base: proxy.finance, next: gov }, { base: proxy.finance, next: gov },
    { base: proxy.arrests, next: est },
    { base: proxy.finance, next: csv }, { base: proxy.finance, next: csv },
  ]);
}

describe('two replicas behind nginx (deploy/nginx)', () => {
  it('answers through the proxy are the replicas\' answers: JSON, a CSV page and gzip and br bytes as sent; a revalidation is a 304', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const both = async (p: string, h: Record<string, string> = {}, base = 'finance' as 'finance' | 'arrests') => {
      const direct = await getOnce(base === 'finance' ? replicas[0]!.url : replicas[0]!.arrestsUrl, p, agent, h);
      const via = await getOnce(proxy[base], p, agent, h);
      expect(via.status, p).toBe(200);
      expect(via.body.equals(direct.body), `${p} ${JSON.stringify(h)}: ${via.body.length} bytes through the proxy, ${direct.body.length} direct`).toBe(true);
      for (const k of ['content-type', 'content-encoding', 'etag', 'cache-control', 'vary', 'x-total-count', 'link']) expect(via.headers[k], `${p} ${k}`).toEqual(direct.headers[k]);
      return via;
    };
    const first = await both(GOV);
    expect(first.cache).toBe('MISS');
    expect((await both(GOV)).cache).toBe('HIT');
    await both(`/api/v1/estimates/${leaids[0]}`, {}, 'arrests');
    const page = await both(CSV);
    expect(page.csvRows).toBe(Number(page.headers['x-total-count']));
    // The server's own compression passes through (nginx: gzip off), and Vary keeps each variant apart in the cache.
    expect((await both(CSV, { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await both(CSV, { 'accept-encoding': 'br' })).headers['content-encoding']).toBe('br');
    const again = await both(CSV);
    expect([again.headers['content-encoding'], again.cache]).toEqual([undefined, 'HIT']);
    expect((await both(GOV, { 'accept-encoding': 'gzip' })).headers['content-encoding']).toBe('gzip');

    // A client's If-None-Match: 304, no body.
    const not = await getOnce(proxy.finance, GOV, agent, { 'if-none-match': String(first.headers.etag) });
    expect([not.status, not.bytes, not.headers.etag]).toEqual([304, 0, first.headers.etag]);
    // nginx's own revalidation (proxy_cache_revalidate): the test's location keeps a copy 1 s; past it nginx
    // asks the replica with the copy's ETag, gets a 304 (its access log) and serves the copy.
    const r1 = await getOnce(proxy.finance, REVALIDATED, agent);
    // nginx's clock has whole seconds: the copy is stale 1-2 s on. Asked until it is (hits reach no replica).
    let r2 = await getOnce(proxy.finance, REVALIDATED, agent);
    for (let i = 0; i < 50 && r2.cache === 'HIT'; i++) r2 = await sleep(100).then(() => getOnce(proxy.finance, REVALIDATED, agent));
    expect([r1.cache, r2.cache, r2.status]).toEqual(['MISS', 'REVALIDATED', 200]);
    expect(r2.body.equals(r1.body)).toBe(true);
    // nginx logs a request once it is done, which may be just after the client has the answer.
    const line = new RegExp(`"GET ${REVALIDATED} HTTP/1.1" 200 \\d+ cache=REVALIDATED upstream=127\\.0\\.0\\.1:\\d+ upstream_status=304 `);
    for (let i = 0; i < 100 && !line.test(nginx!.access()); i++) await sleep(20);
    expect(nginx!.access()).toMatch(line);
    agent.destroy();
  });

  it('/readyz on a replica turns 503 at once on SIGTERM while its port still answers, then the replica starts again', async () => {
    await bothUp();
    const r = replicas[1]!;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await getOnce(r.url, '/readyz', agent)).status).toBe(200);
    const gone = exited(r);
    r.proc.kill('SIGTERM');
    let ready = await getOnce(r.url, '/readyz', agent);
    for (let i = 0; i < 100 && ready.status === 200; i++) ready = await getOnce(r.url, '/readyz', agent);
    expect([ready.status, ready.headers['cache-control']]).toEqual([503, 'no-store']);
    expect(ready.body.toString()).toMatch(/\S.*\n$/);
    // Within SHUTDOWN_DELAY_MS the replica still serves, on a new connection too.
    const live = await getOnce(r.url, '/livez', false);
    expect([live.status, live.body.toString()]).toEqual([200, 'ok\n']);
    expect((await getOnce(r.url, GOV, false)).status).toBe(200);
    agent.destroy();
    expect(await gone).toBe(0);
    await start(1);
  });

  it('a rolling restart under steady load costs no request: SIGTERM to a replica, nginx moves to the other, the drained replica finishes its CSV pulls, and it comes back', async () => {
    await bothUp();
    const expectRows = (await getOnce(replicas[1]!.url, PULL, false)).csvRows;
    const l = load();
    const seen = new Set<number>();
    await l.until((a) => { seen.add(replicaOf(a)); return seen.has(0) && seen.has(1) && l.answers.length >= 200; });
    // A reader holding a CSV page on the replica itself (a 4 KB receive window: the server still has
    // megabytes to send when its listener closes), read to its end only after the close.
    const held = await heldReaders(layout.replicas[0]!.finance, PULL, 1);
    const r = replicas[0]!;
    const gone = exited(r);
    const tTerm = performance.now();
    r.proc.kill('SIGTERM');
    while (await accepts(layout.replicas[0]!.finance)) await sleep(50);
    const tClosed = performance.now();
    const [pulled] = await held.readAll();
    expect(await gone).toBe(0);
    const tExit = performance.now();
    await sleep(1000);
    // Down until here: the new process may serve finance before its start resolves (its arrests line comes last).
    const tRestart = performance.now();
    await start(0);
    const tBack = performance.now();
    await l.until((a) => replicaOf(a) === 0 && a.t0 > tBack);
    const n = l.answers.length;
    await l.until(() => l.answers.length >= n + 100);
    const all = await l.stop();

    const failed = all.filter((a) => !a.ok);
    const csvOnDrained = all.filter((a) => a.csvRows !== undefined && replicaOf(a) === 0 && a.t0 < tExit && a.t1 > tTerm);
    const atClose = csvOnDrained.filter((a) => a.t0 < tClosed && a.t1 > tClosed);
    const retried = all.filter((a) => a.upstream.includes(', '));
    const whileDown = all.filter((a) => a.t0 > tExit && a.t1 < tRestart);
    console.log(`rolling restart: ${all.length} requests through nginx (${CLIENTS} clients), ${failed.length} failed; ${retried.length} retried on the other replica; `
      + `CSV pulls answered by the drained replica after its SIGTERM: ${csvOnDrained.filter((a) => a.ok).length} of ${csvOnDrained.length} whole (${atClose.length} in flight at its listener's close); `
      + `a held CSV page on it: ${pulled?.rows} of ${expectRows} rows; SIGTERM to listener closed ${(tClosed - tTerm).toFixed(0)} ms, to exit ${(tExit - tTerm).toFixed(0)} ms; `
      + `${whileDown.length} answers in the second it was down, all from the other replica or the cache; started again ${(tBack - tRestart).toFixed(0)} ms`);
    expect(failed.map((a) => `${a.path}: ${a.why}`)).toEqual([]);
    expect(pulled).toEqual({ status: 200, rows: expectRows, ends_with_crlf: true });
    expect(whileDown.filter((a) => replicaOf(a) === 0)).toEqual([]);
    expect(whileDown.length).toBeGreaterThan(0);
  });

  it('each replica\'s metrics scrape directly, and its request counter moves by exactly the requests nginx sent it', async () => {
    await bothUp();
    const before = await Promise.all(replicas.map((r) => scrape(r!.url)));
    // Government pages no test asked for before, each a cache miss, so each reaches a replica: 6 clients at
    // once, so nginx holds several connections to each replica and they land on both of its front threads.
    const ids = govids.slice(2000, 2120);
    const sent = (await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const got: Answer[] = [];
      for (let k = c; k < ids.length; k += CLIENTS) got.push(await getOnce(proxy.finance, `/api/v1/governments/${ids[k]}`, agent));
      agent.destroy();
      return got;
    }))).flat();
    const after = await Promise.all(replicas.map((r) => scrape(r!.url)));
    expect(sent.filter((a) => !a.ok || a.cache !== 'MISS' || a.upstream.includes(', '))).toEqual([]);
    const routed = [0, 1].map((i) => sent.filter((a) => replicaOf(a) === i).length);
    const moved = [0, 1].map((i) => requestsCounted(before[i]!, after[i]!));
    console.log(`metrics: ${sent.length} requests through nginx, ${routed.join(' and ')} routed to the replicas; their counters moved by ${moved.map((m) => m.total).join(' and ')} (${moved.map((m) => m.series.join(', ')).join('; ')})`);
    expect(moved.map((m) => m.total)).toEqual(routed);
    // Labelled by route id, method and status class: never the raw path.
    for (const m of moved) for (const series of m.series) expect(series).not.toMatch(/\d{12}/);
    expect(moved[0]!.series.every((x) => /method="GET"/.test(x) && /status_class="2xx"/.test(x))).toBe(true);
  });

  it('SIGKILL to a replica under the same load costs at most the answers it was sending: nginx retries the rest, and nothing started after it fails', async () => {
    await bothUp();
    const l = load();
    const seen = new Set<number>();
    await l.until((a) => { seen.add(replicaOf(a)); return seen.has(0) && seen.has(1) && l.answers.length >= 200; });
    const r = replicas[1]!;
    const gone = exited(r);
    const tKill = performance.now();
    r.proc.kill('SIGKILL');
    await gone;
    const tDead = performance.now();
    const n = l.answers.length;
    await l.until(() => l.answers.length >= n + 300);
    await start(1);
    const tBack = performance.now();
    await l.until((a) => replicaOf(a) === 1 && a.t0 > tBack);
    const all = await l.stop();

    const failed = all.filter((a) => !a.ok);
    const spanning = all.filter((a) => a.t0 < tDead && a.t1 > tKill);
    const retried = all.filter((a) => a.upstream.includes(', '));
    console.log(`SIGKILL: ${all.length} requests through nginx (${CLIENTS} clients), ${failed.length} failed (${failed.map((a) => a.why).join('; ') || 'none'}); `
      + `${spanning.length} answers spanned the kill (signal to exit seen: ${(tDead - tKill).toFixed(0)} ms); ${retried.length} retried on the other replica; back after ${(tBack - tDead).toFixed(0)} ms`);
    // At most one a client: the answer it was reading when the replica died (nginx had begun sending it).
    expect(failed.length).toBeLessThanOrEqual(CLIENTS);
    expect(failed.filter((a) => a.t0 > tDead)).toEqual([]);
    expect(retried.length).toBeGreaterThan(0);
  });

  it('per-client rate limits through the proxy: nginx names the client in X-Forwarded-For, so one client past its limit gets 429s (not retried) while the next is served', async () => {
    // Both replicas again, with small limits; the clients come from two loopback addresses of their own.
    await Promise.all(replicas.map(async (r, i) => { await r!.stop(); await start(i, { RATE_LIMIT: '2', RATE_LIMIT_BURST: '5' }); }));
    const greedy = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.2' });
    const next = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.3' });
    const ids = govids.slice(3000);
    let k = 0, got = await getOnce(proxy.finance, `/api/v1/governments/${ids[k++]}`, greedy);
    for (; k < 100 && got.status === 200; k++) got = await getOnce(proxy.finance, `/api/v1/governments/${ids[k]}`, greedy);
    const other = await getOnce(proxy.finance, `/api/v1/governments/${ids[k]}`, next);
    greedy.destroy();
    next.destroy();
    console.log(`rate limits: the first client's ${k}th request (cache misses, both replicas at RATE_LIMIT=2, RATE_LIMIT_BURST=5) was a ${got.status}; the next client's first: ${other.status}`);
    expect([got.status, JSON.parse(got.body.toString()).meta.error_code]).toEqual([429, 'E_RATE_LIMITED']);
    expect(got.headers['retry-after']).toMatch(/^\d+$/);
    // nginx does not retry a 429 on the other replica (proxy_next_upstream leaves it out): each replica keeps its own buckets.
    expect(got.upstream).not.toContain(', ');
    // The policy passes; a client's remaining count is hidden (a cached copy would carry it to others).
    expect([other.status, other.headers['ratelimit-policy'], other.headers.ratelimit]).toEqual([200, expect.stringMatching(/q=5\b/), undefined]);
  });
});
