// Issue 32's delivery figures, old build against new in the same run, written to bench/results/first-byte.md:
//   1. a never-seen 50,000-row CSV page: when its headers, its first body byte and its last byte arrive
//      (median and p90), each query pulled once from each build in turn (old, new, old, new ...);
//   2. one client pulling never-seen pages back to back: rows/s;
//   3. four clients, never-seen pages, identity and gzip: rows/s;
// beside DuckDB writing the same 50,000 rows as CSV (COPY, warm) and the uWebSockets.js ceiling: a
// server sending a fixed body of the page's size, pulled by the same client, 1 and 4 at a time.
//   node dist/bench/first-byte.js [--data <corpus dir>] [--old <other build's dist/src/main.js>] [--pulls 40] [--seconds 8]
// Without --data the fixture (fixtures/finance/v6) is used. Run with the machine otherwise quiet.

import { appendFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { query } from '../scripts/lib/duckdb.js';
import { ROOT, startServer, type Running } from '../scripts/lib/server.js';
import { withHello } from './lib/ceiling.js';
import { median, pct } from './lib/timing.js';
import { arg } from './lib/args.js';

const dataDir = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));
const oldMain = arg('old', '');
const pulls = Number(arg('pulls', '40'));
const seconds = Number(arg('seconds', '8'));
const PAGE = 50_000;

const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

interface Timed { headersMs: number; firstByteMs: number; lastMs: number; rows: number; bytes: number }

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
/** One pull, timed from the request to its headers, its first body byte and its end; rows counted in identity CSV. */
function pull(base: string, p: string, headers: Record<string, string> = {}): Promise<Timed> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    http.get({ host: hostname, port: Number(port), path: p, agent, headers }, (res) => {
      const headersMs = performance.now() - t0;
      if (res.statusCode !== 200) { res.resume(); reject(new Error(`${p}: HTTP ${res.statusCode}`)); return; }
      const coded = res.headers['content-encoding'] !== undefined;
      let firstByteMs = -1, lines = 0, bytes = 0;
      res.on('data', (b: Buffer) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - t0;
        bytes += b.length;
        if (!coded) for (let k = b.indexOf(10); k !== -1; k = b.indexOf(10, k + 1)) lines++;
      });
      res.on('end', () => {
        const total = Number(res.headers['x-total-count']), limit = Number(res.headers['x-limit']), page = Number(res.headers['x-page'] ?? 0);
        const rows = coded ? Math.max(0, Math.min(limit, total - page * limit)) : lines - 1;
        resolve({ headersMs, firstByteMs, lastMs: performance.now() - t0, rows, bytes });
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * Never-seen full pages: the flat route by type (the fixture) or by state's cities (a full-scale corpus) over
 * spans of years, each also with settings that change neither the rows' count nor their number (adjust, identity,
 * per_capita), so each is a query the server has not counted or cached.
 */
async function freshQueries(s: Running, years: number[], need: number): Promise<string[]> {
  const bases: string[] = [];
  const spans: string[] = [];
  for (let a = 0; a < years.length; a++) for (let b = years.length - 1; b >= a; b--) spans.push(years[a] === years[b] ? `${years[a]}` : `${years[a]}-${years[b]}`);
  const states: string[] = (await getJson(`${s.url}/api/v1/governments?type=state&limit=100`)).data.map((r: any) => r.state);
  for (const span of spans) {
    for (const route of ['spending', 'revenue']) {
      // A state's cities first (a full-scale corpus has full pages of them, as bench:bulk pulls), the nation's after (the fixture's).
      for (const sel of [...states.map((st) => `state=${st}&type=city`), 'type=city', 'type=county']) {
        for (const basis of ['', '&basis=raw']) bases.push(`/api/v1/${route}?${sel}&years=${span}&format=csv&limit=${PAGE}${basis}`);
      }
    }
  }
  // A setting that changes neither which rows, how many, nor their columns (dollars of another base year): each
  // is a query of its own, and its page is as wide as the nominal one.
  const variants = ['', ...years.map((y) => `&adjust=real&base_year=${y}`)];
  const out: string[] = [];
  // A throwaway server counts the bases once (HEAD), so only full pages are pulled; the servers measured never see them.
  for (const b of bases) {
    if (out.length >= need) break;
    const h = await fetch(`${s.url}${b}`, { method: 'HEAD' });
    if (Number(h.headers.get('x-total-count')) < PAGE) continue;
    for (const v of variants) out.push(`${b}${v}`);
  }
  return out.slice(0, need);
}

/** Pulls as fast as `clients` clients can for the run's seconds, each path once, rows per second. */
async function rate(base: string, clients: number, next: () => string | undefined, headers: Record<string, string> = {}): Promise<{ rowsPerSec: number; pulls: number; short: number }> {
  let rows = 0, n = 0, short = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() - t0 < seconds * 1000) {
      const p = next();
      if (p === undefined) return;
      const got = await pull(base, p, headers);
      // Every query pulled holds a full page: fewer rows would be a partial answer, counted and shown.
      if (got.rows < PAGE) { short++; console.error(`short pull: ${got.rows} rows, ${got.bytes} bytes, ${p}`); }
      rows += got.rows; n++;
    }
  }));
  return { rowsPerSec: rows / ((performance.now() - t0) / 1000), pulls: n, short };
}

/** The uWS ceiling: hello.js sending a fixed body of `bytes`, pulled whole by 1 and by 4 clients; bytes/s. */
function ceiling(bytes: number): Promise<{ one: number; four: number; firstByteMs: number }> {
  return withHello(bytes, async (base) => {
    const byteRate = async (clients: number): Promise<number> => {
      let got = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: clients }, async () => {
        // Awaited, then added: `got += await ...` reads got before the await and loses the other clients' bytes.
        while (performance.now() - t0 < seconds * 1000) { const b = (await pull(base, '/')).bytes; got += b; }
      }));
      return got / ((performance.now() - t0) / 1000);
    };
    const firsts: number[] = [];
    for (let i = 0; i < 20; i++) firsts.push((await pull(base, '/')).firstByteMs);
    return { one: await byteRate(1), four: await byteRate(4), firstByteMs: median(firsts) };
  });
}

function builds(): [string, string | undefined][] {
  return [['new', undefined], ...(oldMain !== '' ? [['old', path.resolve(oldMain)] as [string, string]] : [])];
}

const env = { FINANCE_DATA: dataDir, WORKERS: String(os.cpus().length), RESPONSE_CACHE_MB: '0', RATE_LIMIT: '0' };
const scout = await startServer(env, 1_800_000);
const years: number[] = (await getJson(`${scout.url}/api/v1/health`)).data[0].corpus.years;
// Enough for the timed pulls, the 1-client run and two 4-client runs, per build, at 3 M rows/s.
const fresh = await freshQueries(scout, years, pulls + builds().length * 3 * Math.ceil((3e6 * seconds) / PAGE));
const sample = fresh[0]!;
const sql = (await getJson(`${scout.url}${sample.replace('format=csv', 'format=json').replace(`limit=${PAGE}`, 'limit=1')}`)).provenance.sql_query as string;
await scout.stop();

const buildList = builds();
const servers = new Map<string, Running>();
for (const [label, main] of buildList) servers.set(label, await startServer(env, 1_800_000, main));
const lines: string[] = [];
try {
  // 1. Timed first pulls, the buildList in turn on the same query.
  const timed = new Map<string, Timed[]>(buildList.map(([l]) => [l, []]));
  for (let i = 0; i < Math.min(pulls, fresh.length); i++) {
    for (const [label] of i % 2 === 0 ? buildList : [...buildList].reverse()) timed.get(label)!.push(await pull(servers.get(label)!.url, fresh[i]!));
  }
  // 2, 3. Rates over the queries left: each build gets its own share, never one the other pulled.
  const left = fresh.slice(pulls);
  const shares = new Map(buildList.map(([l], b) => [l, left.filter((_, k) => k % buildList.length === b)]));
  const rates = new Map<string, { one: number; four: number; fourGzip: number; pulls: number; short: number }>();
  for (const [label] of buildList) {
    // A third of the build's share for each run, so a short supply (the fixture's) ends each run early, never one empty.
    const qs = shares.get(label)!;
    const third = (t: number): () => string | undefined => {
      const part = qs.filter((_, k) => k % 3 === t);
      let k = 0;
      return () => part[k++];
    };
    const base = servers.get(label)!.url;
    const one = await rate(base, 1, third(0));
    const four = await rate(base, 4, third(1));
    const fourGzip = await rate(base, 4, third(2), { 'Accept-Encoding': 'gzip' });
    rates.set(label, { one: one.rowsPerSec, four: four.rowsPerSec, fourGzip: fourGzip.rowsPerSec, pulls: one.pulls + four.pulls + fourGzip.pulls, short: one.short + four.short + fourGzip.short });
  }
  for (const s of servers.values()) await s.stop();
  servers.clear();

  // DuckDB writing the same 50,000 rows as CSV, warm.
  const out = path.join(os.tmpdir(), `civicstream-first-byte-${process.pid}.csv`);
  const copy = `COPY (${sql} LIMIT ${PAGE}) TO '${out}' (FORMAT csv, HEADER)`;
  await query(copy);
  const duckMs: number[] = [];
  for (let i = 0; i < 7; i++) { const t0 = performance.now(); await query(copy); duckMs.push(performance.now() - t0); }
  rmSync(out, { force: true });
  const duckRowsPerSec = PAGE / (median(duckMs) / 1000);

  const newTimed = timed.get('new')!;
  const pageBytes = median(newTimed.map((t) => t.bytes));
  const bytesPerRow = pageBytes / PAGE;
  const hello = await ceiling(Math.round(pageBytes));

  const f = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  lines.push(`\n## ${new Date().toISOString().slice(0, 10)}: ${path.basename(dataDir)}, Node ${process.version}, ${os.cpus().length} cores, ${Math.min(pulls, fresh.length)} never-seen pages each, ${seconds} s a rate run, response cache off, RATE_LIMIT=0\n`);
  lines.push(`Queries like \`${sample}\`; each page ${f(pageBytes / 1e6, 2)} MB, ${f(bytesPerRow, 1)} bytes a row.\n`);
  lines.push('| build | headers, median ms | first body byte, median ms | first body byte, p90 ms | last byte, median ms | 1 client rows/s | 4 clients rows/s | 4 clients gzip rows/s | pulls in the rate runs (short) |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const [label] of buildList) {
    const t = timed.get(label)!, r = rates.get(label)!;
    lines.push(`| ${label} | ${f(median(t.map((x) => x.headersMs)), 1)} | ${f(median(t.map((x) => x.firstByteMs)), 1)} | ${f(pct(t.map((x) => x.firstByteMs), 0.9), 1)} | ${f(median(t.map((x) => x.lastMs)), 1)} | ${f(r.one)} | ${f(r.four)} | ${f(r.fourGzip)} | ${r.pulls} (${r.short}) |`);
  }
  lines.push(`| DuckDB COPY of the same 50,000 rows to CSV (warm, in-process) | | | | ${f(median(duckMs), 1)} | ${f(duckRowsPerSec)} | | | |`);
  lines.push(`| uWS ceiling: a fixed body of the page's size, same client | | ${f(hello.firstByteMs, 1)} | | | ${f(hello.one / bytesPerRow)} | ${f(hello.four / bytesPerRow)} | | |`);
  const text = lines.join('\n');
  console.log(text);
  appendFileSync(path.join(ROOT, 'bench/results/first-byte.md'), `${text}\n`);
} finally {
  for (const s of servers.values()) await s.stop();
  agent.destroy();
}
