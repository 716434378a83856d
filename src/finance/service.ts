// Boots the finance service: manifest -> catalog -> shared corpus -> pool ->
// the route table bound to its context. Any data fault stops here, before
// the server listens, with a message naming the file.

import { docsAssets } from '../server/docs-ui.js';
import type { Service } from '../server/http.js';
import type { Config } from '../config.js';
import { Pool } from '../pool.js';
import { Worker } from 'node:worker_threads';
import { LoadError } from '../corpus/parquet.js';
import type { Catalog } from './catalog.js';
import type { FinanceColumns } from './columns.js';
import type { FinanceCtx } from './context.js';
import type { LoadStats } from './corpus.js';
import { buildEngineCatalog } from './engine-catalog.js';
import { financeRoutes } from './routes.js';

export async function loadFinance(config: Config): Promise<FinanceCtx> {
  const dir = config.financeData;
  const { catalog, columns, stats } = await loadInWorker(dir);
  const engine = buildEngineCatalog(catalog);
  const pool = new Pool({ workers: config.workers, workerData: { finance: columns, financeCatalog: engine } });
  await pool.warm();
  const spans = await pool.run('codeYears', { nCodes: catalog.codes.length });
  const balanceWindows: Record<string, [number, number]> = {};
  catalog.codes.forEach((code, id) => {
    const cls = catalog.classes.get(code);
    if (cls?.category_type !== 'balance' || spans.max[id] === 0) return;
    const w = (balanceWindows[cls.subtype] ??= [spans.min[id]!, spans.max[id]!]);
    w[0] = Math.min(w[0], spans.min[id]!);
    w[1] = Math.max(w[1], spans.max[id]!);
  });

  const gYear = new Uint16Array(columns.gYear.buffer);
  const start = new Uint32Array(columns.govGroupStart.buffer), list = new Uint32Array(columns.govGroups.buffer);
  const govYears = catalog.governments.map((_, gid) => Array.from(list.subarray(start[gid]!, start[gid + 1]!), (g) => gYear[g]!));

  return {
    catalog, engine, columns, stats, pool, balanceWindows,
    mirrorUrl: config.mirrorUrl ?? dir,
    govNameLower: catalog.governments.map((g) => g.gov_name.toLowerCase()),
    govYears,
    recipeFlow: catalog.recipes.map((r) => {
      const flows = new Set(r.components.map((c) => catalog.classes.get(c.component_code)?.category_type).filter((f) => f !== undefined));
      return flows.size === 1 ? [...flows][0] : undefined;
    }),
    csvMemo: { govName: [] },
    routes: financeRoutes,
    startedAt: Date.now(),
    workers: config.workers,
  };
}

export function financeService(ctx: FinanceCtx, config: Config): Service<FinanceCtx> {
  return { name: 'finance', routes: ctx.routes, ctx, assets: docsAssets('civicstream finance'), accessLog: config.accessLog };
}

interface Loaded {
  catalog: Catalog;
  columns: FinanceColumns;
  stats: LoadStats;
}

function loadInWorker(dir: string): Promise<Loaded> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.js', import.meta.url), { workerData: { dir } });
    let settled = false;
    let reading = dir;
    const fault = (file: string, message: string): LoadError => Object.assign(new LoadError(file, ''), { message });
    worker.on('message', (m: { reading: string } | ({ ok: true } & Loaded) | { ok: false; file: string | null; message: string }) => {
      if ('reading' in m) { reading = m.reading; return; }
      settled = true;
      if (m.ok) resolve({ catalog: m.catalog, columns: m.columns, stats: m.stats });
      else reject(fault(m.file ?? reading, m.file !== null ? m.message : `${reading}: ${m.message}`));
    });
    // A trap inside the parquet decoder can escape as an uncaught worker error: blame the file being read.
    worker.once('error', (e) => { settled = true; reject(fault(reading, `${reading}: cannot be decoded (${e.message})`)); });
    worker.once('exit', (code) => { if (!settled) reject(new Error(`finance loader exited with code ${code}`)); });
  });
}
