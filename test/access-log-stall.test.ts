// A stalled stdout (a collector that stopped reading) must neither hold the
// server up nor grow its memory (issue 23, finding 8). The server is started
// with its access log on and its stdout a pipe this test stops reading; the
// pipe fills after a few hundred lines. Node writes a pipe on stdout
// synchronously on Linux, so before the fix the main thread (the school
// service) blocked on the first full write, and the front threads queued
// lines in memory without bound.

import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from './helpers/server.js';

// Two servers: the usual non-blocking stdout, and the asynchronous writes used where stdout cannot be
// reopened non-blocking (a pipe owned by another user, as in a container run as another user).
const MODES = ['nonblocking', 'async'] as const;
const servers = new Map<string, Running>();
beforeAll(async () => {
  for (const mode of MODES) servers.set(mode, await startServer({ ACCESS_LOG: 'true', ...(mode === 'async' ? { CIVICSTREAM_LOG_SINK: 'async' } : {}) }));
}, 60_000);
afterAll(async () => {
  agent.destroy();
  for (const s of servers.values()) { s.proc.stdout?.resume(); await s.stop(); }
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const get = (url: string): Promise<number> => new Promise((resolve, reject) => {
  http.get(url, { agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); }).on('error', reject);
});

/** n requests, 16 at a time; resolves with how many were 200, or rejects past the deadline. */
async function burst(url: string, n: number, deadlineMs: number): Promise<number> {
  let next = 0, ok = 0;
  const work = Promise.all(Array.from({ length: 16 }, async () => {
    while (next < n) { next++; if ((await get(url)) === 200) ok++; }
  }));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_r, reject) => { timer = setTimeout(() => reject(new Error(`${url}: ${next} of ${n} sent, ${ok} answered in ${deadlineMs} ms`)), deadlineMs); });
  try { await Promise.race([work, late]); } finally { clearTimeout(timer); }
  return ok;
}

type Health = { data: { memory: { rss_bytes: number }; access_log: { dropped_lines: number; buffered_bytes: number; buffer_bytes: number } }[] };

describe('access log on a stalled stdout', () => {
  it.each(MODES)('%s: keeps answering both services, holds at most its buffer, and counts the lines it drops', async (mode) => {
    const s = servers.get(mode)!;
    const before = ((await (await fetch(`${s.url}/api/v1/health`)).json()) as Health).data[0]!;
    s.proc.stdout!.pause();
    // Well past the pipe (64 KB) and the buffer of each thread (1 MB, about 4,000 lines).
    for (let round = 0; round < 3; round++) {
      // (A deadline, not a speed: with other test files beside it a burst took up to a few seconds.)
      expect(await burst(`${s.arrestsUrl}/api/v1/`, 5000, 45_000)).toBe(5000);
      expect(await burst(`${s.url}/api/v1/categories`, 5000, 45_000)).toBe(5000);
    }
    const after = ((await (await fetch(`${s.url}/api/v1/health`)).json()) as Health).data[0]!;
    expect(after.access_log.dropped_lines).toBeGreaterThan(0);
    expect(after.access_log.buffered_bytes).toBeLessThanOrEqual(after.access_log.buffer_bytes);
    // Three threads may each hold their buffer; the rest is noise of 30,000 requests.
    expect(after.memory.rss_bytes - before.memory.rss_bytes).toBeLessThan(200 * 1024 * 1024);

    // Reading again, the lines that come out are whole JSON lines: the threads' writes never interleave.
    let text = '';
    s.proc.stdout!.on('data', (d) => { text += d; });
    s.proc.stdout!.resume();
    await burst(`${s.arrestsUrl}/api/v1/`, 200, 45_000);
    // Whole lines only (the backlog may still be coming out): up to 10 s for more than 100 of them.
    const whole = (): string[] => text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter((l) => l !== '');
    await expect.poll(() => whole().length, { timeout: 10_000, interval: 20 }).toBeGreaterThan(100);
    const lines = whole();
    for (const l of lines) expect(() => JSON.parse(l), l.slice(0, 120)).not.toThrow();
  }, 300_000);
});
