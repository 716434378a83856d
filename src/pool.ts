// The Piscina pool the aggregations run on. Workers get the shared corpus
// columns through workerData once, at start; tasks carry only small plans and
// return typed arrays, never row objects.
//
// Small jobs (one government's history) cost less to compute than to hand to
// a thread: the message, the wake-up and the promise on both sides dominate.
// A front thread's pool (src/front.ts) therefore runs them on that thread
// (runSmall with the inline jobs). Otherwise runSmall() gathers the small jobs
// that arrive in one turn of the event loop and posts them as one batch per
// worker (early, as soon as each worker has EARLY_FLUSH_PER_WORKER, in a long
// turn).

import { Piscina } from 'piscina';
import { BusyError } from './domain-errors.js';
import { LaneQueue } from './pool-lanes.js';
import type { BatchItem, BatchOutcome, JobArgs, JobName, JobResult, JobRunner, JobTable } from './job-runner.js';

export interface PoolOptions {
  workers: number;
  workerData: unknown;
  /** Jobs that may wait for a worker; past it a job is refused at once (503), so latency and memory stay bounded. */
  maxQueue: number;
  /**
   * Small jobs this thread runs itself when runSmall is asked for them (a
   * front thread's; see src/front.ts). Only pure jobs belong here: a job that
   * could take its thread down (the fault hook) always goes to the pool.
   */
  inline?: Partial<JobTable>;
}

interface Pending {
  item: BatchItem;
  signal: AbortSignal | undefined;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * Small jobs pending, per worker, that are posted at once rather than at the
 * end of the turn (so each early message still carries about this many).
 * Interleaved A/B runs of scenario 1 (46M corpus, 32 connections, 2 workers;
 * 11 pairs): every one faster than posting only at the end of the turn, by
 * 13-26% at 4 a worker; 1 a worker was worse than 2, and 8 no better than 4.
 */
const EARLY_FLUSH_PER_WORKER = 4;

export class Pool implements JobRunner {
  readonly piscina: Piscina;
  private readonly capacity: number;
  /** Places only small jobs may take (see admit). */
  private readonly smallReserve: number;
  private readonly workers: number;
  private outstanding = 0;
  private pending: Pending[] = [];
  private flushScheduled = false;
  /** Batch messages posted, the small jobs they carried, and the small jobs run inline (reported by /health). */
  batches = 0;
  batchedJobs = 0;
  inlineJobs = 0;
  /** Jobs posted to the workers (each job of a batch counted), for /metrics. */
  poolJobs = 0;
  /** Microseconds the workers spent running jobs, added by each worker (workers/index.ts). */
  private readonly busy = new BigInt64Array(new SharedArrayBuffer(8));
  private readonly inline: Partial<JobTable>;
  /** Each live worker thread's exit, by threadId (see threadGone). */
  private readonly exits = new Map<number, Promise<void>>();

  constructor(o: PoolOptions) {
    this.capacity = o.workers + o.maxQueue;
    this.smallReserve = Math.floor(this.capacity / 4);
    this.workers = o.workers;
    this.inline = o.inline ?? {};
    this.piscina = new Piscina({
      filename: new URL('../workers/index.js', import.meta.url).href,
      minThreads: o.workers,
      maxThreads: o.workers,
      idleTimeout: Number.POSITIVE_INFINITY,
      // The bound is ours (capacity above): Piscina's own would reject with a plain Error, which is a 500.
      maxQueue: Number.POSITIVE_INFINITY,
      // The busy counter rides beside the corpus: every worker adds its jobs' time to it.
      workerData: { ...(o.workerData as object), poolBusy: this.busy.buffer },
      // Nothing reads Piscina's run and wait histograms; recording them costs every message.
      recordTiming: false,
      // Small jobs' batches go ahead of the bulk jobs waiting (src/pool-lanes.ts).
      taskQueue: new LaneQueue(),
      // A task shifted off the queue when no worker could take it goes back to the head (LaneQueue.unshift), not
      // the tail: at the tail the oldest job starved behind a steady stream of newer ones (src/pool-lanes.ts).
      stricterFIFO: true,
    });
    // Piscina announces a worker before giving it a task: its exit is watched from then on.
    this.piscina.on('workerCreate', (w: { id: number }) => {
      const thread = this.piscina.threads.find((t) => t.threadId === w.id);
      if (thread === undefined || this.exits.has(w.id)) return;
      this.exits.set(w.id, new Promise<void>((resolve) => thread.once('exit', () => { this.exits.delete(w.id); resolve(); })));
    });
  }

  /**
   * Resolves once worker thread threadId has stopped running (at once when it
   * has already). An aborted job's worker is terminated, which takes effect
   * some time after the job's promise has rejected: memory the job was
   * writing is safe to reuse only after this.
   */
  threadGone = (threadId: number): Promise<void> => this.exits.get(threadId) ?? Promise.resolve();

  /**
   * A place among the jobs running or waiting, or a 503. A quarter of the places (none under four) are
   * kept for small jobs: bulk jobs (pages, counts, rollups, peers) fill at most the rest, so a crowd
   * of them cannot get small queries refused (issue 23, finding 9).
   */
  private admit(small: boolean): () => void {
    const limit = small ? this.capacity : this.capacity - this.smallReserve;
    if (this.outstanding >= limit) {
      throw new BusyError('jobs', this.outstanding);
    }
    this.outstanding++;
    return () => { this.outstanding--; };
  }

  run<N extends JobName>(name: N, args: JobArgs<N>, signal?: AbortSignal): Promise<JobResult<N>> {
    let done: () => void;
    try { done = this.admit(false); } catch (e) { return Promise.reject(e); }
    this.poolJobs++;
    const job = this.piscina.run(args, { name, ...(signal ? { signal } : {}) }) as Promise<JobResult<N>>;
    job.then(done, done);
    return job;
  }

  /**
   * A job known to be small, batched with the others of this event-loop turn
   * (in a long turn, posted as soon as each worker has EARLY_FLUSH_PER_WORKER).
   * A batched job is not cancelled once posted (it is short); it is dropped
   * unposted if its signal fires first. The signal may be given as a thunk:
   * a request's AbortController is made only when asked for (http.ts), and
   * a job run on this thread never asks.
   */
  runSmall<N extends JobName>(name: N, args: JobArgs<N>, lazySignal?: AbortSignal | (() => AbortSignal)): Promise<JobResult<N>> {
    const here = this.inline[name] as ((a: JobArgs<N>) => JobResult<N>) | undefined;
    // Run here, a job cannot be cancelled (nor needs to be), so its request's signal is never made.
    if (here !== undefined) return this.runHere(here, args);
    const signal = typeof lazySignal === 'function' ? lazySignal() : lazySignal;
    let done: () => void;
    try { done = this.admit(true); } catch (e) { return Promise.reject(e); }
    const job = new Promise<unknown>((resolve, reject) => {
      this.pending.push({ item: { name, args }, signal, resolve, reject });
    }) as Promise<JobResult<N>>;
    job.then(done, done);
    // A burst of requests is read in one turn; posting as soon as each worker has a few jobs lets
    // the workers start while the main thread is still reading the rest of it, instead of after.
    if (this.pending.length >= EARLY_FLUSH_PER_WORKER * this.workers) { this.flush(); return job; }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      // setImmediate runs after the poll phase, so every request uWS read in this turn has joined.
      setImmediate(() => { this.flushScheduled = false; this.flush(); });
    }
    return job;
  }

  /**
   * A small job run on this thread, now: tens of microseconds of work, which
   * costs less than the round trip to a worker (the copies of the plan and
   * the result, the wake-ups, the promise on both sides).
   */
  private runHere<N extends JobName>(job: (a: JobArgs<N>) => JobResult<N>, args: JobArgs<N>): Promise<JobResult<N>> {
    this.inlineJobs++;
    try {
      return Promise.resolve(job(args));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private flush(): void {
    const live = this.pending.filter((p) => {
      if (!p.signal?.aborted) return true;
      p.reject(p.signal.reason ?? new Error('aborted'));
      return false;
    });
    this.pending = [];
    if (live.length === 0) return;
    const parts = Math.min(this.workers, live.length);
    for (let k = 0; k < parts; k++) {
      const chunk = live.slice(Math.floor((k * live.length) / parts), Math.floor(((k + 1) * live.length) / parts));
      this.post(chunk);
    }
  }

  private post(chunk: Pending[]): void {
    this.batches++;
    this.batchedJobs += chunk.length;
    this.poolJobs += chunk.length;
    const settle = (p: Pending, o: BatchOutcome): void => {
      if (o.ok) p.resolve(o.value);
      else p.reject(Object.assign(new Error(o.message), { stack: o.stack }));
    };
    // A loop, not chunk.map: once optimized, map returns a holey array, which is posted index by index (a sparse array).
    const items: BatchItem[] = [];
    for (const p of chunk) items.push(p.item);
    (this.piscina.run(items, { name: 'batch' }) as Promise<BatchOutcome[]>).then(
      (outcomes) => chunk.forEach((p, i) => settle(p, outcomes[i]!)),
      (err) => {
        // The worker died mid-batch. Each job is pure, so the others are run
        // again on their own: only the job that kills a worker fails.
        if (chunk.length === 1) { chunk[0]!.reject(err); return; }
        for (const p of chunk) this.piscina.run(p.item.args, { name: p.item.name }).then(p.resolve, p.reject);
      },
    );
  }

  /** Jobs running or waiting for a worker. */
  get load(): number {
    return this.outstanding;
  }

  /** Tasks waiting for a worker: Piscina's queue, and small jobs gathered but not yet posted. */
  get waiting(): number {
    return this.piscina.queueSize + this.pending.length;
  }

  /** Worker threads alive now (Piscina replaces one that dies). */
  get liveWorkers(): number {
    return this.piscina.threads.length;
  }

  /** Jobs that may run or wait at once; past it, 503. */
  get maxJobs(): number {
    return this.capacity;
  }

  /** Seconds the workers spent running jobs. */
  get busySeconds(): number {
    return Number(Atomics.load(this.busy, 0)) / 1e6;
  }

  /** Resolves once every worker has started and attached the corpus. */
  async warm(): Promise<void> {
    await Promise.all(Array.from({ length: this.piscina.options.maxThreads }, () => this.run('ping', {})));
  }

  close(): Promise<void> {
    return this.piscina.close({ force: true });
  }
}


// The short-lived pools (a build's, a generator's) are typed the same way, in a module of their own that loads
// nothing of the server: the finance generator's worker entry loads src/finance/generate.ts, which starts one.
export { TaskPool } from './task-pool.js';
