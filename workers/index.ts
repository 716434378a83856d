// The Piscina worker entry: attaches the corpus from workerData once and
// exports the job table's functions by name (workers/jobs.ts), plus the batch
// of small jobs. No HTTP, no I/O here. Each job's time is added to the pool's
// busy counter (a word of shared memory the pool reads for /metrics).

import { workerData, threadId } from 'node:worker_threads';
import type { BatchItem, BatchOutcome, JobTable } from '../src/job-runner.js';
import { jobTable, runBatch, type JobData } from './jobs.js';

const data = (workerData ?? {}) as JobData & { poolBusy?: SharedArrayBuffer };
/** Microseconds this pool's workers spent in jobs (src/pool.ts busySeconds). */
const busy = data.poolBusy === undefined ? null : new BigInt64Array(data.poolBusy);

/** A job that adds its running time to the busy counter, however it ends (every job is synchronous). */
function timed<A extends unknown[], R>(job: (...a: A) => R): (...a: A) => R {
  if (busy === null) return job;
  return (...a) => {
    const t0 = performance.now();
    try {
      return job(...a);
    } finally {
      Atomics.add(busy, 0, BigInt(Math.round((performance.now() - t0) * 1000)));
    }
  };
}

const jobs = jobTable(data, threadId);

export const ping = timed(jobs.ping);
export const governmentYears = timed(jobs.governmentYears);
export const money = timed(jobs.money);
export const moneyPage = timed(jobs.moneyPage);
export const moneyCount = timed(jobs.moneyCount);
export const codeYears = timed(jobs.codeYears);
export const peers = timed(jobs.peers);
export const fault = timed(jobs.fault);
// Piscina finds a job by its export's name: a job of the table left out here would fail only when first run.
const exported: JobTable = { ping, governmentYears, money, moneyPage, moneyCount, codeYears, peers, fault };
void exported;

export const batch = timed((items: BatchItem[]): BatchOutcome[] => runBatch(jobs, items));
