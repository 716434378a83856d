// gzip CSV pulls as the server sends them, with a client that costs almost
// nothing (issue 32's 2.5 M rows/s target for 4 clients): wrk pulling full
// 50,000-row CSV pages (one state's cities over every year, 16 states in
// turn) with the response cache off, so every pull computes, writes and
// codes its page, identity and gzip, 1 and 4 connections; the server's CPU
// a row; beside, in the same run, the uWS ceiling (bench/lib/hello.ts) for a
// body of a gzip page's size under the same wrk, and DuckDB's COPY of the
// same page's rows to CSV gzip. autocannon and the bench's Node client spend
// more CPU on a page than the server's deflate does (bench/results/first-byte.md
// measured the Node client's own ceiling at 1.75 M rows/s): wrk does not
// decode, so this measures the server.
//   node dist/bench/gzip-served.js [--data DIR] [--seconds 8]
// Written to bench/results/gzip-served.md.

import { appendFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startServer } from '../scripts/lib/server.js';
import { withHello } from './lib/ceiling.js';
import { cpuPerRequest, cpuSnapshot } from './lib/cpu.js';
import { duckCost } from './lib/duck.js';
import { wrkPath, wrkRate } from './lib/wrk.js';
import { arg } from './lib/args.js';

const data = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));
const seconds = Number(arg('seconds', '8'));
const PAGE = 50_000;
const STATES = ['CA', 'TX', 'NY', 'PA', 'IL', 'OH', 'MI', 'WI', 'MN', 'MO', 'IN', 'KS', 'IA', 'NE', 'FL', 'NJ'];
const f = (x: number): string => Math.round(x).toLocaleString('en-US');

if (wrkPath() === null) throw new Error('wrk is not installed (apt-get install wrk)');
const s = await startServer({ FINANCE_DATA: data, RATE_LIMIT: '0', RESPONSE_CACHE_MB: '0' }, 600_000);
const lines: string[] = [];
let gzBytes = 0, sql = '';
try {
  const health = ((await (await fetch(`${s.url}/api/v1/health`)).json()) as { data: { corpus: { years: number[] } }[] }).data[0]!;
  const years = [...health.corpus.years].sort((a, b) => a - b);
  const span = `${years[0]}-${years[years.length - 1]}`;
  // Full pages only: a state whose cities hold fewer rows than a page would make the rate a rate of short pages.
  const paths: string[] = [];
  for (const st of STATES) {
    const p = `/api/v1/spending?state=${st}&type=city&years=${span}&format=csv`;
    const r = await fetch(`${s.url}${p}`, { method: 'HEAD' });
    if (Number(r.headers.get('x-total-count')) >= PAGE) paths.push(p);
  }
  if (paths.length === 0) throw new Error('no state of this corpus fills a 50,000-row page');
  // Its coded size as sent (fetch would decode it): node:http, which does not.
  gzBytes = await new Promise<number>((resolve, reject) => {
    http.get(`${s.url}${paths[0]}`, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
      let n = 0;
      res.on('data', (b: Buffer) => { n += b.length; });
      res.on('end', () => (res.headers['content-encoding'] === 'gzip' ? resolve(n) : reject(new Error('the page came back uncoded'))));
    }).on('error', reject);
  });
  const flat = await (await fetch(`${s.url}${paths[0]!.replace('&format=csv', '&limit=1')}`)).json() as { provenance: { sql_query: string } };
  sql = flat.provenance.sql_query;
  lines.push(
    `## ${new Date().toISOString()}: ${path.basename(data)}, Node ${process.version}, ${os.availableParallelism()} cores, ${seconds} s a figure`, '',
    `${paths.length} full pages (one state's cities, ${span}, 50,000 rows), pulled in turn by wrk (one thread), response cache off: every pull computes, writes and codes its page. A gzip page is ${f(gzBytes)} bytes.`, '',
    '| coding | connections | pages/s | rows/s | server CPU a row (ns) |', '|---|---|---:|---:|---:|',
  );
  for (const enc of ['identity', 'gzip']) {
    for (const c of [1, 4]) {
      const c0 = cpuSnapshot(s.proc.pid!);
      const t0 = performance.now();
      const rps = wrkRate(s.url, paths, { connections: c, seconds, headers: { 'Accept-Encoding': enc } });
      const pages = rps * ((performance.now() - t0) / 1000);
      const cpu = cpuPerRequest(s.proc.pid!, c0, cpuSnapshot(s.proc.pid!), pages);
      lines.push(`| ${enc} | ${c} | ${rps.toFixed(1)} | ${f(rps * PAGE)} | ${f((1000 * (cpu.main + cpu.other)) / PAGE)} |`);
    }
  }
} finally {
  await s.stop();
}

// The uWS ceiling for a body of the gzip page's size, under the same wrk, 4 connections.
const rps = await withHello(gzBytes, (url) => wrkRate(url, ['/'], { connections: 4, seconds }));
lines.push('', `uWS ceiling in the same run (bench/lib/hello.ts, a fixed body of the gzip page's ${f(gzBytes)} bytes, wrk, 4 connections): ${f(rps)} bodies/s, ${f(rps * PAGE)} rows/s at a page's rows a body.`);

// DuckDB: the same page's rows (the query's provenance SQL, LIMIT 50000) by COPY to CSV gzip, warm.
const file = path.join(os.tmpdir(), `civicstream-gzip-served-${process.pid}.csv.gz`);
try {
  const cost = await duckCost(`COPY (${sql} LIMIT ${PAGE}) TO '${file}' (FORMAT csv, HEADER, COMPRESSION gzip)`, 3);
  lines.push('', `DuckDB in the same run (in this process, its default threads, over the same parquet): COPY of the first page's query, LIMIT ${f(PAGE)}, to CSV gzip: ${f(PAGE / (cost.wallMs / 1000))} rows/s (median of 3, warm), ${f(statSync(file).size)} bytes (its SQL's 5 columns; the page has 9). It answers the whole question before its LIMIT.`);
} finally {
  rmSync(file, { force: true });
}

const text = `${lines.join('\n')}\n\n`;
process.stdout.write(text);
appendFileSync(path.join(ROOT, 'bench/results/gzip-served.md'), text);
