// Compressed bulk pages kept in the response cache (issue 19: repeat pulls
// from the cache at the identity speed). A coded stream's bytes are kept as
// they go out, once it ends whole, so the next pull of the same page in the
// same coding costs neither the job nor the compressor. An identity page is
// not kept: recomputing it is as fast as the wire (2.7 M rows/s), and its
// 4-9 MB would crowd the cache; its compressed bytes are 7x fewer.
//
// A hit is streamed from the kept buffer with backpressure, and takes one of
// the service's stream places (admitStream: the finance API's page slots)
// for its life, like the pull that made it, so slow readers of cached pages
// are capped as those of computed ones are (issue 23).

import type { Answer } from './answer.js';
import { chunksOf } from '../bytes/csv-writer.js';
import { apiError } from './errors.js';
import type { Kept, ResponseCache } from './response-cache.js';
import type { Service } from './service.js';

type Stream = Extract<Answer, { kind: 'stream' }>;


/**
 * Kept bodies at most this large are answered whole, as a JSON envelope is (one government's page, at most
 * 1,000 rows: no page slot); larger ones are streamed and hold a slot.
 */
export const STREAM_KEPT_ABOVE = 256 * 1024;

/**
 * The stream, its chunks gathered as they are pulled and kept under key once it ends whole and fits the
 * cache's largest entry. Whole means its end (null) came before done(): a compressor whose client left
 * also answers null to a pull in flight, and that cut-off body must never be kept.
 */
export function keepWhileStreaming(answer: Stream, cache: ResponseCache, key: string): Stream {
  const chunks: Uint8Array[] = [];
  let size = 0, over = false, cut = false;
  const gather = (c: Uint8Array | null): Uint8Array | null => {
    if (c === null) {
      if (!over && !cut) {
        cache.set(key, { body: Buffer.concat(chunks, size), headers: answer.headers, contentType: answer.contentType, stream: size > STREAM_KEPT_ABOVE });
      }
      chunks.length = 0;
    } else if (!over) {
      size += c.byteLength;
      // A chunk may be a view of a page slot or a compressor's buffer reused later: copied.
      if (size > cache.maxEntryBytes) { over = true; chunks.length = 0; } else chunks.push(Buffer.from(c));
    }
    return c;
  };
  return {
    ...answer,
    next: () => {
      const c = answer.next();
      return c instanceof Promise ? c.then(gather) : gather(c);
    },
    done: () => {
      cut = true;
      chunks.length = 0;
      answer.done?.();
    },
  };
}

/** A kept stream as an answer: streamed from its buffer while it holds one of the service's stream places (a 503 when none is free). */
export function keptStream(kept: Kept, service: Service<unknown>): Stream {
  const release = service.admitStream?.();
  if (release === null) {
    throw apiError('E_BUSY', 'keptStreams');
  }
  return { kind: 'stream', status: 200, contentType: kept.contentType!, headers: { ...kept.headers, 'X-Cache': 'hit' }, next: chunksOf(kept.body), done: release };
}
