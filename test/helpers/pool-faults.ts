// A pool held by a hung job, for the tests of the answers a full pool and a spent time budget give
// (error-codes.test.ts, error-messages.test.ts): a server with one worker, no queue and a short budget.

import { get, type Got } from './http.js';
import type { Running } from './server.js';

/** Until the pool of a server has no job running or waiting (a cancelled job is gone within a second). */
export async function poolIdle(s: Running): Promise<void> {
  for (let t = 0; t < 50; t++) {
    if ((await get('/api/v1/health', undefined, s.url)).body.data[0].pool_jobs === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the pool did not go idle');
}

/**
 * One worker, no queue, a short budget: a job that hangs holds the only place in the pool, so
 * the next job is refused (E_BUSY), and the hanging request runs past its budget (E_TIMEOUT).
 */
export async function busyThenTimeout(s: Running): Promise<{ busy: Got; timeout: Got }> {
  await poolIdle(s);
  const hung = get('/__faults__/worker?kind=hang', undefined, s.url);
  for (let t = 0; t < 40 && (await get('/api/v1/health', undefined, s.url)).body.data[0].pool_jobs < 1; t++) await new Promise((r) => setTimeout(r, 25));
  const busy = await get('/api/v1/spending?type=city&years=2011-2020', undefined, s.url);
  const timeout = await hung;
  await poolIdle(s);
  return { busy, timeout };
}
