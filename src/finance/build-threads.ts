// The bulk build's own threads (issue 32): a small pool beside the serving
// pool, started for a build and ended with it (no idle isolate kept), whose
// threads lower their own priority to nice 19 when they start
// (workers/build.ts, workers/thread-priority.ts). Built on the serving
// pool's workers, the set competed as an equal with the serving threads for
// the cores, and one government's p99 during the build stood at 20.9 ms;
// halving the builders did not lower it (bench/results/bulk-build.md). At
// nice 19 the build takes the CPU the serving threads leave idle and gives
// it back the moment one of them wakes. The threads get the corpus columns
// as the pool's workers do: shared memory, passed once in workerData.
//
// What of a build still runs at nice 0: the threads the process shares,
// which cannot be reniced without slowing the serving threads too. V8's
// platform threads compile a fresh isolate's hot code (its JavaScript and
// parquet-wasm) and help its garbage collection, mostly in a thread's first
// tables; libuv's threads write the files. The gzip, which would have been
// the largest of these, runs on the build threads (src/bytes/page-coder.ts GzipPieces).

import os from 'node:os';
import { TaskPool } from '../task-pool.js';
import type { BuildData, bulkTable } from '../../workers/build.js';
import type { BulkTableArgs, BulkTableResult } from './bulk-job.js';
import type { FinanceCtx } from './context.js';
import { tableNames } from './table-ctx.js';

/**
 * Build threads when none are asked for: one a core. Niced threads yield to
 * the serving threads whatever their number, so one a core builds at the
 * machine's pace when the server is idle and costs the requests nothing
 * more when it is not; fewer would leave idle cores unused.
 */
export const defaultBuildThreads = (): number => os.availableParallelism();

export class BuildThreads {
  private readonly pool: TaskPool<{ bulkTable: typeof bulkTable }>;
  /** Each build thread's niceness as it reported it, by kernel thread id. */
  readonly niceness = new Map<number, number>();
  private told = false;

  /** threads build threads over ctx's corpus; onNormalPriority is told once if a thread could not lower its priority (it builds at normal priority). */
  constructor(ctx: Pick<FinanceCtx, 'columns' | 'engine' | 'catalog'>, readonly threads: number, private readonly onNormalPriority: (why: string) => void) {
    const workerData: BuildData = { finance: ctx.columns, financeCatalog: ctx.engine, financeNames: tableNames(ctx.catalog) };
    this.pool = new TaskPool(new URL('../../workers/build.js', import.meta.url), threads, { workerData });
  }

  /** A (year, table) written as its two files on a build thread; the signal ends the job (and its thread). */
  async bulkTable(args: BulkTableArgs, signal?: AbortSignal): Promise<BulkTableResult> {
    const { thread, ...result } = await this.pool.run('bulkTable', args, signal ? { signal } : {});
    if ('nice' in thread) this.niceness.set(thread.tid, thread.nice);
    else if (!this.told) { this.told = true; this.onNormalPriority(thread.why); }
    return result;
  }

  /** Ends the threads (a job still running is ended with its thread). */
  close(): Promise<void> {
    return this.pool.close({ force: true });
  }
}
