// One JSON line per request on stdout. Query values are deliberately not
// logged: only the route path.
//
// A log must never hold the server up or grow its memory: stdout may be a
// pipe that nobody reads (a stalled collector, a FIFO). Node writes a pipe on
// stdout synchronously on Linux (the main thread would block, and the school
// service with it), and a worker thread's stdout is a queue in memory. So each
// thread writes its own non-blocking descriptor of stdout (reopened through
// /proc/self/fd/1), keeps at most ACCESS_LOG_BUFFER bytes of lines that the
// pipe would not take, and drops (and counts) lines past that. Lines go out
// in writes of whole lines of at most PIPE_BUF bytes, which a pipe takes
// whole or not at all, so the threads' lines never interleave.

import { closeSync, constants, openSync, writeSync } from 'node:fs';

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

class Sink {
  private readonly pending: Buffer[] = [];
  buffered = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly fd: number) {}

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

  /** Bytes the descriptor took: all, none (full: EAGAIN), or, for a write past PIPE_BUF, part. */
  private tryWrite(b: Buffer): number {
    try {
      return writeSync(this.fd, b);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return 0;
      // stdout is gone (EPIPE: the reader closed): drop the line rather than fail a request.
      Atomics.add(counters, 0, 1n);
      return b.length;
    }
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
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
      if (took < size) {
        const rest = batch.subarray(took);
        this.pending.unshift(rest);
        this.buffered += rest.length;
      }
    }
  }
}

/** A non-blocking descriptor of stdout, or null where it cannot be reopened (not Linux, a socket). */
function openStdout(): number | null {
  try {
    return openSync('/proc/self/fd/1', constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK);
  } catch {
    return null;
  }
}

let sink: Sink | undefined;
let fallback = false;

function emit(line: string): void {
  if (sink === undefined && !fallback) {
    const fd = openStdout();
    if (fd === null) fallback = true;
    else {
      sink = new Sink(fd);
      process.once('exit', () => { try { closeSync(fd); } catch { /* closing at exit */ } });
    }
  }
  if (sink !== undefined) { sink.write(line); return; }
  // Elsewhere: Node's stream, with the same bound on what it may hold.
  if (process.stdout.writableLength + line.length > ACCESS_LOG_BUFFER) { Atomics.add(counters, 0, 1n); return; }
  process.stdout.write(line);
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
