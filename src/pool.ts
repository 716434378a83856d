// The Piscina pool every aggregation runs on. Workers get the shared corpus
// columns through workerData once, at start; tasks carry only small plans and
// return typed arrays, never row objects.

import { Piscina } from 'piscina';
import { apiError } from './server/errors.js';
import type { JobName, JobArgs, JobResult } from '../workers/index.js';

export interface PoolOptions {
  workers: number;
  workerData: unknown;
  /** Jobs that may wait for a worker; past it a job is refused at once (503), so latency and memory stay bounded. */
  maxQueue: number;
}

export class Pool {
  readonly piscina: Piscina;
  private readonly capacity: number;
  private outstanding = 0;

  constructor(o: PoolOptions) {
    this.capacity = o.workers + o.maxQueue;
    this.piscina = new Piscina({
      filename: new URL('../workers/index.js', import.meta.url).href,
      minThreads: o.workers,
      maxThreads: o.workers,
      idleTimeout: Number.POSITIVE_INFINITY,
      // The bound is ours (capacity above): Piscina's own would reject with a plain Error, which is a 500.
      maxQueue: Number.POSITIVE_INFINITY,
      workerData: o.workerData,
    });
  }

  run<N extends JobName>(name: N, args: JobArgs<N>, signal?: AbortSignal): Promise<JobResult<N>> {
    if (this.outstanding >= this.capacity) {
      return Promise.reject(apiError('E_BUSY', `The server is at capacity (${this.outstanding} jobs running or waiting); retry after the Retry-After seconds.`));
    }
    this.outstanding++;
    const done = (): void => { this.outstanding--; };
    const job = this.piscina.run(args, { name, ...(signal ? { signal } : {}) }) as Promise<JobResult<N>>;
    job.then(done, done);
    return job;
  }

  /** Jobs running or waiting for a worker. */
  get load(): number {
    return this.outstanding;
  }

  /** Resolves once every worker has started and attached the corpus. */
  async warm(): Promise<void> {
    await Promise.all(Array.from({ length: this.piscina.options.maxThreads }, () => this.run('ping', {})));
  }

  close(): Promise<void> {
    return this.piscina.close({ force: true });
  }
}
