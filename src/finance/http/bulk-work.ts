// A build's tables as work shared among the threads that have a pool. With
// FRONT_THREADS above 1 each front thread has its own share of the workers,
// so the thread building the set (the owner, bulk-start.ts) offers its list
// of (year, table) to the others, and every thread's builders take the next
// table from one counter in shared memory until none is left: the whole
// pool builds in parallel, one table a worker, and the owner gathers what
// each thread built. Without other threads (FRONT_THREADS=1, the CLI) the
// owner's own builders take every table.

import { randomUUID } from 'node:crypto';
import type { Service } from '../../server/service.js';
import { BusyError } from '../../domain-errors.js';
import type { FinanceCtx } from '../context.js';
import type { BulkFile, BulkTable } from '../bulk-store.js';
import { buildTable, BuildStopped, type BuildOptions } from './bulk-build.js';

export const log = (level: 'info' | 'warn', fields: Record<string, unknown>): void => {
  (level === 'info' ? process.stdout : process.stderr).write(`${JSON.stringify({ level, event: 'bulk_files', ...fields })}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Tries of one (year, table) that the pool refused (503) before it is given up as failed. */
const BUSY_TRIES = 30;

/** A build's tables, the directory they go in, and the counter of the next table to take (an Int32 in shared memory). */
export interface BulkWork {
  id: string;
  dir: string;
  tasks: { year: number; table: BulkTable }[];
  next: SharedArrayBuffer;
}

/** What a thread reports of a table it took: its files, or null when it failed (logged where it failed). */
export type Done = (i: number, files: BulkFile[] | null) => void;

/** Other threads to offer work to: their results come to onResult until the function returned is called. */
export interface Helpers {
  offer(work: BulkWork, onResult: Done): () => void;
}

export const newWork = (dir: string, tasks: BulkWork['tasks']): BulkWork => ({ id: randomUUID(), dir, tasks, next: new SharedArrayBuffer(4) });

/** The next table no thread has taken, or -1. */
function claim(work: BulkWork): number {
  const i = Atomics.add(new Int32Array(work.next), 0, 1);
  return i < work.tasks.length ? i : -1;
}

/** This thread's builders (o.builders, else one a worker of its pool) take tables until none is left; each result goes to done. */
export async function takePart(service: Service<FinanceCtx>, work: BulkWork, o: BuildOptions, done: Done): Promise<void> {
  const builder = async (): Promise<void> => {
    for (let i = claim(work); i >= 0; i = claim(work)) done(i, await buildTask(service, work.dir, work.tasks[i]!, o));
  };
  await Promise.all(Array.from({ length: Math.max(1, o.builders ?? service.ctx.workers) }, builder));
}

/** One (year, table), tried again while the pool refuses it (503); null (logged) on any other error; BuildStopped passes. */
async function buildTask(service: Service<FinanceCtx>, dir: string, { year, table }: BulkWork['tasks'][number], o: BuildOptions): Promise<BulkFile[] | null> {
  for (let tries = 1; ; tries++) {
    try {
      return await buildTable(service, dir, year, table, o);
    } catch (err) {
      if (err instanceof BuildStopped) throw err;
      // The pool was full: the requests come first; this table is tried again a second later.
      if (err instanceof BusyError && tries < BUSY_TRIES) { await sleep(1000); continue; }
      log('warn', { year, table, error: err instanceof Error ? err.message : String(err), action: 'listed as failed' });
      return null;
    }
  }
}
