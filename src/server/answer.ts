// What the pipeline hands the transport: an answer ready to write. Bytes go
// out at once; a stream is pulled chunk by chunk as the client reads, and its
// done hook runs once, however it ends.

import type { Coding } from './encoding.js';
import { releaseBody } from './envelope.js';

export type Answer =
  | {
      kind: 'bytes';
      status: number;
      contentType: string;
      body: string | Uint8Array;
      headers?: Record<string, string>;
      /** A whole 200 envelope of a cacheable route: the store stage may keep it, as sent (pipeline.ts). */
      keep?: boolean;
      /** The connection is closed after it (Connection: close), nothing more read from it: a request whose framing cannot be known (uws-outgoing.ts). */
      close?: boolean;
    }
  | {
      kind: 'stream';
      status: number;
      contentType: string;
      headers?: Record<string, string>;
      /** The next chunk, or null at the end; a promise of it when the chunk is made off the thread (a compressor's). */
      next(): Uint8Array | null | Promise<Uint8Array | null>;
      /** Called once the stream no longer needs next(): it ended, the client left, or it was never started. */
      done?(): void;
      /**
       * The body's length when known beforehand (a file): sent as Content-Length instead of chunked, the
       * chunks adding up to exactly this many bytes (a stream that ends short or runs over is cut).
       */
      length?: number;
      /** Its chunks are in this content coding already (coded where they were written): compress.ts only says so. */
      encoded?: Coding;
    }
  /** Nothing to write: the client left (or the time budget answered) before the answer was rendered. */
  | { kind: 'none' };

export const NOTHING: Answer = { kind: 'none' };

/** Gives back what an answer holds when it will never be written (a stream's page slot). */
export function discard(answer: Answer): void {
  if (answer.kind === 'stream') answer.done?.();
  else if (answer.kind === 'bytes') releaseBody(answer.body);
}

/** Headers on every answer, whatever carries it. */
export const COMMON_HEADERS: readonly (readonly [string, string])[] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Access-Control-Allow-Origin', '*'],
  // Without this a browser script on another origin sees none of the paging or validator headers.
  ['Access-Control-Expose-Headers', 'ETag, X-Total-Count, X-Page, X-Limit, X-Units-Expected, X-Units-Reporting, X-Request-Id, X-Cache, Link, Content-Disposition, Content-Range, RateLimit, RateLimit-Policy, Retry-After'],
  // Every answer may come in a content coding (compress.ts), so a cache must key it by what was accepted.
  ['Vary', 'Accept-Encoding'],
];
