// CSV pages written by a worker into a shared page slot, which the stream
// holds to its end: a server with one slot answers byte for byte what the
// default server answers, refuses a pull that finds its slot held with a 503
// and Retry-After (never a page held outside the slots), and every slot comes
// back: after complete pulls, HEAD requests, pulls cut off by the request
// time budget, and dropped clients.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropAfter, get } from './helpers/http.js';
import { startServer, type Running } from './helpers/server.js';

const S = '/api/v1/spending', R = '/api/v1/revenue';
const QUERIES = [
  `${S}?type=city&years=2011-2020&format=csv`,
  `${S}?type=city&years=2011-2020&format=csv&page=1&per_capita=true&adjust=real`,
  `${S}?state=TX&type=county&years=2011-2020&category=Police,Corrections&complete=true&limit=700&format=csv`,
  `${S}?state=CA&type=city&years=2011,2019,2020&complete=true&subtype=capital&limit=900&page=1&format=csv`,
  `${R}?state=TX&type=county&years=2011,2020&revenue_concept=total&per_capita=true&limit=500&format=csv`,
  `${S}?type=township&years=2019-2020&basis=raw&limit=1000&format=csv`,
];

let one: Running, hurried: Running;
const health = async (s: Running) => (await get('/api/v1/health', undefined, s.url)).body.data[0];
/** The server's slots once every lease is back (or after 20 s: a busy machine returns them late): total and free. */
async function slotsBack(s: Running): Promise<{ total: number; free: number }> {
  let h = await health(s);
  for (let i = 0; i < 200 && h.csv_page_slots.free < h.csv_page_slots.total; i++) {
    await new Promise((r) => setTimeout(r, 100));
    h = await health(s);
  }
  return { total: h.csv_page_slots.total, free: h.csv_page_slots.free };
}

// One front thread each, so /health counts every page of the test (each front thread has its own slots).
beforeAll(async () => {
  [one, hurried] = await Promise.all([
    startServer({ CSV_PAGE_SLOTS: '1', FRONT_THREADS: '1' }),
    startServer({ CSV_PAGE_SLOTS: '2', REQUEST_TIMEOUT_MS: '15', FRONT_THREADS: '1' }),
  ]);
}, 60_000);
afterAll(async () => { await Promise.all([one?.stop(), hurried?.stop()]); });

describe('CSV page slots', () => {
  it('one slot: the same bytes and totals as the default server; a pull that finds the slot held is a 503 with Retry-After, and its retry the same bytes', async () => {
    let refusals = 0;
    for (const q of QUERIES) {
      const want = await get(q);
      expect(want.status, q).toBe(200);
      // Twice: the first pull counts the query, the second knows its total and stops at its page.
      for (let round = 0; round < 2; round++) {
        const got = await Promise.all([0, 1, 2, 3].map(() => get(q, undefined, one.url)));
        for (const g of got) {
          if (g.status === 503) {
            refusals++;
            expect(g.headers.get('retry-after'), q).toBe('1');
            expect(g.body.meta.error_code, q).toBe('E_BUSY');
            continue;
          }
          expect(g.status, q).toBe(200);
          expect(g.headers.get('x-total-count'), q).toBe(want.headers.get('x-total-count'));
          expect(g.text === want.text, `${q} round ${round}`).toBe(true);
        }
        // A retry once the slot is back gets the page.
        expect(await slotsBack(one)).toEqual({ total: 1, free: 1 });
        const retry = await get(q, undefined, one.url);
        expect(retry.status, q).toBe(200);
        expect(retry.text === want.text, `${q} retry`).toBe(true);
      }
    }
    // Four pulls at once on one slot: some were refused, and /health counts every refusal.
    expect(refusals).toBeGreaterThan(0);
    const counts = (await health(one)).csv_page_slots;
    expect(counts.pages_in_slots).toBeGreaterThan(0);
    expect(counts.pulls_refused).toBe(refusals);
  }, 60_000);

  it('HEAD answers a pull\'s headers without a body and gives its slot back', async () => {
    const got = await get(QUERIES[0]!, { method: 'HEAD' }, one.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(Number(got.headers.get('x-total-count'))).toBeGreaterThan(50_000);
    expect(got.text).toBe('');
    expect(await slotsBack(one)).toEqual({ total: 1, free: 1 });
  });

  it('pulls cut off by the time budget (504) or by their client give every slot back, and the server still answers', async () => {
    const statuses = await Promise.all(Array.from({ length: 12 }, (_, i) => get(QUERIES[i % QUERIES.length]!, undefined, hurried.url).then((g) => g.status)));
    expect(statuses.every((s) => s === 200 || s === 503 || s === 504), statuses.join(' ')).toBe(true);
    expect(statuses).toContain(504);
    await Promise.all(Array.from({ length: 24 }, (_, i) => dropAfter(one.port, QUERIES[i % QUERIES.length]!, [0, 1, 3, 10][i % 4]!)));
    expect(await slotsBack(hurried)).toEqual({ total: 2, free: 2 });
    expect(await slotsBack(one)).toEqual({ total: 1, free: 1 });
    const again = await get(QUERIES[0]!, undefined, one.url);
    expect(again.status).toBe(200);
    expect(again.text.split('\r\n').length).toBe(50_002);
  }, 60_000);
});
