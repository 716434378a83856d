// Boots the finance service: manifest -> catalog -> shared corpus -> pool ->
// the route table bound to its context. Any data fault stops here, before
// the server listens, with a message naming the file.

import { rateGate } from '../../server/rate-stage.js';
import os from 'node:os';
import { docsAssets } from '../../server/docs-ui.js';
import { exploreAssets } from '../../server/explore.js';
import type { Service } from '../../server/http.js';
import { ResponseCache } from '../../server/response-cache.js';
import type { Config } from '../../config.js';
import { Pool } from '../../pool.js';
import { PageArena } from '../../bytes/page-arena.js';
import { Worker, threadId as thisThread } from 'node:worker_threads';
import { jobTable } from '../../../workers/jobs.js';
import { LoadError } from '../../corpus/load-error.js';
import type { Catalog } from '../catalog.js';
import type { FinanceColumns, LaidOutColumns } from '../columns.js';
import { buildKeyStarts, keyCount, keyStride, unmappedCandidates } from '../key-starts.js';
import type { FinanceCtx } from '../context.js';
import { allocRows, assemble, statsOf, type PartitionGroups, type PartitionJob } from '../corpus-layout.js';
import { readLoadCache, writeLoadCache } from '../load-cache.js';
import { NO_CODE } from '../columns.js';
import { buildEngineCatalog } from '../engine-catalog.js';
import { attachCountIndex, buildCountIndex, type CountIndexData } from '../count-index.js';
import { newTextMemo, tableNames } from '../table-ctx.js';
import { longFilesSql } from '../sql.js';
import { collectGarbage, sharedBytes, type SharedColumn } from '../../corpus/shared.js';
import { financeRoutes } from './routes.js';
import { withFaultHook } from './fault-route.js';
import { VERSION } from '../../version.js';

/**
 * A CSV page slot: a 50,000-row page is 4-6 MB, 8-9 MB with every per-capita
 * and real column. CSV_PAGE_SLOTS of them (12: 120 MB of address space,
 * resident only once written).
 */
const PAGE_SLOT_BYTES = 10 * 1024 * 1024;

/** The loaded corpus: catalog, shared columns and load figures (what front threads receive; see src/front.ts). */
export interface FinanceData {
  catalog: Catalog;
  columns: FinanceColumns;
  stats: FinanceCtx['stats'];
  /** Built once here, in shared memory like the columns, so every front thread reads the same counts. */
  countIndex: CountIndexData;
}

export async function loadFinance(config: Config): Promise<FinanceCtx> {
  return financeCtx(config, await loadFinanceData(config));
}

/** Manifest -> catalog -> the shared corpus (from the load cache when it matches, else from parquet). */
export async function loadFinanceData(config: Config): Promise<FinanceData> {
  const dir = config.financeData;
  const t0 = performance.now();
  const catalog = await runLoader<Catalog>(dir, { job: 'catalog', dir });
  const cached = await readLoadCache(catalog);
  const { columns: laidOut, loaders } = cached ? { columns: cached, loaders: 0 } : await loadColumns(catalog, config.workers);
  // The year-major columns the layout replaced are garbage now: free them before the server reports its memory.
  if (!cached) collectGarbage();
  const engine = buildEngineCatalog(catalog);
  const nKeys = keyCount(engine.categories.length);
  const keyStart = buildKeyStarts(laidOut, engine.codeKey, nKeys, unmappedCandidates(engine));
  const columns: FinanceColumns = { ...laidOut, keyStart, keyStride: keyStride(nKeys) };
  const countIndex = buildCountIndex(catalog, engine, columns);
  const stats = statsOf(columns, performance.now() - t0, loaders);
  // The index is shared memory too: the figure the server reports at start counts it.
  const countIndexBytes = sharedBytes(Object.values(countIndex).filter((v): v is SharedColumn => typeof v === 'object'));
  return { catalog, columns, stats: { ...stats, sharedBytes: stats.sharedBytes + countIndexBytes, countIndexBytes }, countIndex };
}

/**
 * The service's context over loaded data: the engine catalog, a pool of
 * config.workers and its page slots. With inline (a front thread), this
 * thread runs the small jobs itself rather than post them to the pool.
 */
export async function financeCtx(config: Config, data: FinanceData, o: { inline?: boolean } = {}): Promise<FinanceCtx> {
  const { columns, stats } = data;
  // The catalog came by structured clone (from the loader thread, and to a front thread), which makes
  // arrays holey; JSON.stringify walks a holey array on its slow path, and the published years are
  // the default years list that every answer's provenance carries.
  const years: number[] = [];
  // Pushed one by one: a spread or a map of a holey array copies its holey kind.
  for (const y of data.catalog.years) years.push(y);
  const catalog: Catalog = { ...data.catalog, years };
  const dir = config.financeData;
  const engine = buildEngineCatalog(catalog);
  // The arena frees a slot whose writer's job was aborted once that worker thread has stopped.
  const pages: PageArena = new PageArena(config.csvPageSlots, PAGE_SLOT_BYTES, (threadId): Promise<void> => pool.threadGone(threadId));
  const inline = o.inline ? jobTable({ finance: columns, financeCatalog: engine }, thisThread) : undefined;
  const pool: Pool = new Pool({
    workers: config.workers, maxQueue: config.poolQueue, workerData: { finance: columns, financeCatalog: engine, financeNames: tableNames(catalog), financePages: pages.slots },
    ...(inline ? { inline: { money: inline.money, governmentYears: inline.governmentYears } } : {}),
  });
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
    catalog, engine, columns, stats, pool, pages, balanceWindows,
    mirrorUrl: config.mirrorUrl ?? dir,
    govNameLower: catalog.governments.map((g) => g.gov_name.toLowerCase()),
    govYears,
    recipeFlow: catalog.recipes.map((r) => {
      const flows = new Set(r.components.map((c) => catalog.classes.get(c.component_code)?.category_type).filter((f) => f !== undefined));
      return flows.size === 1 ? [...flows][0] : undefined;
    }),
    textMemo: newTextMemo(engine, catalog.governments.length, catalog.codes.length, catalog.recipes.length),
    cohorts: new Map(),
    counts: new Map(),
    countIndex: attachCountIndex(data.countIndex, engine, columns),
    breaks: indexBreaks(catalog),
    longFilesSql: longFilesSql({ mirrorUrl: config.mirrorUrl ?? dir }, catalog.manifest.partitions),
    routes: withFaultHook(financeRoutes, config.testFaults),
    startedAt: Date.now(),
    workers: config.workers,
    frontThreads: config.frontThreads,
  };
}

export function financeService(ctx: FinanceCtx, config: Config): Service<FinanceCtx> {
  return { name: 'finance', routes: ctx.routes, ctx, assets: new Map([...docsAssets('civicstream finance'), ...exploreAssets('finance')]), accessLog: config.accessLog, cache: config.responseCacheMb > 0 ? new ResponseCache(config.responseCacheMb * 1024 * 1024) : undefined,
    etagSeed: `${VERSION}|${ctx.catalog.manifest.digest}|${ctx.mirrorUrl}`,
    timeoutMs: config.requestTimeoutMs,
    // A bulk page served from the cache holds a page slot (unwritten) for its life, as a computed page does.
    admitStream: () => { const lease = ctx.pages.acquire(); return lease === null ? null : () => ctx.pages.release(lease); },
    rate: rateGate('finance', config, 'the bulk files (/api/v1/bulk) are the cheaper way to a whole table'),
    ops: {
      notReady: () => (ctx.pool.liveWorkers > 0 ? null : 'no live worker in the pool'),
      sample: () => ({
        poolWaiting: ctx.pool.waiting, poolJobs: ctx.pool.load, poolWorkers: ctx.pool.liveWorkers, poolCapacity: ctx.pool.maxJobs,
        jobsInline: ctx.pool.inlineJobs, jobsPool: ctx.pool.poolJobs, workerBusySeconds: ctx.pool.busySeconds,
        slotsInUse: ctx.pages.total - ctx.pages.available, slotsTotal: ctx.pages.total,
      }),
      info: () => ({ rows: ctx.stats.rows, build: { service: 'finance', version: VERSION, manifest_digest: ctx.catalog.manifest.digest, schema_version: String(ctx.catalog.manifest.schemaVersion) } }),
    },
  };
}

function indexBreaks(catalog: Catalog): FinanceCtx['breaks'] {
  const byCode = new Map<string, { id: string; year: number }[]>();
  const corpus: { id: string; year: number }[] = [];
  for (const b of catalog.tables.series_breaks ?? []) {
    const entry = { id: String(b.break_id), year: Number(b.break_year) };
    if (b.fin_code === 'ALL') corpus.push(entry);
    else (byCode.get(String(b.fin_code)) ?? byCode.set(String(b.fin_code), []).get(String(b.fin_code))!).push(entry);
  }
  return { byCode, corpus };
}

/** Loads the long partitions on parallel loader threads, each writing its partitions at their offsets. */
async function loadColumns(catalog: Catalog, workers: number): Promise<{ columns: LaidOutColumns; loaders: number }> {
  const { rows, bases, nRows } = allocRows(catalog);
  const codesAtSeed = catalog.codes.length;
  // The categories of the seeded codes, for the in-group row order (codes found later have none).
  const seedEngine = buildEngineCatalog(catalog);
  const parts = catalog.manifest.partitions.map((p, i) => ({ ...p, base: bases[i]! }));
  // Start-up has the machine to itself: decode on every core, whatever the pool's size.
  const k = Math.max(1, Math.min(Math.max(workers, os.availableParallelism()), parts.length));
  // Largest partitions first, each to the least loaded thread.
  const shares: (typeof parts)[] = Array.from({ length: k }, () => []);
  const load = new Array<number>(k).fill(0);
  for (const p of [...parts].sort((a, b) => b.rowCount - a.rowCount)) {
    const t = load.indexOf(Math.min(...load));
    shares[t]!.push(p);
    load[t]! += p.rowCount;
  }
  const results = await Promise.all(shares.map(async (share, t) => {
    const extraBase = NO_CODE - 1 - (t + 1) * 512;
    const job: PartitionJob = {
      dir: catalog.dir, parts: share, longColumns: catalog.rules.longColumns, harmonized: catalog.rules.harmonized,
      govIds: catalog.governments.map((g) => g.canonical_govid), codes: catalog.codes, extraBase, columns: rows,
      codeKey: seedEngine.codeKey, nKeys: seedEngine.categories.length + 2,
    };
    const r = await runLoader<{ groups: PartitionGroups[]; extraCodes: string[] }>(catalog.dir, { job: 'partitions', partitions: job });
    return { ...r, extraBase };
  }));
  const columns = assemble(catalog, rows, nRows, results);
  writeLoadCache(catalog, columns, codesAtSeed);
  return { columns, loaders: k };
}

/** Runs one loader thread; a fault, even one that escapes the decoder as a worker error, names the file being read. */
function runLoader<T>(dir: string, workerData: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../load-worker.js', import.meta.url), { workerData });
    let settled = false;
    let reading = dir;
    const fault = (file: string, message: string): LoadError => Object.assign(new LoadError(file, ''), { message });
    worker.on('message', (m: { reading: string } | { ok: true; result: T } | { ok: false; file: string | null; message: string }) => {
      if ('reading' in m) { reading = m.reading; return; }
      settled = true;
      if (m.ok) resolve(m.result);
      else reject(fault(m.file ?? reading, m.file !== null ? m.message : `${reading}: ${m.message}`));
    });
    // A trap inside the parquet decoder can escape as an uncaught worker error: blame the file being read.
    worker.once('error', (e) => { settled = true; reject(fault(reading, `${reading}: cannot be decoded (${e.message})`)); });
    worker.once('exit', (code) => { if (!settled) reject(new Error(`finance loader exited with code ${code}`)); });
  });
}
