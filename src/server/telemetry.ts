// The numbers /metrics reports, kept where every thread of the process can
// read them: one board (a SharedArrayBuffer) per service, one slot of it per
// thread that serves it. A thread writes only its own slot, as it answers;
// the thread that answers a scrape sums every slot (metrics.ts). So a scrape
// on any front thread reports the whole process, waits for no other thread
// (a busy or stuck one is read as it last wrote), and costs a pass over a few
// hundred kilobytes at most.
//
// Counters (requests, bytes, cache lookups, refusals) and the requests and
// streams in flight are written as each request starts and ends, so they
// move by exactly the requests sent. A thread's pool figures and gauges
// (pool queue, page slots, event-loop lag, heap) are written by its sampler
// each second, and by the answering thread for itself at the scrape.
//
// Cells are float64: one writer per slot, and aligned 8-byte stores are
// whole on the 64-bit machines Node runs on, so a reader never sees half of
// one; Atomics (integers only) are not needed for one writer.

import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';
import { FORMAT_IDS, FORMATS } from './formats.js';

/** The OpenTelemetry HTTP server duration buckets (seconds), as its semantic conventions advise. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] as const;
export const METHODS = ['GET', 'HEAD', 'OPTIONS', 'other'] as const;
/** A status class, or 'aborted': the client left before the answer ended (no status reached it whole). */
export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'aborted'] as const;
/** Bytes sent are counted by body format: each answer format of the registry, then a gzip file (a bulk .csv.gz), text and the rest. */
export const BODY_FORMATS: readonly string[] = [...FORMAT_IDS, 'gzip', 'text', 'other'];
export const ENCODINGS = ['identity', 'gzip', 'br', 'zstd'] as const;
/** Route series per service: its routes, then 'asset' (the docs and explorer files) and 'unmatched' (no route, or refused before one). */
export const MAX_ROUTES = 64;
export const ROUTE_ASSET = -2;
export const ROUTE_UNMATCHED = -1;

/** The scalar cells of a slot, in order. */
export const SCALARS = [
  'inFlight', 'openStreams', 'poolWaiting', 'poolJobs', 'poolWorkers', 'poolCapacity', 'jobsInline', 'jobsPool', 'workerBusySeconds',
  'slotsInUse', 'slotsTotal', 'loopP99', 'loopMean', 'loopMax', 'heapUsed', 'heapTotal', 'cacheHit', 'cacheMiss', 'refused429', 'refused503', 'refused504', 'live', 'threadId',
] as const;
export type Scalar = (typeof SCALARS)[number];
const AT = Object.fromEntries(SCALARS.map((s, i) => [s, i])) as Record<Scalar, number>;

const SERIES_CELLS = DURATION_BUCKETS.length + 2; // each bucket's own count, the +Inf one, then the sum of seconds
const BYTES_AT = SCALARS.length;
const HIST_AT = BYTES_AT + BODY_FORMATS.length * ENCODINGS.length;
const ROUTE_SERIES = MAX_ROUTES + 2;
export const SLOT_CELLS = HIST_AT + ROUTE_SERIES * METHODS.length * STATUS_CLASSES.length * SERIES_CELLS;

/** What a service's thread reports of itself besides requests (its pool and page slots), read by its sampler. */
export interface ServiceSample {
  poolWaiting?: number;
  poolJobs?: number;
  poolWorkers?: number;
  poolCapacity?: number;
  jobsInline?: number;
  jobsPool?: number;
  workerBusySeconds?: number;
  slotsInUse?: number;
  slotsTotal?: number;
}

/** The process's boards, by service name, and the thread slot count of each: made by the main thread, adopted by the front threads. */
export type Boards = Record<string, SharedArrayBuffer>;

let boards: Boards = {};
let threadSlot = 0;
const recorders = new Map<string, Telemetry>();

/** A board for `slots` threads. */
export const newBoard = (slots: number): SharedArrayBuffer => new SharedArrayBuffer(slots * SLOT_CELLS * 8);

/**
 * The process's boards, to hand to the front threads (main.ts), or adopted by one with its slot (front.ts).
 * A service without a board (a test's in-process service) gets one of a single slot when first recorded.
 */
export function shareBoards(shared?: Boards, slot?: number): Boards {
  if (shared !== undefined) { boards = shared; recorders.clear(); }
  if (slot !== undefined) threadSlot = slot;
  return boards;
}

/** This thread's recorder for a service. */
export function telemetry(service: string): Telemetry {
  let t = recorders.get(service);
  if (t === undefined) {
    const board = boards[service] ?? (boards[service] = newBoard(1));
    // A slot past the board would share another thread's cells (lost counts): a wiring fault, refused.
    if (board.byteLength / (SLOT_CELLS * 8) <= threadSlot) throw new Error(`telemetry: the ${service} board has no slot ${threadSlot}`);
    recorders.set(service, (t = new Telemetry(board, threadSlot)));
  }
  return t;
}

const METHOD_INDEX: Record<string, number> = { get: 0, head: 1, options: 2 };
const CLASS_OF = (status: number): number => (status < 100 || status > 599 ? 5 : Math.floor(status / 100) - 1);

/** The body format each media type (without parameters) is counted under: the registry's formats', then the others. */
const BODY_FORMAT_OF = new Map<string, number>([
  ...FORMAT_IDS.map((f, i) => [FORMATS[f].openapiType, i] as const),
  ['application/gzip', BODY_FORMATS.indexOf('gzip')], ['text/plain', BODY_FORMATS.indexOf('text')], ['text/markdown', BODY_FORMATS.indexOf('text')],
]);
const OTHER_BODY = BODY_FORMATS.indexOf('other');

/** The body format a content type is counted under. */
export const bodyFormat = (contentType: string): number => BODY_FORMAT_OF.get(contentType.slice(0, contentType.indexOf(';') >>> 0)) ?? OTHER_BODY;
const ENCODING_INDEX: Record<string, number> = { gzip: 1, br: 2, zstd: 3 };

/** One thread's writer of one service's slot. */
export class Telemetry {
  readonly cells: Float64Array;
  private readonly base: number;

  constructor(readonly board: SharedArrayBuffer, slot: number) {
    this.cells = new Float64Array(board);
    this.base = slot * SLOT_CELLS;
    this.cells[this.base + AT.live] = 1;
    // Which thread writes the slot: /health names each thread's figures by it (thread-view.ts).
    this.cells[this.base + AT.threadId] = threadId;
  }

  /** A request ended: route index (or ROUTE_ASSET, ROUTE_UNMATCHED), method as uWS gives it, status (0: aborted), duration, body bytes sent. */
  request(route: number, method: string, status: number, seconds: number, contentType: string, encoding: string | undefined, bytes: number): void {
    const c = this.cells, b = this.base;
    const r = route === ROUTE_UNMATCHED ? MAX_ROUTES + 1 : route === ROUTE_ASSET ? MAX_ROUTES : Math.min(route, MAX_ROUTES + 1);
    const series = b + HIST_AT + ((r * METHODS.length + (METHOD_INDEX[method] ?? 3)) * STATUS_CLASSES.length + CLASS_OF(status)) * SERIES_CELLS;
    let k = 0;
    while (k < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[k]!) k++;
    c[series + k]!++;
    c[series + SERIES_CELLS - 1]! += seconds;
    if (bytes > 0) c[b + BYTES_AT + bodyFormat(contentType) * ENCODINGS.length + (encoding === undefined ? 0 : ENCODING_INDEX[encoding] ?? 0)]! += bytes;
    if (status === 429) c[b + AT.refused429]!++;
    else if (status === 503) c[b + AT.refused503]!++;
    else if (status === 504) c[b + AT.refused504]!++;
  }

  /** A request began (+1) or was answered to its end or left (-1); a stream began or ended: this service's, exact. */
  inFlight(delta: number): void {
    this.cells[this.base + AT.inFlight]! += delta;
  }

  streams(delta: number): void {
    this.cells[this.base + AT.openStreams]! += delta;
  }

  cache(hit: boolean): void {
    this.cells[this.base + (hit ? AT.cacheHit : AT.cacheMiss)]!++;
  }

  set(name: Scalar, value: number): void {
    this.cells[this.base + AT[name]] = value;
  }

  /** Writes this thread's gauges: the service's own figures, then the thread's (the event loop, the heap). */
  publish(s: ServiceSample, thread: ThreadSample): void {
    for (const k in s) this.set(k as Scalar, s[k as keyof ServiceSample]!);
    this.set('loopP99', thread.loopP99);
    this.set('loopMean', thread.loopMean);
    this.set('loopMax', thread.loopMax);
    this.set('heapUsed', thread.heapUsed);
    this.set('heapTotal', thread.heapTotal);
  }
}

/** Reads a board: the slots, each scalar, and the sums of the counters over every slot. */
export class BoardReader {
  private readonly cells: Float64Array;
  readonly slots: number;

  constructor(board: SharedArrayBuffer) {
    this.cells = new Float64Array(board);
    this.slots = board.byteLength / (SLOT_CELLS * 8);
  }

  /** Slot `s`'s scalar, or null when that thread never started. */
  scalar(s: number, name: Scalar): number | null {
    return this.cells[s * SLOT_CELLS + AT.live] === 1 ? this.cells[s * SLOT_CELLS + AT[name]]! : null;
  }

  /** A scalar summed over the live slots. */
  sum(name: Scalar): number {
    let n = 0;
    for (let s = 0; s < this.slots; s++) n += this.scalar(s, name) ?? 0;
    return n;
  }

  /** Bytes sent of format f in encoding e, over every slot. */
  bytes(f: number, e: number): number {
    let n = 0;
    for (let s = 0; s < this.slots; s++) n += this.cells[s * SLOT_CELLS + BYTES_AT + f * ENCODINGS.length + e]!;
    return n;
  }

  /** A duration series summed over the slots: each bucket's own count (the last +Inf), then the sum of seconds. */
  series(route: number, method: number, cls: number): Float64Array {
    const out = new Float64Array(SERIES_CELLS);
    const at = HIST_AT + ((route * METHODS.length + method) * STATUS_CLASSES.length + cls) * SERIES_CELLS;
    for (let s = 0; s < this.slots; s++) for (let k = 0; k < SERIES_CELLS; k++) out[k]! += this.cells[s * SLOT_CELLS + at + k]!;
    return out;
  }

  /** True when any request of this route ended on any slot (a cheap look before the series are summed). */
  routeSeen(route: number): boolean {
    const span = METHODS.length * STATUS_CLASSES.length * SERIES_CELLS;
    for (let s = 0; s < this.slots; s++) {
      const at = s * SLOT_CELLS + HIST_AT + route * span;
      for (let k = 0; k < span; k++) if (this.cells[at + k] !== 0) return true;
    }
    return false;
  }
}

export const ROUTE_SERIES_COUNT = ROUTE_SERIES;

/** What a thread reports of itself, whichever service. */
export interface ThreadSample {
  loopP99: number;
  loopMean: number;
  loopMax: number;
  heapUsed: number;
  heapTotal: number;
}

/**
 * The event loop's delay on this thread, over the last sampling second: one monitor per thread (both services
 * of the main thread read it), reset by the sampler only, so a scrape between two ticks reads the last second's.
 */
let loop: IntervalHistogram | undefined;
const LOOP_RESOLUTION_MS = 10;
let lastLoop = { p99: 0, mean: 0, max: 0 };

let lastReset = 0;

export function loopDelay(reset: boolean): { p99: number; mean: number; max: number } {
  if (loop === undefined) { loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS }); loop.enable(); }
  // The main thread samples for both of its services: the second sampler of a second reads the first's figures.
  if (!reset || performance.now() - lastReset < 900) return lastLoop;
  lastReset = performance.now();
  // Nanoseconds to seconds, less the sampling interval itself (each sample is the time between two timer
  // turns, so an idle loop reads the resolution); a histogram with no sample yet reads NaN for its mean.
  const lag = (ns: number): number => (Number.isFinite(ns) ? Math.max(0, ns / 1e9 - LOOP_RESOLUTION_MS / 1000) : 0);
  lastLoop = { p99: lag(loop.percentile(99)), mean: lag(loop.mean), max: lag(loop.max) };
  loop.reset();
  return lastLoop;
}
