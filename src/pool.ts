// The Piscina pool every aggregation runs on. Workers get the shared corpus
// columns through workerData once, at start; tasks carry only small plans and
// return typed arrays, never row objects.

import { Piscina } from 'piscina';
import type { JobName, JobArgs, JobResult } from '../workers/index.js';

export interface PoolOptions {
  workers: number;
  workerData: unknown;
  maxQueue?: number;
}

export class Pool {
  readonly piscina: Piscina;

  constructor(o: PoolOptions) {
    this.piscina = new Piscina({
      filename: new URL('../workers/index.js', import.meta.url).href,
      minThreads: o.workers,
      maxThreads: o.workers,
      idleTimeout: Number.POSITIVE_INFINITY,
      maxQueue: o.maxQueue ?? 'auto',
      workerData: o.workerData,
    });
  }

  run<N extends JobName>(name: N, args: JobArgs<N>, signal?: AbortSignal): Promise<JobResult<N>> {
    return this.piscina.run(args, { name, ...(signal ? { signal } : {}) }) as Promise<JobResult<N>>;
  }

  /** Resolves once every worker has started and attached the corpus. */
  async warm(): Promise<void> {
    await Promise.all(Array.from({ length: this.piscina.options.maxThreads }, () => this.run('ping', {})));
  }

  close(): Promise<void> {
    return this.piscina.close({ force: true });
  }
}
