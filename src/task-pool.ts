// A short-lived Piscina pool over a worker entry of its own, typed by that
// entry's exports (re-exported by src/pool.ts, the serving pool). It loads only
// piscina, so a worker entry may load a module that starts one.

import { Piscina } from 'piscina';

/** A worker entry's jobs, by export name: each takes one argument and returns (a promise of) its result. */
type TaskJobs = Record<string, (a: never) => unknown>;

/**
 * A short-lived pool over a worker entry of its own (a build or a generator, not the serving jobs), typed by
 * the entry's exports: run() takes each job's argument type and gives its result type, with no cast at the call.
 */
export class TaskPool<Jobs extends TaskJobs> {
  private readonly piscina: Piscina;
  constructor(entry: URL, workers: number, o: { idleTimeout?: number; workerData?: unknown } = {}) {
    this.piscina = new Piscina({
      filename: entry.href, minThreads: workers, maxThreads: workers,
      ...(o.idleTimeout !== undefined ? { idleTimeout: o.idleTimeout } : {}), ...(o.workerData !== undefined ? { workerData: o.workerData } : {}),
    });
  }

  /** A job; the signal, when it fires, ends the job's thread (Piscina starts another). */
  run<N extends keyof Jobs & string>(name: N, args: Parameters<Jobs[N]>[0], o: { transferList?: ArrayBuffer[]; signal?: AbortSignal } = {}): Promise<Awaited<ReturnType<Jobs[N]>>> {
    return this.piscina.run(args, { name, ...(o.transferList ? { transferList: o.transferList } : {}), ...(o.signal ? { signal: o.signal } : {}) }) as Promise<Awaited<ReturnType<Jobs[N]>>>;
  }

  close(o: { force?: boolean } = {}): Promise<void> {
    return this.piscina.close(o);
  }
}
