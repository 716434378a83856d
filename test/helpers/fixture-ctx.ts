// The finance context over the bundled fixture, in-process with one worker,
// for tests that call the engine and the table writers directly.

import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { readConfig } from '../../dist/src/config.js';
import { loadFinance } from '../../dist/src/finance/service.js';
import { ROOT } from './server.js';

export type FixtureCtx = Awaited<ReturnType<typeof loadFinance>>;

export const loadFixtureCtx = (): Promise<FixtureCtx> =>
  loadFinance(readConfig({ ...process.env, FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v6'), WORKERS: '1' }));

/** Loads the context before the file's tests and closes its pool after them; call the getter inside a test. */
export function useFixtureCtx(): () => FixtureCtx {
  let ctx: FixtureCtx | undefined;
  beforeAll(async () => { ctx = await loadFixtureCtx(); }, 60_000);
  afterAll(async () => { await ctx?.pool.close(); });
  return () => ctx!;
}
