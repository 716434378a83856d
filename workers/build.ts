// Entry of the bulk build's threads (src/finance/build-threads.ts; issue 32):
// a small pool of its own beside the serving pool, each thread at the lowest
// priority (thread-priority.ts), so the bulk set is built in the CPU the
// serving threads leave idle. Like a pool worker it attaches the shared
// corpus columns from workerData once; it runs one job, a (year, table)
// written as its two bulk files (workers/finance/bulk-table.ts). No HTTP.

import { workerData } from 'node:worker_threads';
import type { BulkTableArgs, BulkTableResult } from '../src/finance/bulk-job.js';
import type { FinanceColumns } from '../src/finance/columns.js';
import type { EngineCatalog } from '../src/finance/engine-catalog.js';
import { tableCtxOf, type TableNames } from '../src/finance/table-ctx.js';
import { bulkTable as bulkTableJob } from './finance/bulk-table.js';
import { attachFinance } from './finance/corpus.js';
import { BUILD_NICENESS, lowerThisThread, type ThreadPriority } from './thread-priority.js';

/** What a build thread is started with: the corpus columns (shared memory) and the catalog parts a table is written with. */
export interface BuildData {
  finance: FinanceColumns;
  financeCatalog: EngineCatalog;
  financeNames: TableNames;
}

// First, before any of the build's work runs on this thread.
const priority: ThreadPriority = lowerThisThread(BUILD_NICENESS);

const data = workerData as BuildData;
const corpus = attachFinance(data.finance);
const names = tableCtxOf(data.financeCatalog, data.financeNames);

/** A (year, table)'s two files, and the priority of the thread that wrote them (what the build logs). */
export async function bulkTable(a: BulkTableArgs): Promise<BulkTableResult & { thread: ThreadPriority }> {
  return { ...(await bulkTableJob(corpus, names, a)), thread: priority };
}
