// The pool's queue in two lanes (Piscina's taskQueue option). Batches of
// small jobs (one government's history, posted by Pool.runSmall) go ahead of
// every bulk job waiting (pages, counts, rollups, peers): a small query waits
// at most for a worker to finish the job it is running, never behind a crowd
// of bulk pulls (issue 23, finding 9). On a front thread the small jobs run
// on the thread itself and never queue; this lane is for FRONT_THREADS=1.

import type { PiscinaTask, TaskQueue } from 'piscina';

type Task = Parameters<TaskQueue['push']>[0];

/** The job names of the fast lane. */
const FAST = new Set(['batch']);

export class LaneQueue implements TaskQueue {
  private readonly fast: Task[] = [];
  private readonly bulk: Task[] = [];

  get size(): number {
    return this.fast.length + this.bulk.length;
  }

  push(task: Task): void {
    (FAST.has((task as PiscinaTask).name) ? this.fast : this.bulk).push(task);
  }

  shift(): Task | null {
    return this.fast.shift() ?? this.bulk.shift() ?? null;
  }

  /**
   * A task Piscina shifted off but found no worker free for, put back at the head of its lane (Pool sets
   * stricterFIFO): put back at the tail, the oldest page job of a stream of them was sent behind every job
   * queued meanwhile, again and again, and with one worker a front thread a pull waited 0.5-2 s on the
   * fixture and about 10 s at full scale while hundreds of later jobs ran (bench/fresh-stall.ts).
   */
  unshift(task: Task): void {
    (FAST.has((task as PiscinaTask).name) ? this.fast : this.bulk).unshift(task);
  }

  remove(task: Task): void {
    for (const lane of [this.fast, this.bulk]) {
      const i = lane.indexOf(task);
      if (i >= 0) { lane.splice(i, 1); return; }
    }
  }
}
