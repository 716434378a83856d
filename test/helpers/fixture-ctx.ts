// The finance context over the bundled fixture, in-process with one worker,
// for tests that call the engine and the table writers directly.

import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { readConfig } from '../../dist/src/config.js';
import { loadFinance } from '../../dist/src/finance/http/service.js';
import { ROOT } from './server.js';

export type FixtureCtx = Awaited<ReturnType<typeof loadFinance>>;

export const loadFixtureCtx = (workers = 1): Promise<FixtureCtx> =>
  loadFinance(readConfig({ ...process.env, FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v6'), WORKERS: String(workers) }));

/** Loads the context before the file's tests and closes its pool after them; call the getter inside a test. */
export function useFixtureCtx(workers = 1): () => FixtureCtx {
  let ctx: FixtureCtx | undefined;
  beforeAll(async () => { ctx = await loadFixtureCtx(workers); }, 60_000);
  afterAll(async () => { await ctx?.pool.close(); });
  return () => ctx!;
}
