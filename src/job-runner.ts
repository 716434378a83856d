// The jobs a service can run, by name, with what each takes and returns, and
// the interface it reaches them through (JobRunner). The concrete runner is
// the Piscina pool (pool.ts), wired where a service is built; the job
// functions themselves are workers/jobs.ts. Nothing here loads either, so a
// context holding a runner does not load the workers, nor they it.

import type { CodeYearsArgs, CodeYearsResult, GovernmentYearsArgs, GovernmentYearsResult, MoneyPageArgs, MoneyPageResult, PackedMoneyResult, PeersArgs, PeersResult } from './finance/job-io.js';
import type { MoneyCount, MoneyPlan } from './finance/plan.js';

/** A deliberate fault, for the worker-fault test only (workers/fault.ts). */
export interface FaultArgs {
  kind: 'throw' | 'exit' | 'hang';
}

export interface Jobs {
  ping: [Record<string, never>, { threadId: number }];
  governmentYears: [GovernmentYearsArgs, GovernmentYearsResult];
  money: [MoneyPlan, PackedMoneyResult];
  moneyPage: [MoneyPageArgs, MoneyPageResult];
  /** A flat query's row count (workers/finance/money-count.ts), for a plan plan.ts calls countable. */
  moneyCount: [MoneyPlan, MoneyCount];
  codeYears: [CodeYearsArgs, CodeYearsResult];
  peers: [PeersArgs, PeersResult];
  fault: [FaultArgs, never];
}
export type JobName = keyof Jobs;
export type JobArgs<N extends JobName> = Jobs[N][0];
export type JobResult<N extends JobName> = Jobs[N][1];
export type JobTable = { [N in JobName]: (a: JobArgs<N>) => JobResult<N> };

/** Several small jobs in one message (JobRunner.runSmall); a job that throws fails alone. */
export interface BatchItem { name: JobName; args: unknown }
export type BatchOutcome = { ok: true; value: unknown } | { ok: false; message: string; stack: string | undefined };

export interface JobRunner {
  /** A job on a worker; refused at once (E_BUSY) past the queue's bound; the signal cancels it. */
  run<N extends JobName>(name: N, args: JobArgs<N>, signal?: AbortSignal): Promise<JobResult<N>>;
  /**
   * A job known to be small: run on this thread when it runs such jobs
   * itself, else batched with the others of this turn. The signal may be a
   * thunk, made only if the job goes to a worker.
   */
  runSmall<N extends JobName>(name: N, args: JobArgs<N>, lazySignal?: AbortSignal | (() => AbortSignal)): Promise<JobResult<N>>;
  /** Jobs running or waiting for a worker. */
  readonly load: number;
  /** Batch messages posted, the small jobs they carried, and the small jobs run on this thread (/health). */
  readonly batches: number;
  readonly batchedJobs: number;
  readonly inlineJobs: number;
  /** For /metrics and /readyz (src/server/ops-routes.ts): jobs posted to workers, tasks waiting, live workers, the cap, workers' busy seconds. */
  readonly poolJobs: number;
  readonly waiting: number;
  readonly liveWorkers: number;
  readonly maxJobs: number;
  readonly busySeconds: number;
  close(): Promise<void>;
}
