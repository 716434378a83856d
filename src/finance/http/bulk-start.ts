// The bulk files' life in the server, once it listens: one thread (the main
// thread, or front thread 0) finds a set to serve or builds one, and every
// other front thread mirrors what it has through a BroadcastChannel. The set
// served is a prebuilt one beside the mirror (<FINANCE_DATA>/bulk/) when its
// index names this manifest and every file matches its sha256; else the
// server's cache set for this manifest, whose files already built are checked
// and kept, and the rest built on the pool (bulk-build.ts), newest year
// first, a (year, table) a job, as many at once as the pool has workers,
// each started only once no job waits for the pool and a worker is free (or
// after a second), so a build takes the pool's idle turns and never starves
// requests.

import { mkdirSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import type { Config } from '../../config.js';
import { BusyError } from '../../domain-errors.js';
import type { Service } from '../../server/service.js';
import type { FinanceCtx } from '../context.js';
import { buildTable, BuildStopped, type BuildOptions } from './bulk-build.js';
import { bulkOf, type BulkSet, type BulkState } from '../bulk-set.js';
import { cacheDirs, checkFile, prebuiltDir, privateDir, readIndex, removeOtherSets, removeStaleTemps, untrustedDir, writeIndex, type BulkFile, type BulkTable } from '../bulk-store.js';
import { financeService } from './service.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const log = (level: 'info' | 'warn', fields: Record<string, unknown>): void => {
  (level === 'info' ? process.stdout : process.stderr).write(`${JSON.stringify({ level, event: 'bulk_files', ...fields })}\n`);
};

/** Tries of one (year, table) that the pool refused (503) before it is given up as failed. */
const BUSY_TRIES = 30;

/** Starts the bulk files of this thread's service: the building thread checks or builds them, the others follow it. */
export function startBulkFiles(ctx: FinanceCtx, config: Config): void {
  const set = bulkOf(ctx);
  const channel = new BroadcastChannel(`civicstream-bulk:${set.digest}`);
  // The channel alone must not keep a thread (or the process) alive.
  channel.unref();
  if (!config.bulkOwner) {
    channel.onmessage = (m: unknown) => { const d = (m as { data: { state?: BulkState } }).data; if (d.state) set.apply(d.state); };
    channel.postMessage({ ask: true });
    return;
  }
  const post = (): void => channel.postMessage({ state: set.state() });
  channel.onmessage = (m: unknown) => { if ((m as { data: { ask?: boolean } }).data.ask) post(); };
  set.onChange = post;
  // For the threads that asked before this channel existed.
  post();
  const service: Service<FinanceCtx> = { ...financeService(ctx, config), cache: undefined, timeoutMs: undefined, accessLog: false };
  const t0 = performance.now();
  serveOrBuild(set, service, config.financeData, config.bulkBuild, { beforeTable: () => idlePool(ctx) })
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
export async function serveOrBuild(set: BulkSet, service: Service<FinanceCtx>, dataDir: string, build: boolean, o: BuildOptions): Promise<{ source: string; dir: string | null }> {
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
  if (build) await buildMissing(set, service, dir, o);
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
 * Builds each (year, table) not ready, newest first, as many at once as the pool has workers; the index is
 * rewritten after each, so a restart resumes.
 */
export async function buildMissing(set: BulkSet, service: Service<FinanceCtx>, dir: string, o: BuildOptions): Promise<void> {
  removeStaleTemps(dir);
  const todo = set.missing();
  const builder = async (): Promise<void> => {
    for (let next = todo.shift(); next !== undefined; next = todo.shift()) await buildOne(set, service, dir, next, o);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(service.ctx.workers, todo.length)) }, builder));
}

/** One (year, table), tried again while the pool refuses it (503); listed as failed on any other error. */
async function buildOne(set: BulkSet, service: Service<FinanceCtx>, dir: string, { year, table }: { year: number; table: BulkTable }, o: BuildOptions): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      for (const f of await buildTable(service, dir, year, table, o)) set.ready(dir, f);
      writeIndex(dir, set.digest, set.readyFiles);
      return;
    } catch (err) {
      if (err instanceof BuildStopped) throw err;
      // The pool was full (503): the requests come first; this table is tried again a second later.
      if (err instanceof BusyError && tries < BUSY_TRIES) { await sleep(1000); continue; }
      log('warn', { year, table, error: err instanceof Error ? err.message : String(err), action: 'listed as failed' });
      set.notBuilt(year, table, 'failed');
      return;
    }
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
