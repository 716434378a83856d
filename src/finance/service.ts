// Boots the finance service: manifest -> catalog -> shared corpus -> pool ->
// the route table bound to its context. Any data fault stops here, before
// the server listens, with a message naming the file.

import { docsAssets } from '../server/docs-ui.js';
import type { Service } from '../server/http.js';
import type { Config } from '../config.js';
import { Pool } from '../pool.js';
import { loadCatalog } from './catalog.js';
import type { FinanceCtx } from './context.js';
import { loadFinanceColumns } from './corpus.js';
import { readManifest } from './manifest.js';
import { financeRoutes } from './routes.js';

export async function loadFinance(config: Config): Promise<FinanceCtx> {
  const dir = config.financeData;
  const manifest = await readManifest(dir);
  const catalog = await loadCatalog(dir, manifest);
  const { columns, stats } = await loadFinanceColumns(catalog);
  const pool = new Pool({ workers: config.workers, workerData: { finance: columns } });
  await pool.warm();

  const gYear = new Uint16Array(columns.gYear.buffer);
  const start = new Uint32Array(columns.govGroupStart.buffer), list = new Uint32Array(columns.govGroups.buffer);
  const govYears = catalog.governments.map((_, gid) => Array.from(list.subarray(start[gid]!, start[gid + 1]!), (g) => gYear[g]!));

  return {
    catalog, columns, stats, pool,
    mirrorUrl: config.mirrorUrl ?? dir,
    govNameLower: catalog.governments.map((g) => g.gov_name.toLowerCase()),
    govYears,
    routes: financeRoutes,
    startedAt: Date.now(),
    workers: config.workers,
  };
}

export function financeService(ctx: FinanceCtx, config: Config): Service<FinanceCtx> {
  return { name: 'finance', routes: ctx.routes, ctx, assets: docsAssets('civicstream finance'), accessLog: config.accessLog };
}
