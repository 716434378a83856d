// /health's view of the whole process (issue 31, item 5): a front thread's
// own pool, page slots and requests are its share only, so /health adds up the
// metrics' board (telemetry.ts), one slot per thread that serves the service,
// as /metrics does, and lists each thread's figures beside the sums. The
// answering thread writes its own slot first; the others' pool and slot
// gauges are as their sampler last wrote them (each second), their requests
// and streams in flight exact.

import { threadSample } from './metrics.js';
import { serviceSample } from './ops-routes.js';
import { BoardReader, shareBoards, telemetry, type Scalar } from './telemetry.js';

export interface ThreadFigures {
  thread_id: number;
  workers: number;
  pool_jobs: number;
  pool_waiting: number;
  inline_jobs: number;
  csv_page_slots: { total: number; in_use: number };
  requests_in_flight: number;
  open_streams: number;
  heap_used_bytes: number;
}

export interface ProcessView {
  /** The sums over every thread that serves the service. */
  process: Omit<ThreadFigures, 'thread_id' | 'heap_used_bytes'> & { threads: number };
  /** Each thread's own figures, by its slot. */
  threads: ThreadFigures[];
}

/** The process's figures of service `name` and each thread's, after writing this thread's sample to its slot. */
export function processView(name: string): ProcessView {
  telemetry(name).publish(serviceSample(name), threadSample(false));
  const board = new BoardReader(shareBoards()[name]!);
  const threads: ThreadFigures[] = [];
  for (let s = 0; s < board.slots; s++) {
    const v = (k: Scalar): number => board.scalar(s, k) ?? 0;
    if (board.scalar(s, 'live') === null) continue;
    threads.push({
      thread_id: v('threadId'), workers: v('poolWorkers'), pool_jobs: v('poolJobs'), pool_waiting: v('poolWaiting'), inline_jobs: v('jobsInline'),
      csv_page_slots: { total: v('slotsTotal'), in_use: v('slotsInUse') },
      requests_in_flight: v('inFlight'), open_streams: v('openStreams'), heap_used_bytes: v('heapUsed'),
    });
  }
  const sum = (f: (t: ThreadFigures) => number): number => threads.reduce((n, t) => n + f(t), 0);
  return {
    process: {
      threads: threads.length, workers: sum((t) => t.workers), pool_jobs: sum((t) => t.pool_jobs), pool_waiting: sum((t) => t.pool_waiting),
      inline_jobs: sum((t) => t.inline_jobs), csv_page_slots: { total: sum((t) => t.csv_page_slots.total), in_use: sum((t) => t.csv_page_slots.in_use) },
      requests_in_flight: sum((t) => t.requests_in_flight), open_streams: sum((t) => t.open_streams),
    },
    threads,
  };
}
