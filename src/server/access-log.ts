// One JSON line per request on stdout. Query values are deliberately not
// logged: only the route path.
//
// A log must never hold the server up or grow its memory: stdout may be a
// pipe that nobody reads (a stalled collector, a FIFO). Node writes a pipe on
// stdout synchronously on Linux (the main thread would block, and the school
// service with it), and a worker thread's stdout is a queue in memory. So each
// thread writes its own non-blocking descriptor of stdout (reopened through
// /proc/self/fd/1; see openStdout for files and where that is refused),
// keeps at most ACCESS_LOG_BUFFER bytes of lines that the pipe would not
// take, and drops (and counts) lines past that. Lines go out
// in writes of whole lines of at most PIPE_BUF bytes, which a pipe takes
// whole or not at all, so the threads' lines never interleave.

import { closeSync, constants, fstatSync, openSync, write, writeSync } from 'node:fs';

export interface LogEntry {
  requestId: string;
  method: string;
  path: string;
  status: number;
  started: number;
  bytes: number;
  aborted?: boolean;
}

/** Bytes of lines a thread keeps while stdout does not take them. */
export const ACCESS_LOG_BUFFER = 1 << 20;
const PIPE_BUF = 4096;
const RETRY_MS = 50;

/** Dropped lines, shared by every thread of the process when the main thread shares them (shareLogCounters). */
let counters = new BigInt64Array(new SharedArrayBuffer(8));

/** The process's counters, to hand to the front threads (main.ts), or adopted by one (front.ts). */
export function shareLogCounters(shared?: SharedArrayBuffer): SharedArrayBuffer {
  if (shared !== undefined) counters = new BigInt64Array(shared);
  return counters.buffer as SharedArrayBuffer;
}

export function accessLogStats(): { dropped_lines: number; buffered_bytes: number; buffer_bytes: number } {
  return { dropped_lines: Number(Atomics.load(counters, 0)), buffered_bytes: sink?.buffered ?? 0, buffer_bytes: ACCESS_LOG_BUFFER };
}

/**
 * Lines on their way to stdout, at most ACCESS_LOG_BUFFER bytes of them. Written synchronously to a
 * descriptor that never blocks (a non-blocking pipe, or a regular file), or, where no such descriptor can
 * be had, by one asynchronous write at a time, on libuv's thread pool, so a stalled reader holds at most
 * that thread, never this one.
 */
class Sink {
  private readonly pending: Buffer[] = [];
  buffered = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing = false;

  constructor(private readonly fd: number, private readonly async: boolean) {}

  write(line: string): void {
    let bytes = Buffer.from(line);
    if (this.buffered === 0) {
      const took = this.tryWrite(bytes);
      if (took === bytes.length) return;
      bytes = bytes.subarray(took);
    }
    if (this.buffered + bytes.length > ACCESS_LOG_BUFFER) { Atomics.add(counters, 0, 1n); return; }
    this.pending.push(bytes);
    this.buffered += bytes.length;
    this.schedule();
  }

  /** Bytes the descriptor took (or an asynchronous write took over): all, none (full, or a write under way), or part. */
  private tryWrite(b: Buffer): number {
    if (this.async) {
      if (this.writing) return 0;
      this.writing = true;
      write(this.fd, b, (err, n) => {
        this.writing = false;
        // stdout is gone (EPIPE: the reader closed): the line is dropped rather than a request failed.
        if (err) Atomics.add(counters, 0, 1n);
        else if (n < b.length) this.requeue(b.subarray(n));
        this.flush();
      });
      return b.length;
    }
    try {
      return writeSync(this.fd, b);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return 0;
      Atomics.add(counters, 0, 1n);
      return b.length;
    }
  }

  private requeue(rest: Buffer): void {
    this.pending.unshift(rest);
    this.buffered += rest.length;
  }

  private schedule(): void {
    // An asynchronous write under way flushes when it completes.
    if (this.timer !== undefined || (this.async && this.writing)) return;
    this.timer = setTimeout(() => { this.timer = undefined; this.flush(); }, RETRY_MS);
    this.timer.unref();
  }

  private flush(): void {
    while (this.pending.length > 0) {
      // Whole lines up to PIPE_BUF in one write, so another thread's line never lands inside one of ours.
      let n = 0, size = 0;
      while (n < this.pending.length && (n === 0 || size + this.pending[n]!.length <= PIPE_BUF)) size += this.pending[n++]!.length;
      const batch = n === 1 ? this.pending[0]! : Buffer.concat(this.pending.slice(0, n), size);
      const took = this.tryWrite(batch);
      if (took === 0) { this.schedule(); return; }
      this.pending.splice(0, n);
      this.buffered -= size;
      if (took < size) this.requeue(batch.subarray(took));
    }
  }
}

/**
 * How this thread writes stdout. A regular file is written as it is (fd 1, whose offset the process's
 * other lines share; a file does not stall). A pipe or terminal is reopened non-blocking through
 * /proc/self/fd/1. Where that is refused (a pipe owned by another user, as in a container run as a
 * user other than root) or there is no /proc, writes go one at a time, asynchronously.
 * CIVICSTREAM_LOG_SINK=async asks for that last way (the test of it).
 */
function openStdout(): { fd: number; async: boolean; own: boolean } {
  if (process.env.CIVICSTREAM_LOG_SINK === 'async') return { fd: 1, async: true, own: false };
  try {
    if (fstatSync(1).isFile()) return { fd: 1, async: false, own: false };
    return { fd: openSync('/proc/self/fd/1', constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK | constants.O_NOCTTY), async: false, own: true };
  } catch {
    return { fd: 1, async: true, own: false };
  }
}

let sink: Sink | undefined;

function emit(line: string): void {
  if (sink === undefined) {
    const { fd, async, own } = openStdout();
    sink = new Sink(fd, async);
    if (own) process.once('exit', () => { try { closeSync(fd); } catch { /* closing at exit */ } });
  }
  sink.write(line);
}

export function logRequest(service: { name: string; accessLog: boolean }, e: LogEntry): void {
  if (!service.accessLog) return;
  emit(
    `${JSON.stringify({
      time: new Date().toISOString(),
      service: service.name,
      request_id: e.requestId,
      method: e.method.toUpperCase(),
      path: e.path.length > 200 ? e.path.slice(0, 200) : e.path,
      status: e.status,
      duration_ms: Math.round((performance.now() - e.started) * 1000) / 1000,
      bytes: e.bytes,
      ...(e.aborted ? { aborted: true } : {}),
    })}\n`,
  );
}
