// The bulk files' life in the server, once it listens: one thread (the main
// thread, or front thread 0) finds a set to serve or builds one, and every
// other front thread mirrors what it has through a BroadcastChannel. The set
// served is a prebuilt one beside the mirror (<FINANCE_DATA>/bulk/) when its
// index names this manifest and every file matches its sha256; else the
// server's cache set for this manifest, whose files already built are checked
// and kept, and the rest built on the pool (bulk-build.ts), newest year
// first, a (year, table) a job. The other front threads take part with their
// own workers (bulk-work.ts), so every worker of the process builds a table
// at once; each table starts only once no job waits for that thread's pool
// and a worker is free (or after a second), so a build takes the pool's idle
// turns and never starves requests.

import { mkdirSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import type { Config } from '../../config.js';
import type { Service } from '../../server/service.js';
import type { FinanceCtx } from '../context.js';
import { BuildStopped, type BuildOptions } from './bulk-build.js';
import { bulkOf, type BulkSet, type BulkState } from '../bulk-set.js';
import { cacheDirs, checkFile, prebuiltDir, privateDir, readIndex, removeOtherSets, removeStaleTemps, untrustedDir, writeIndex, type BulkFile } from '../bulk-store.js';
import { log, newWork, takePart, type BulkWork, type Done, type Helpers } from './bulk-work.js';
import { financeService } from './service.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Starts the bulk files of this thread's service: the building thread checks or builds them, the others follow it and build with it. */
export function startBulkFiles(ctx: FinanceCtx, config: Config): void {
  const set = bulkOf(ctx);
  const channel = new BroadcastChannel(`civicstream-bulk:${set.digest}`);
  // The channel alone must not keep a thread (or the process) alive.
  channel.unref();
  const service = (): Service<FinanceCtx> => ({ ...financeService(ctx, config), cache: undefined, timeoutMs: undefined, accessLog: false });
  // A thread that sends its small jobs to the pool (FRONT_THREADS=1) keeps a worker out of the build for them:
  // a table holds its worker for seconds at full scale, and they would wait behind it.
  const options: BuildOptions = { beforeTable: () => idlePool(ctx), ...(ctx.frontThreads === 1 && ctx.workers > 1 ? { builders: ctx.workers - 1 } : {}) };
  if (!config.bulkOwner) {
    const joined = new Set<string>();
    channel.onmessage = (m: unknown) => {
      const d = (m as { data: { state?: BulkState; work?: BulkWork } }).data;
      if (d.state) set.apply(d.state);
      const work = d.work;
      if (work === undefined || joined.has(work.id)) return;
      joined.add(work.id);
      takePart(service(), work, options, (i, files) => channel.postMessage({ result: { id: work.id, i, files } })).catch((err: unknown) => {
        if (!(err instanceof BuildStopped)) log('warn', { error: err instanceof Error ? err.message : String(err) });
      });
    };
    channel.postMessage({ ask: true });
    return;
  }
  const post = (): void => channel.postMessage({ state: set.state() });
  let offered: { work: BulkWork; onResult: Done } | null = null;
  channel.onmessage = (m: unknown) => {
    const d = (m as { data: { ask?: boolean; result?: { id: string; i: number; files: BulkFile[] | null } } }).data;
    // A thread that asks late still takes part in a build under way.
    if (d.ask) { post(); if (offered !== null) channel.postMessage({ work: offered.work }); }
    if (d.result !== undefined && offered !== null && d.result.id === offered.work.id) offered.onResult(d.result.i, d.result.files);
  };
  const helpers: Helpers = {
    offer: (work, onResult) => {
      offered = { work, onResult };
      channel.postMessage({ work });
      return () => { offered = null; };
    },
  };
  set.onChange = post;
  // For the threads that asked before this channel existed.
  post();
  const t0 = performance.now();
  serveOrBuild(set, service(), config.financeData, config.bulkBuild, options, helpers)
    .then((how) => log('info', { ...how, ...set.counts(), ms: Math.round(performance.now() - t0) }))
    .catch((err: unknown) => {
      if (err instanceof BuildStopped) return;
      log('warn', { error: err instanceof Error ? err.message : String(err) });
    });
}

/** Until no job waits for the pool and a worker is free, for a second at most: a table of the build goes in the pool's idle turns. */
async function idlePool(ctx: FinanceCtx): Promise<void> {
  for (let t = 0; t < 100 && (ctx.pool.waiting > 0 || ctx.pool.load >= ctx.workers); t++) await sleep(10);
}

/** Serves the prebuilt set when it is whole, else the cache set, building what it lacks (when build is true). */
export async function serveOrBuild(set: BulkSet, service: Service<FinanceCtx>, dataDir: string, build: boolean, o: BuildOptions, helpers?: Helpers): Promise<{ source: string; dir: string | null }> {
  const pre = prebuiltDir(dataDir);
  const prebuilt = readIndex(pre, set.digest);
  if (prebuilt !== null && 'index' in prebuilt) {
    const why = await wholeSet(set, pre, prebuilt.index.files);
    if (why === null) {
      set.source = 'prebuilt';
      for (const f of prebuilt.index.files) set.ready(pre, f);
      return { source: 'prebuilt', dir: pre };
    }
    log('warn', { dir: pre, rejected: why, action: 'serving the cache set' });
  } else if (prebuilt !== null) log('warn', { dir: pre, rejected: prebuilt.why, action: 'serving the cache set' });
  const dir = await cacheSet(set, cacheDirs(dataDir, set.digest), build);
  if (dir === null || !build) {
    for (const { year, table } of set.missing()) set.notBuilt(year, table, build ? 'failed' : 'unavailable');
    if (dir === null) return { source: 'none', dir: null };
  }
  set.source = 'cache';
  // The files found were posted before the source was known: the threads that follow get it now.
  set.onChange?.();
  if (build) await buildMissing(set, service, dir, o, helpers);
  if (set.missing().length === 0) removeOtherSets(dir);
  return { source: 'cache', dir };
}

/** Why a prebuilt set may not be served whole (a file missing from it or not matching), or null. */
async function wholeSet(set: BulkSet, dir: string, files: BulkFile[]): Promise<string | null> {
  const listed = new Set(files.map((f) => `${f.table}-${f.year}.${f.format}`));
  for (const e of set.state().entries) if (!listed.has(`${e.table}-${e.year}.${e.format}`)) return `it has no ${e.format} of ${e.table} ${e.year}`;
  for (const f of files) {
    const why = await checkFile(dir, f);
    if (why !== null) return why;
  }
  return null;
}

/**
 * The cache directory to serve and build in: the first with an index of this corpus (its matching files
 * served at once), else, when it will build, the first that can be made private. A server that will not
 * build (BULK_BUILD=false) makes no directory.
 */
async function cacheSet(set: BulkSet, dirs: string[], make: boolean): Promise<string | null> {
  for (const dir of dirs) {
    const found = readIndex(dir, set.digest);
    if (found === null) continue;
    if ('why' in found) { log('warn', { dir, rejected: found.why, action: 'building anew' }); continue; }
    for (const f of found.index.files) {
      const why = await checkFile(dir, f);
      if (why === null) set.ready(dir, f);
      else log('warn', { dir, rejected: why, action: 'building it anew' });
    }
    return dir;
  }
  if (!make) return null;
  for (const dir of dirs) {
    const why = privateDir(dir);
    if (why === null) return dir;
    log('warn', { dir, rejected: why, action: 'trying the next place' });
  }
  return null;
}

/**
 * Builds each (year, table) not ready, newest first, a table a worker at once: this thread's, and the other
 * threads' when helpers are given. The index is rewritten after each, so a restart resumes.
 */
export async function buildMissing(set: BulkSet, service: Service<FinanceCtx>, dir: string, o: BuildOptions, helpers?: Helpers): Promise<void> {
  removeStaleTemps(dir);
  const work = newWork(dir, set.missing());
  let left = work.tasks.length;
  if (left === 0) return;
  let finished!: () => void;
  const all = new Promise<void>((resolve) => { finished = resolve; });
  const done: Done = (i, files) => {
    const { year, table } = work.tasks[i]!;
    if (files === null) set.notBuilt(year, table, 'failed');
    else {
      for (const f of files) set.ready(dir, f);
      writeIndex(dir, set.digest, set.readyFiles);
    }
    if (--left === 0) finished();
  };
  const withdraw = helpers?.offer(work, done);
  try {
    await Promise.all([takePart(service, work, o, done), all]);
  } finally {
    withdraw?.();
  }
}

/**
 * `civicstream bulk`: the set built into dir (by default <mirror>/bulk/, where a server finds it), files
 * already there and matching the index kept. Resolves with the files that failed, if any.
 */
export async function prebuild(set: BulkSet, service: Service<FinanceCtx>, dir: string, label: string): Promise<number> {
  mkdirSync(dir, { recursive: true });
  const distrust = untrustedDir(dir);
  if (distrust !== null) throw new Error(`${dir}: ${distrust}; a server would not serve files from it`);
  const found = readIndex(dir, set.digest);
  if (found !== null && 'index' in found) {
    for (const f of found.index.files) if ((await checkFile(dir, f)) === null) set.ready(dir, f);
  }
  await buildMissing(set, service, dir, { label });
  writeIndex(dir, set.digest, set.readyFiles);
  return set.counts().failed;
}
