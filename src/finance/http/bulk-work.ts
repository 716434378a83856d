// A build's tables taken by threads of its own (issue 32). The thread that
// builds the set (the owner, bulk-start.ts; or the CLI) starts a few build
// threads at the lowest priority for the build (src/finance/build-threads.ts)
// and ends them with it; a builder per thread takes the next (year, table)
// until none is left. Before, the tables were shared out among every front
// thread's serving workers through a counter in shared memory, the owner
// gathering what each thread built; with threads of its own the owner
// needs no other front thread's help, and those only mirror the set's state
// to serve its files (bulk-start.ts). Nor does a table wait for the serving
// pool to be idle any more: the build holds none of its workers, and its
// threads yield the cores to the serving threads by their priority.

import type { Service } from '../../server/service.js';
import { BuildThreads, defaultBuildThreads } from '../build-threads.js';
import type { FinanceCtx } from '../context.js';
import type { BulkFile, BulkTable } from '../bulk-store.js';
import { buildTable, BuildStopped, type BuildOptions } from './bulk-build.js';

export const log = (level: 'info' | 'warn', fields: Record<string, unknown>): void => {
  (level === 'info' ? process.stdout : process.stderr).write(`${JSON.stringify({ level, event: 'bulk_files', ...fields })}\n`);
};

/** A (year, table) to build. */
export interface BuildTask {
  year: number;
  table: BulkTable;
}

/** What is reported of a task: its files, or null when it failed (logged where it failed). */
export type Done = (i: number, files: BulkFile[] | null) => void;

/** The threads a build ran on: how many, and the niceness they reported (none: each ran at normal priority, logged). */
export interface BuildRun {
  threads: number;
  nice: number[];
}

/**
 * Builds every task on build threads of its own (o.threads, else one a core; never more than tasks), a
 * table a thread at once, each result to done; the threads end with the build. A drain stops it (BuildStopped)
 * once every table under way has stopped.
 */
export async function buildTasks(service: Service<FinanceCtx>, dir: string, tasks: BuildTask[], o: BuildOptions, done: Done): Promise<BuildRun> {
  const n = Math.max(1, Math.min(tasks.length, o.threads ?? defaultBuildThreads()));
  const threads = new BuildThreads(service.ctx, n, (why) => log('warn', { build_threads: 'at normal priority', why }));
  let next = 0;
  const builder = async (): Promise<void> => {
    for (let i = next++; i < tasks.length; i = next++) done(i, await buildTask(service, threads, dir, tasks[i]!, o));
  };
  try {
    // Every builder's end is awaited before the threads are closed: a table under way is never cut by the close.
    const ends = await Promise.allSettled(Array.from({ length: n }, builder));
    const failed = ends.find((e) => e.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  } finally {
    await threads.close();
  }
  return { threads: n, nice: [...new Set(threads.niceness.values())] };
}

/** One (year, table); null (logged) on any error, the table listed as failed (a later start builds it again); BuildStopped passes. */
async function buildTask(service: Service<FinanceCtx>, threads: BuildThreads, dir: string, { year, table }: BuildTask, o: BuildOptions): Promise<BulkFile[] | null> {
  try {
    return await buildTable(service, threads, dir, year, table, o);
  } catch (err) {
    if (err instanceof BuildStopped) throw err;
    log('warn', { year, table, error: err instanceof Error ? err.message : String(err), action: 'listed as failed' });
    return null;
  }
}
