// Building one year of one table into its two bulk files, on a build thread
// (issue 32; src/finance/build-threads.ts: threads of their own at the
// lowest priority, not the serving pool's workers). The thread computes the
// rows the flat route's CSV pages hold
// (/<table>?type=<each type>&years=<year>&format=csv: the same plan, every
// type of government in turn) slice by slice and writes each slice both
// ways itself: its CSV bytes through gzip into the .csv.gz (one header line)
// and its columns, typed as `export --format parquet` types the route's row
// fields (parquet-pages.ts columnOf), as an Arrow batch into the .parquet
// (workers/finance/bulk-table.ts). Before issue 32 this thread walked the
// pages itself and parsed each back to write Parquet; test/bulk-build.test.ts
// keeps that walk as the reference the files must equal. Both files are
// written under temp names and renamed to their content-hashed names only
// once whole; a failure or a drain removes them.

import { rmSync } from 'node:fs';
import path from 'node:path';
import { columnsOf } from './parquet-pages.js';
import { isDraining } from '../../server/lifecycle.js';
import type { Service } from '../../server/service.js';
import { GOV_TYPES } from '../catalog.js';
import { cohortOf } from '../cohort.js';
import type { FinanceCtx } from '../context.js';
import type { BuildThreads } from '../build-threads.js';
import type { BulkTableArgs } from '../bulk-job.js';
import { sealFile, type BulkFile, type BulkTable } from '../bulk-store.js';
import { tableOptions, type MoneyRoute } from '../money-table.js';
import { corpusBasis, planOf } from '../plan-of.js';

export const ROUTES: Record<BulkTable, string> = { spending: '/api/v1/spending', revenue: '/api/v1/revenue' };

/** The flat routes' money routes (flat-routes.ts flatSpending, flatRevenue): test/bulk-build.test.ts holds the two to the same rows. */
const MONEY_ROUTES: Record<BulkTable, MoneyRoute> = {
  spending: { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false },
  revenue: { verb: 'revenue', flows: ['revenue'], subtypeField: 'revenue_subtype', withFlow: false },
};

/** Rows a slice of the job aims at: a page's worth, about 50-100 ms of a worker, so its Arrow batch and CSV bytes stay a few MB. */
export const SLICE_ROWS = 50_000;

/** Thrown when the server starts draining: a build in progress is dropped, its temp files removed. */
export class BuildStopped extends Error {}

export interface BuildOptions {
  /** Progress on stderr under this label (the CLI). */
  label?: string;
  /** Build threads, each building a table at once: one a core when absent (build-threads.ts defaultBuildThreads). */
  threads?: number;
  /** Parquet compression and gzip level (the benches); zstd and 6 when absent. */
  codec?: 'zstd' | 'snappy';
  gzipLevel?: number;
}

/** The job's arguments for a year of a table: the flat query's plan with its defaults, each type's governments, the route's column types. */
export function bulkTableArgs(service: Service<FinanceCtx>, year: number, table: BulkTable, files: { csvGz: string; parquet: string }, o: BuildOptions = {}): BulkTableArgs {
  const ctx = service.ctx;
  const route = MONEY_ROUTES[table];
  // The flat handler's plan of /<table>?type=..&years=<year> with every other parameter at its default.
  const plan = planOf(ctx, route, { gids: [], years: [year], params: { basis: corpusBasis(ctx), limit: SLICE_ROWS, page: 0 } });
  const fields = service.routes.find((r) => r.path === ROUTES[table])!.rowFields ?? [];
  return {
    plan, route, table: tableOptions({}), selections: GOV_TYPES.map((_, typeNo) => cohortOf(ctx, undefined, typeNo)), columns: columnsOf(fields),
    // gzip 6, as before issue 32. On the fixture's spending 2020 CSV (7.9 MB; best of 5 on a busy machine) level 6
    // wrote 907 KB at 54 MB/s, level 4 1,043 KB at 131 MB/s, level 1 1,181 KB at 228 MB/s: a lead should bench:bulk-build miss 2 minutes.
    ...files, sliceRows: SLICE_ROWS, gzipLevel: o.gzipLevel ?? 6, ...(o.codec !== undefined ? { codec: o.codec } : {}),
  };
}

/** Builds the .csv.gz and the .parquet of one year of one table in dir, on one of the build's threads; what the index says of each. */
export async function buildTable(service: Service<FinanceCtx>, threads: BuildThreads, dir: string, year: number, table: BulkTable, o: BuildOptions = {}): Promise<BulkFile[]> {
  if (isDraining()) throw new BuildStopped('the server is shutting down');
  const base = path.join(dir, `.${table}-${year}`);
  const files = { csvGz: `${base}.csv.gz.${process.pid}.tmp`, parquet: `${base}.parquet.${process.pid}.tmp` };
  // A drain stops the job (its thread is ended) rather than wait for it.
  const stop = new AbortController();
  const watch = setInterval(() => { if (isDraining()) stop.abort(); }, 100);
  watch.unref();
  const t0 = performance.now();
  try {
    const r = await threads.bulkTable(bulkTableArgs(service, year, table, files, o), stop.signal);
    if (o.label !== undefined) process.stderr.write(`${o.label} ${table} ${year}: ${r.rows.toLocaleString('en-US')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const common = { year, table, rows: r.rows };
    return [await sealFile(dir, files.parquet, { ...common, format: 'parquet' }), await sealFile(dir, files.csvGz, { ...common, format: 'csv.gz' })];
  } catch (err) {
    rmSync(files.csvGz, { force: true });
    rmSync(files.parquet, { force: true });
    throw stop.signal.aborted ? new BuildStopped('the server is shutting down') : err;
  } finally {
    clearInterval(watch);
  }
}
