// The connection gate: a cap on open connections below the descriptor limit.
//
// uWebSockets.js accepts in its own loop and this build offers no hook on a
// new connection. At the descriptor limit accept() fails with EMFILE, the
// listening socket stays readable, and the loop spins at 100% CPU while new
// clients wait (issue 23: 25 s, and /health failing on a system call). So the
// process counts its descriptors and, past the cap, closes its listening
// sockets: new connections are then refused by the kernel at once, nothing
// spins, and the connections already open are served (and closed by uWS's
// idle timeout, 8 to 12 s after they fall silent). Below the low-water mark the
// sockets listen again. One gate per process, on the main thread; the front
// threads close and reopen their sockets when it tells them.

import { readdirSync, readFileSync, statSync } from 'node:fs';

/** The soft limit on open descriptors, from /proc/self/limits; null where it cannot be read. */
export function descriptorLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m === null || m[1] === 'unlimited' ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/** The size of /proc/self/fd: the count of open descriptors on Linux 6.2 and later, 0 before. */
const fdDirSize = (): number => statSync('/proc/self/fd').size;

/**
 * Descriptors open now; null when they cannot be counted (out of descriptors, not Linux). Linux 6.2 and
 * later report the count as the size of /proc/self/fd, a stat of a few microseconds; on older kernels
 * (size 0) the directory is listed, which costs about 1.5 ms a thousand descriptors.
 */
export function openDescriptors(): number | null {
  try {
    const size = fdDirSize();
    if (size > 0) return size;
    // One of them is the directory's own, open while it is read.
    return readdirSync('/proc/self/fd').length - 1;
  } catch {
    return null;
  }
}

/** The default cap: three quarters of the descriptors the process has beyond those it holds at start. */
export function defaultCap(limit: number | null, baseline: number): number {
  if (limit === null) return 10_000;
  return Math.max(16, Math.floor((limit - baseline) * 0.75));
}

/** The gate's figures, in shared memory so that /health on any thread reads the main thread's gate. */
let shared = new Int32Array(new SharedArrayBuffer(5 * 4)).fill(-1);

/** The process's figures, to hand to the front threads (main.ts), or adopted by one (front.ts). */
export function shareGateStats(buffer?: SharedArrayBuffer): SharedArrayBuffer {
  if (buffer !== undefined) shared = new Int32Array(buffer);
  return shared.buffer as SharedArrayBuffer;
}

/** /health's `connections`: null figures where no gate runs (a test's in-process service) or they cannot be counted. */
export function connectionStats(): GateStats | null {
  const v = shared;
  if (Atomics.load(v, 1) < 0) return null;
  const open = Atomics.load(v, 0), limit = Atomics.load(v, 2);
  return { open_connections: open < 0 ? null : open, max_connections: Atomics.load(v, 1), descriptor_limit: limit < 0 ? null : limit, paused: Atomics.load(v, 3) === 1, pauses: Atomics.load(v, 4) };
}

export interface GateStats {
  /** Descriptors beyond those held at start: the open connections, give or take a few files. */
  open_connections: number | null;
  max_connections: number;
  descriptor_limit: number | null;
  /** True while the listening sockets are closed because the cap was reached. */
  paused: boolean;
  /** Times the cap was reached. */
  pauses: number;
}

/** Checks often enough that a burst of connects cannot cover the margin left below the limit; less often where counting means listing. */
const CHECK_MS = 50;
const CHECK_MS_LISTING = 250;

export class ConnectionGate {
  private paused = false;
  private pauses = 0;
  private last: number | null = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  readonly limit = descriptorLimit();
  readonly baseline = openDescriptors() ?? 0;

  constructor(readonly cap: number, private readonly listeners: { pause(): void; resume(): void }) {}

  start(): void {
    const cheap = (() => { try { return fdDirSize() > 0; } catch { return false; } })();
    const tick = (): void => {
      const t0 = performance.now();
      this.check();
      // Listing costs with the count (1.5 ms a thousand): spend at most about 5% of this thread on it.
      const delay = cheap ? CHECK_MS : Math.max(CHECK_MS_LISTING, 20 * (performance.now() - t0));
      this.timer = setTimeout(tick, delay);
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopped = true;
  }

  check(): void {
    if (this.stopped) return;
    const n = openDescriptors();
    this.last = n === null ? null : n - this.baseline;
    // Counting failed: most likely out of descriptors, which is past any cap.
    const over = this.last === null || this.last >= this.cap;
    if (over && !this.paused) {
      this.paused = true;
      this.pauses++;
      this.listeners.pause();
    } else if (this.paused && this.last !== null && this.last < Math.floor(this.cap * 0.9)) {
      this.paused = false;
      this.listeners.resume();
    }
    this.publish();
  }

  private publish(): void {
    const v = shared;
    Atomics.store(v, 0, this.last ?? -1);
    Atomics.store(v, 1, this.cap);
    Atomics.store(v, 2, this.limit ?? -1);
    Atomics.store(v, 3, this.paused ? 1 : 0);
    Atomics.store(v, 4, this.pauses);
  }

  stats(): GateStats {
    return { open_connections: this.last, max_connections: this.cap, descriptor_limit: this.limit, paused: this.paused, pauses: this.pauses };
  }
}
