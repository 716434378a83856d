// The bulk files' life in the server, once it listens: one thread (the main
// thread, or front thread 0) finds a set to serve or builds one, and every
// other front thread mirrors what it has through a BroadcastChannel. The set
// served is a prebuilt one beside the mirror (<FINANCE_DATA>/bulk/) when its
// index names this manifest and every file matches its sha256; else the
// server's cache set for this manifest, whose files already built are checked
// and kept, and the rest built (bulk-build.ts), newest year first, a (year,
// table) a job, on build threads of the building thread's own at the lowest
// priority (bulk-work.ts, src/finance/build-threads.ts), not on the serving
// pool: the build takes the CPU the serving threads leave idle and never
// holds a worker that requests wait for. The other front threads have no
// part in the build; they serve the files it has ready.

import { mkdirSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import type { Config } from '../../config.js';
import type { Service } from '../../server/service.js';
import type { FinanceCtx } from '../context.js';
import { BuildStopped, type BuildOptions } from './bulk-build.js';
import { bulkOf, type BulkSet, type BulkState } from '../bulk-set.js';
import { cacheDirs, checkFile, prebuiltDir, privateDir, readIndex, removeOtherSets, removeStaleTemps, untrustedDir, writeIndex, type BulkFile } from '../bulk-store.js';
import { buildTasks, log, type BuildRun, type Done } from './bulk-work.js';
import { financeService } from './service.js';

/** Starts the bulk files of this thread's service: the building thread checks or builds them, the others follow it. */
export function startBulkFiles(ctx: FinanceCtx, config: Config): void {
  const set = bulkOf(ctx);
  const channel = new BroadcastChannel(`civicstream-bulk:${set.digest}`);
  // The channel alone must not keep a thread (or the process) alive.
  channel.unref();
  if (!config.bulkOwner) {
    channel.onmessage = (m: unknown) => {
      const d = (m as { data: { state?: BulkState } }).data;
      if (d.state) set.apply(d.state);
    };
    channel.postMessage({ ask: true });
    return;
  }
  const post = (): void => channel.postMessage({ state: set.state() });
  channel.onmessage = (m: unknown) => {
    if ((m as { data: { ask?: boolean } }).data.ask) post();
  };
  set.onChange = post;
  // For the threads that asked before this channel existed.
  post();
  const t0 = performance.now();
  const service: Service<FinanceCtx> = { ...financeService(ctx, config), cache: undefined, timeoutMs: undefined, accessLog: false };
  serveOrBuild(set, service, config.financeData, config.bulkBuild, {})
    // The build's threads and the niceness they ran at (bench/bulk-build.ts reports them).
    .then(({ built, ...how }) => log('info', { ...how, ...(built ? { build_threads: built.threads, nice: built.nice } : {}), ...set.counts(), ms: Math.round(performance.now() - t0) }))
    .catch((err: unknown) => {
      if (err instanceof BuildStopped) return;
      log('warn', { error: err instanceof Error ? err.message : String(err) });
    });
}

/** Serves the prebuilt set when it is whole, else the cache set, building what it lacks (when build is true; with the threads it ran on). */
export async function serveOrBuild(set: BulkSet, service: Service<FinanceCtx>, dataDir: string, build: boolean, o: BuildOptions): Promise<{ source: string; dir: string | null; built?: BuildRun }> {
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
  const built = build ? await buildMissing(set, service, dir, o) : null;
  if (set.missing().length === 0) removeOtherSets(dir);
  return { source: 'cache', dir, ...(built !== null ? { built } : {}) };
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
 * Builds each (year, table) not ready, newest first, a table a build thread at once (bulk-work.ts); the
 * threads it ran on, or null when nothing was missing. The index is rewritten after each, so a restart resumes.
 */
export async function buildMissing(set: BulkSet, service: Service<FinanceCtx>, dir: string, o: BuildOptions): Promise<BuildRun | null> {
  removeStaleTemps(dir);
  const tasks = set.missing();
  if (tasks.length === 0) return null;
  const done: Done = (i, files) => {
    const { year, table } = tasks[i]!;
    if (files === null) set.notBuilt(year, table, 'failed');
    else {
      for (const f of files) set.ready(dir, f);
      writeIndex(dir, set.digest, set.readyFiles);
    }
  };
  return buildTasks(service, dir, tasks, o, done);
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
  // --workers N builds on N threads (the serving pool it also starts is idle meanwhile).
  await buildMissing(set, service, dir, { label, threads: service.ctx.workers });
  writeIndex(dir, set.digest, set.readyFiles);
  return set.counts().failed;
}
