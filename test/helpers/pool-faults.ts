// A pool held by a hung job, for the tests of the answers a full pool and a spent time budget give
// (error-codes.test.ts, error-messages.test.ts): a server with one worker, no queue and a budget of a few seconds.

import { get, type Got } from './http.js';
import type { Running } from './server.js';

/** Until the pool of a server has no job running or waiting (a cancelled job is gone within a second). */
export async function poolIdle(s: Running): Promise<void> {
  // Up to 20 s: the pool's new worker, after a hung one is ended, starts late on a machine busy with other files.
  const end = performance.now() + 20_000;
  do {
    if (await poolJobs(s) === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  } while (performance.now() < end);
  throw new Error('the pool did not go idle');
}

const poolJobs = async (s: Running): Promise<number> => (await get('/api/v1/health', undefined, s.url)).body.data[0].pool_jobs as number;

/**
 * One worker, no queue, a budget of seconds: a job that hangs holds the only place in the pool, so
 * the next job is refused (E_BUSY), and the hanging request runs past its budget (E_TIMEOUT).
 */
export async function busyThenTimeout(s: Running): Promise<{ busy: Got; timeout: Got }> {
  await poolIdle(s);
  const hung = get('/__faults__/worker?kind=hang', undefined, s.url);
  // The hung job must hold the pool before the next is asked (up to 4 s: the servers' budgets are 6 s).
  const end = performance.now() + 4_000;
  while (await poolJobs(s) < 1) {
    if (performance.now() > end) throw new Error('the hung job never reached the pool');
    await new Promise((r) => setTimeout(r, 25));
  }
  const busy = await get('/api/v1/spending?type=city&years=2011-2020', undefined, s.url);
  const timeout = await hung;
  await poolIdle(s);
  return { busy, timeout };
}
