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
    // Each listener goes when the other fires, so none piles up over a long file.
    const ok = (): void => { s.off('error', failed); resolve(); };
    const failed = (e: Error): void => { s.off('drain', ok); reject(e); };
    s.once('drain', ok).once('error', failed);
  });
}
