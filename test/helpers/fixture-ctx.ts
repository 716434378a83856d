// The finance context over the bundled fixture, in-process with one worker,
// for tests that call the engine and the table writers directly; and the
// service over it, for tests that call what the HTTP layer builds (a bulk
// table's job arguments).

import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { readConfig } from '../../dist/src/config.js';
import { financeService, loadFinance } from '../../dist/src/finance/http/service.js';
import { ROOT } from './server.js';

export type FixtureCtx = Awaited<ReturnType<typeof loadFinance>>;

const fixtureConfig = (workers: number): ReturnType<typeof readConfig> =>
  readConfig({ ...process.env, FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v6'), WORKERS: String(workers) });

export const loadFixtureCtx = (workers = 1): Promise<FixtureCtx> => loadFinance(fixtureConfig(workers));

/** Loads the context before the file's tests and closes its pool after them; call the getter inside a test. */
export function useFixtureCtx(workers = 1): () => FixtureCtx {
  let ctx: FixtureCtx | undefined;
  beforeAll(async () => { ctx = await loadFixtureCtx(workers); }, 60_000);
  afterAll(async () => { await ctx?.pool.close(); });
  return () => ctx!;
}

export type FixtureService = ReturnType<typeof financeService>;

/** The context and the finance service over it (no response cache, no time budget, no access log), loaded before the file's tests. */
export function useFixtureService(workers = 1): { ctx: () => FixtureCtx; service: () => FixtureService } {
  let ctx: FixtureCtx | undefined, service: FixtureService | undefined;
  beforeAll(async () => {
    const config = fixtureConfig(workers);
    ctx = await loadFinance(config);
    service = { ...financeService(ctx, config), cache: undefined, timeoutMs: undefined, accessLog: false };
  }, 60_000);
  afterAll(async () => { await ctx?.pool.close(); });
  return { ctx: () => ctx!, service: () => service! };
}
