// What a Prometheus scrape costs (issue 20: under 5 ms, never holding a
// request up). Starts the server with two front threads, sends every example
// call of both services (so every route has its series) plus errors and HEADs,
// then times /metrics alone and under load, and the load's p99 with and
// without a scraper hitting it ten times a second.
//
//   npm run bench:metrics [-- --data .data/finance-46m] [--seconds 10]

import path from 'node:path';
import { load } from './lib/load.js';
import { median, pct } from './lib/timing.js';
import { ROOT, startServer } from '../scripts/lib/server.js';
import { arg } from './lib/args.js';

const data = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));
const seconds = Number(arg('seconds', '10'));

async function scrapeTimes(url: string, n: number, everyMs: number): Promise<{ ms: number[]; bytes: number; series: number }> {
  const ms: number[] = [];
  let text = '';
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    text = await (await fetch(`${url}/metrics`)).text();
    ms.push(performance.now() - t0);
    if (everyMs > 0) await new Promise((r) => setTimeout(r, everyMs));
  }
  return { ms, bytes: Buffer.byteLength(text), series: text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length };
}

const s = await startServer({ FINANCE_DATA: data, FRONT_THREADS: '2', WORKERS: '2', RESPONSE_CACHE_MB: '0' }, 1_800_000);
try {
  for (const base of [s.url, s.arrestsUrl]) {
    const examples = ((await (await fetch(`${base}/api/v1/examples`)).json()) as { data: { path: string }[] }).data;
    for (const e of examples) {
      for (const method of ['GET', 'HEAD']) await (await fetch(`${base}${e.path}`, { method })).arrayBuffer();
    }
    for (const bad of ['/nope', '/api/v1/governments?limit=99999']) await (await fetch(`${base}${bad}`)).arrayBuffer();
  }
  const idle = await scrapeTimes(s.url, 200, 0);
  const govs = ((await (await fetch(`${s.url}/api/v1/governments?limit=1000`)).json()) as { data: { canonical_govid: string }[] }).data.map((g) => g.canonical_govid);
  let k = 0;
  const path1 = (): string => `/api/v1/governments/${govs[(k++ * 7919) % govs.length]}/spending?category=Police`;
  await load(s.url, path1, { connections: 32, seconds: 3 });
  const plain = await load(s.url, path1, { connections: 32, seconds });
  const scraping = scrapeTimes(s.url, seconds * 10, 100);
  const scraped = await load(s.url, path1, { connections: 32, seconds });
  const during = await scraping;
  // The server's own time for the scrapes (arrival to last byte), from its histogram: the round trips above
  // include this bench's event loop, which autocannon keeps busy.
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const line = (name: string, le?: string): number => Number(new RegExp(`^${name}\\{${le === undefined ? '' : `le="${le}",`}route="metrics",method="GET",status_class="2xx"\\} (\\S+)$`, 'm').exec(text)?.[1]);
  const served = { count: line('http_server_request_duration_seconds_count'), sum: line('http_server_request_duration_seconds_sum'), under5: line('http_server_request_duration_seconds_bucket', '0.005'), under10: line('http_server_request_duration_seconds_bucket', '0.01') };
  const lines = [
    `## /metrics (${new Date().toISOString().slice(0, 10)}, ${path.relative(ROOT, data) || data}, FRONT_THREADS=2, WORKERS=2)`,
    '',
    `Exposition: ${idle.series} sample lines, ${(idle.bytes / 1024).toFixed(1)} KB (every route of the finance API has answered GET and HEAD).`,
    '',
    '| | median ms | p99 ms |',
    '|---|---|---|',
    `| a scrape, server idle (200 in a row, round trip) | ${median(idle.ms).toFixed(2)} | ${pct(idle.ms, 0.99).toFixed(2)} |`,
    `| a scrape every 100 ms under scenario 1 (32 connections) | ${median(during.ms).toFixed(2)} | ${pct(during.ms, 0.99).toFixed(2)} |`,
    `| the server's time per scrape (its own histogram, all ${served.count} scrapes) | mean ${((served.sum / served.count) * 1000).toFixed(2)} | ${((served.under5 / served.count) * 100).toFixed(1)}% under 5 ms, ${((served.under10 / served.count) * 100).toFixed(1)}% under 10 ms |`,
    '',
    `Scenario 1 (one government's spending JSON, 32 connections, ${seconds} s): ${plain.requestsPerSec.toFixed(0)} req/s, p99 ${plain.p99} ms without a scraper; ${scraped.requestsPerSec.toFixed(0)} req/s, p99 ${scraped.p99} ms with one (${((scraped.requestsPerSec / plain.requestsPerSec) * 100).toFixed(1)}%).`,
  ];
  console.log(lines.join('\n'));
} finally {
  await s.stop();
}
