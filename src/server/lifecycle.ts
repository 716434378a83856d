// The request lifecycle of this thread: what is in flight, what is streaming,
// and the drain on shutdown. The transport counts; /health and the shutdown
// read. One set per thread (each front thread has its own).

let pending = 0;
let streamsOpen = 0;
let streamBytes = 0;
let draining = false;
let onIdle: (() => void) | null = null;

/** Requests received and not yet answered to the end (or aborted by their client). */
export const inFlight = (): number => pending;
/** Responses currently streaming (for /health: a client that leaves must not leave one behind). */
export const openStreams = (): number => streamsOpen;
/** True once drain() was called: new requests are refused with a 503 and connections closed after their answer. */
export const isDraining = (): boolean => draining;

export function requestStarted(): void {
  pending++;
}

export function requestSettled(): void {
  if (--pending === 0 && onIdle !== null) onIdle();
}

export function streamOpened(): void {
  streamsOpen++;
}

export function streamClosed(): void {
  streamsOpen--;
}

/**
 * Body bytes the stream pumps handed to the socket layer (uWS), all streams, since start. While a client
 * does not read, a pump that honours backpressure stops: this stops growing short of the body (the test
 * hook /__faults__/streams reads it; test/finance-csv-backpressure.test.ts).
 */
export const streamBytesWritten = (): number => streamBytes;
export function streamWrote(n: number): void {
  streamBytes += n;
}

/**
 * Graceful shutdown: from now on a request on a kept-alive connection gets a
 * 503 and a closed connection; the promise settles once every request already
 * in flight has been answered to its end, or after graceMs, whichever is first.
 */
export function drain(graceMs: number): Promise<'idle' | 'timeout'> {
  draining = true;
  if (pending === 0) return Promise.resolve('idle');
  return new Promise((resolve) => {
    const timer = setTimeout(() => { onIdle = null; resolve('timeout'); }, graceMs);
    onIdle = () => { clearTimeout(timer); onIdle = null; resolve('idle'); };
  });
}
