// A thread lowering its own scheduling priority (issue 32): the bulk build's
// threads (workers/build.ts) call this first thing, so the build takes only
// the CPU the serving threads leave idle and yields it to them at once.
//
// On Linux every thread is a task with its own kernel id and niceness, and
// setpriority(PRIO_PROCESS, tid) acts on that one thread: os.setPriority
// given the thread's id renices this thread alone, not the process (the
// front threads and the pool's workers keep nice 0). A thread finds its id
// in /proc/thread-self ("<pid>/task/<tid>"). Raising one's niceness needs no
// privilege (lowering it back would, and is never asked: the threads end
// with the build). Threads a niced thread starts inherit its niceness; the
// build's threads start none (its gzip runs on the thread itself:
// src/bytes/page-coder.ts GzipPieces).

import { readlinkSync } from 'node:fs';
import os from 'node:os';

/**
 * The build threads' niceness: 19, the lowest priority there is. Under CFS a
 * thread's share of a busy core goes by its weight, 15 at nice 19 against
 * 1,024 at nice 0, so a serving thread that wakes while a build thread runs
 * gets about 98.5% of that core and preempts the build at once (the woken
 * thread's virtual runtime is far behind); with no request to serve the
 * build has the cores to itself. Any higher priority would keep some share
 * of a core busy serving requests for the build; SCHED_IDLE would yield
 * even more, but Node has no call to set it.
 */
export const BUILD_NICENESS = 19;

/** The niceness this thread runs at and its kernel thread id, or why it could not be lowered (it then runs as before). */
export type ThreadPriority = { tid: number; nice: number } | { why: string };

/**
 * Sets this thread's niceness to nice, this thread's only. Never throws: with
 * no /proc/thread-self (another OS) or setpriority refused (a seccomp
 * filter), the thread runs at the priority it had, and says why.
 */
export function lowerThisThread(nice: number): ThreadPriority {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/')[2]);
    if (!Number.isInteger(tid) || tid <= 0) return { why: 'no thread id in /proc/thread-self' };
    os.setPriority(tid, nice);
    return { tid, nice: os.getPriority(tid) };
  } catch (err) {
    return { why: err instanceof Error ? err.message : String(err) };
  }
}
