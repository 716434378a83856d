// A write to a Node stream that waits while the stream is full, for files
// written piece by piece (the export's CSV, the bulk build's .csv.gz). A
// stream that has failed refuses every write after (write() is false) and
// sends neither 'drain' nor 'error' again: a writer that waits for a drain
// after a failure it did not see waits for ever, its file and its memory held.
// So the stream's own record of its failure is read before waiting.

import type { Writable } from 'node:stream';

const failure = (s: Writable): Error | null => s.errored ?? (s.destroyed || s.writableEnded ? new Error('the file stream is closed') : null);

/** Writes chunk; resolves once the stream can take more, rejects with its failure (one before this write, or while waiting). */
export function writeDrained(s: Writable, chunk: Uint8Array | string): Promise<void> {
  const before = failure(s);
  if (before !== null) return Promise.reject(before);
  if (s.write(chunk)) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    // The listeners all go when one fires, so none piles up over a long file. A stream destroyed while the write
    // waits (its writer given up elsewhere) closes with no drain and, destroyed without a cause, no error.
    const off = (): void => { s.off('drain', ok).off('error', failed).off('close', closed); };
    const ok = (): void => { off(); resolve(); };
    const failed = (e: Error): void => { off(); reject(e); };
    const closed = (): void => { off(); reject(s.errored ?? new Error('the file stream closed while a write waited')); };
    s.once('drain', ok).once('error', failed).once('close', closed);
  });
}
