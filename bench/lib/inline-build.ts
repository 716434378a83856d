// One build of the finance service loaded in this process, as a front thread runs it: every answer computed
// (no response cache, no rate limit), the small jobs run inline on this thread. The in-process benches
// (answer-cost, answer-alloc) load the build under test and, with --old, an older one beside it: each from
// its own root's dist/, so the two share no module.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { readConfig } from '../../src/config.js';
import type { FinanceCtx } from '../../src/finance/context.js';
import type { financeCtx, financeService, loadFinanceData } from '../../src/finance/http/service.js';
import type { inject } from '../../src/server/inject.js';

export interface InlineBuild {
  ctx: FinanceCtx;
  service: ReturnType<typeof financeService>;
  inject: typeof inject;
  /** A module of this build's dist/ (a path under it, such as src/server/envelope.js). */
  from: <T>(file: string) => Promise<T>;
}

/** The build at root (holding dist/) over the corpus at data. */
export async function inlineBuild(root: string, data: string): Promise<InlineBuild> {
  const from = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(root, 'dist', file)).href)) as T;
  const { readConfig: config } = await from<{ readConfig: typeof readConfig }>('src/config.js');
  const svc = await from<{ financeCtx: typeof financeCtx; financeService: typeof financeService; loadFinanceData: typeof loadFinanceData }>('src/finance/http/service.js');
  const c = config({ ...process.env, FINANCE_DATA: data, WORKERS: '1', RESPONSE_CACHE_MB: '0', RATE_LIMIT: '0', ACCESS_LOG: 'false' });
  const ctx = await svc.financeCtx(c, await svc.loadFinanceData(c), { inline: true });
  return { ctx, service: svc.financeService(ctx, c), inject: (await from<{ inject: typeof inject }>('src/server/inject.js')).inject, from };
}
