// The render stage: one renderer per format, in a registry, in the manner of
// Datasette's output renderers. A handler's reply names what it holds (an
// envelope, rows streamed in a declared format, or a document); the render
// stage turns it into an answer with the format's media type (src/formats/registry.ts).
// Routes declare the formats they offer, their `format` parameter is made
// from that list, and OpenAPI lists the media types. Compression is the
// stage after this one (compress.ts), over the answer's bytes.

import type { Answer } from './answer.js';
import { NOTHING } from './answer.js';
import { serialize, type Envelope } from './envelope.js';
import type { Reply } from './route-spec.js';
import type { ResponseCache } from './response-cache.js';
import { FORMATS, type Format } from './formats.js';

export const JSON_TYPE = FORMATS.json.mediaType;
export const CSV_TYPE = FORMATS.csv.mediaType;

/** What the render stage needs beyond the reply: the answer's validators and where a 200 envelope is cached. */
export interface RenderContext {
  /** ETag and Cache-Control of a cacheable route's 200 answer; sent on nothing else. */
  validators: Record<string, string> | undefined;
  /** The response-cache key of a cacheable route, or null. */
  cacheKey: string | null;
  cache: ResponseCache | undefined;
  /** True when the client left or the answer was given already: nothing is rendered. */
  gone: boolean;
  /** The formats the route declares: a reply in another is a bug in the route, answered 500. */
  formats: readonly Format[];
}

/** The JSON renderer: the envelope serialized (bytes when its rows write bytes), marked for the cache when it may be kept. */
export function renderEnvelope(status: number, env: Envelope, headers: Record<string, string> | undefined, rc: RenderContext): Answer {
  // The client left, or the time budget answered already: the body would be thrown away unwritten.
  if (rc.gone) return NOTHING;
  const body = serialize(env);
  if (status === 200 && rc.cacheKey !== null && headers === undefined) {
    return { kind: 'bytes', status, contentType: JSON_TYPE, body, headers: { ...rc.validators }, keep: true };
  }
  return { kind: 'bytes', status, contentType: JSON_TYPE, body, headers: status === 200 ? { ...headers, ...rc.validators } : headers };
}

/** A handler's reply as an answer, by what it holds. */
export function render(reply: Reply, rc: RenderContext): Answer {
  const status = reply.status ?? 200;
  const headers = status === 200 && rc.validators !== undefined ? { ...reply.headers, ...rc.validators } : reply.headers;
  switch (reply.kind) {
    case 'envelope':
      return renderEnvelope(status, reply.envelope, reply.headers, rc);
    case 'body':
      return { kind: 'bytes', status, contentType: reply.contentType, body: reply.body, headers };
    case 'stream':
      if (!rc.formats.includes(reply.format)) {
        reply.done?.();
        throw new Error(`the route answered in ${reply.format}, which it does not declare in formats`);
      }
      return { kind: 'stream', status, contentType: FORMATS[reply.format].mediaType, headers, next: reply.next, done: reply.done, ...(reply.encoded !== undefined ? { encoded: reply.encoded } : {}) };
    case 'file':
      return { kind: 'stream', status, contentType: reply.contentType, headers, next: reply.next, done: reply.done, length: reply.length };
  }
}
