// The CSV row-count memo under 20,000 distinct long queries (issue 23,
// finding 5): /spending with 600 govids, format=csv, limit=1, each query a
// different set of ids. Before, the memo kept 10,000 entries keyed by the
// whole query as JSON (tens of KB each): RSS 442 -> 928 MB. Keyed by a
// 27-character digest, 10,000 entries are about 1.5 MB.

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, startServer, type Running } from '../helpers/server.js';

const QUERIES = 20_000;
const IDS = 600;
const MB = 1024 * 1024;

let s: Running;
beforeAll(async () => { s = await startServer({ FRONT_THREADS: '1', WORKERS: '2', RESPONSE_CACHE_MB: '0' }, 60_000, process.env.STRESS_MAIN ?? MAIN); });
afterAll(async () => { await s?.stop(); });

type Health = { memory: { rss_bytes: number } };
const rss = async (): Promise<number> => ((await (await fetch(`${s.url}/api/v1/health`)).json()) as { data: Health[] }).data[0]!.memory.rss_bytes;

describe('the CSV row-count memo', () => {
  it(`stays small under ${QUERIES.toLocaleString('en-US')} distinct ${IDS}-id queries`, async () => {
    const govs = ((await (await fetch(`${s.url}/api/v1/governments?limit=1000&page=0`)).json()) as { data: { canonical_govid: string }[] }).data.map((g) => g.canonical_govid);
    expect(govs.length).toBeGreaterThanOrEqual(IDS + 100);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const get = (url: string): Promise<number> => new Promise((resolve, reject) => {
      http.get(url, { agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); }).on('error', reject);
    });
    // Query k: a window of 600 ids starting at k mod 100, rotated by k / 100: 20,000 distinct id lists.
    const url = (k: number): string => {
      const start = k % 100, shift = Math.floor(k / 100) % IDS;
      const ids = govs.slice(start, start + IDS);
      return `${s.url}/api/v1/spending?govid=${[...ids.slice(shift), ...ids.slice(0, shift)].join(',')}&format=csv&limit=1`;
    };
    for (let k = 0; k < 200; k++) await get(url(QUERIES + k));
    const before = await rss();
    let next = 0;
    const statuses: Record<number, number> = {};
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < QUERIES) {
        const st = await get(url(next++));
        statuses[st] = (statuses[st] ?? 0) + 1;
      }
    }));
    agent.destroy();
    // The least of a few samples a moment apart: the garbage of 20,000 requests is collected at V8's pace, not the test's.
    let after = Infinity;
    for (let i = 0; i < 5; i++) { after = Math.min(after, await rss()); await new Promise((r) => setTimeout(r, 400)); }
    console.log(`memo: ${QUERIES} distinct ${IDS}-id CSV queries ${JSON.stringify(statuses)}; RSS ${Math.round(before / MB)} -> ${Math.round(after / MB)} MB`);
    expect(statuses[200]).toBeGreaterThan(QUERIES * 0.9);
    // The memo is at most about 1.5 MB; the rest is the heap of 20,000 requests not yet collected: +55 to +176 MB in runs of
    // 2026-11-27 (one clean-clone run passed 160 MB, as did the code before that session's changes), against +486 MB with the
    // memo keyed by the whole query (442 -> 928 MB). The bound is half of that: it still fails that memo, not V8's pace.
    expect(after - before).toBeLessThan(240 * MB);
  });
});
