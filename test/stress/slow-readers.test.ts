// 1,500 slow bulk readers (issue 23, finding 4): each on a socket with a 2 KB
// receive buffer, reading a 50,000-row CSV page at 64 KB/s and, on a 503,
// coming back after its Retry-After. Before, every reader got a stream (200-
// 440 open at once), each page without a slot was held as rows on the thread
// serving it, and RSS went 464 MB -> 2.4 GB and stayed past 2.1 GB after
// they left. Now each stream holds one of CSV_PAGE_SLOTS shared slots to its
// end and the rest are refused at once, so the memory of the streams is the
// slots': the bound below is stated in the README's Reliability section.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, startServer, type Running } from '../helpers/server.js';

const PULL = '/api/v1/spending?type=city&years=2011-2020&format=csv';
const READERS = 1500;
const SECONDS = 60;
const SLOTS = 12;
const MB = 1024 * 1024;
/** What the streams may add to RSS: their slots (10 MB each, resident once written) and 100 MB for sockets, 503s and heaps. */
const BOUND = SLOTS * 10 * MB + 100 * MB;

let s: Running;
type Health = { memory: { rss_bytes: number }; open_streams: number; csv_page_slots: { total: number; free: number; pulls_refused: number } };
const health = async (): Promise<Health> => ((await (await fetch(`${s.url}/api/v1/health`)).json()) as { data: Health[] }).data[0]!;

// One front thread, so /health counts every stream (each front thread counts its own); the default slots.
// STRESS_MAIN runs another build's server (an old checkout's dist/src/main.js), to see it fail.
beforeAll(async () => { s = await startServer({ FRONT_THREADS: '1', WORKERS: '2', CSV_PAGE_SLOTS: String(SLOTS) }, 60_000, process.env.STRESS_MAIN ?? MAIN); });
afterAll(async () => { await s?.stop(); });

describe('1,500 slow CSV readers', () => {
  it('open at most CSV_PAGE_SLOTS streams, refuse the rest with 503 and Retry-After, stay within the memory bound, and give it back', async () => {
    // Warm up: the workers' heaps and the slots at their working size, as after a day of bulk pulls.
    for (let i = 0; i < 3; i++) await Promise.all(Array.from({ length: SLOTS }, async () => (await fetch(`${s.url}${PULL}`)).arrayBuffer()));
    // Then a short crowd of the same readers (10 s), gone before the base is read: the base is then the working size
    // this crowd brings the server to, and "given back" below means the 60-s crowd left no more than a 10-s one did.
    // With pages streamed as written (issue 32) the pulls above no longer bring it there: the base after them was
    // 383-412 MB, and the crowd raised it to the 516-545 MB that the code before streaming stood at already after
    // the pulls (558 MB base, 520 MB after its crowd), which this check, comparing with the pulls' base, took for memory kept.
    const short = spawn('python3', [fileURLToPath(new URL('../../scripts/lib/crowd.py', import.meta.url)), '127.0.0.1', String(s.port), PULL, String(READERS), String(64 * 1024), '10', '2048'], { stdio: ['ignore', 'ignore', 'inherit'] });
    await new Promise<void>((resolve) => short.once('exit', () => resolve()));
    for (let i = 0; i < 100; i++) {
      const h = await health();
      if (h.open_streams === 0 && h.csv_page_slots.free === SLOTS) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 3000));
    const base = await health();

    const crowd = spawn('python3', [fileURLToPath(new URL('../../scripts/lib/crowd.py', import.meta.url)), '127.0.0.1', String(s.port), PULL, String(READERS), String(64 * 1024), String(SECONDS), '2048'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    crowd.stdout!.on('data', (d) => { out += d; });
    const exited = new Promise<void>((resolve) => crowd.once('exit', () => resolve()));

    let peakRss = 0, peakStreams = 0, samples = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < (SECONDS - 2) * 1000) {
      await new Promise((r) => setTimeout(r, 1000));
      const h = await health();
      peakRss = Math.max(peakRss, h.memory.rss_bytes);
      peakStreams = Math.max(peakStreams, h.open_streams);
      samples++;
    }
    await exited;
    const stats = JSON.parse(out.trim().split('\n').pop()!) as { status: Record<string, number>; complete: number };

    // Every reader gone: the slots come back and the memory returns.
    let after = await health();
    for (let i = 0; i < 100 && (after.open_streams > 0 || after.csv_page_slots.free < SLOTS); i++) {
      await new Promise((r) => setTimeout(r, 200));
      after = await health();
    }
    // The least RSS over the next 5 s, each second's printed: a reading of one moment could fall before the
    // memory freed is returned to the system.
    const trail: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const h = await health();
      trail.push(Math.round(h.memory.rss_bytes / MB));
      if (h.memory.rss_bytes < after.memory.rss_bytes || i === 0) after = h;
    }
    console.log(`RSS each second after: ${trail.join(', ')} MB`);
    console.log(`slow readers: ${READERS} for ${SECONDS} s, ${samples} samples; answers ${JSON.stringify(stats.status)}, ${stats.complete} pages read whole; streams at most ${peakStreams}; RSS ${Math.round(base.memory.rss_bytes / MB)} MB -> peak ${Math.round(peakRss / MB)} MB (bound +${BOUND / MB} MB) -> ${Math.round(after.memory.rss_bytes / MB)} MB after; pulls refused ${after.csv_page_slots.pulls_refused}`);

    expect(peakStreams).toBeLessThanOrEqual(SLOTS);
    expect(peakStreams).toBeGreaterThan(0);
    expect(stats.status['503'] ?? 0).toBeGreaterThan(READERS);
    expect(stats.status['200'] ?? 0).toBeGreaterThan(0);
    expect(Object.keys(stats.status).sort()).toEqual(['200', '503']);
    expect(peakRss - base.memory.rss_bytes).toBeLessThan(BOUND);
    expect(after.open_streams).toBe(0);
    expect(after.csv_page_slots.free).toBe(SLOTS);
    // Within 35% of the baseline once they left. The same code ends this crowd in one of two states: RSS back
    // below the base (392-422 MB from bases of 435-494, flat for 15 s after) or at about the crowd's peak
    // (563 MB from 461 in a CI run, 573 from 494 here: 1.16-1.22x); both are bounded, and the code before the
    // slots, which kept what the streams took, stood at 1,885 MB after from 428 (4.4x).
    expect(after.memory.rss_bytes).toBeLessThan(base.memory.rss_bytes * 1.35);
  });
});
