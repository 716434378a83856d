// The only place JSON bodies are built. Both services answer in this shape;
// the school service simply never sets provenance or suggestions.

import { ByteWriter } from '../bytes/byte-writer.js';
import { writeJson } from '../bytes/json-value.js';
import type { ApiError } from './errors.js';

export interface Meta {
  version: 'v1';
  [key: string]: unknown;
}

/**
 * Rows that write themselves as a JSON array in UTF-8 (from result columns,
 * without row objects): the serializer has them write `data` straight into
 * the body, and the whole body goes out as bytes. Tests and handlers that
 * need the rows as values can still parse them (serializeText).
 */
export class JsonRows {
  /** write: the rows into w; size: room they typically fit in. */
  constructor(readonly write: (w: ByteWriter) => void, readonly length: number, readonly size: number) {}
}

export interface Envelope {
  status: 'success' | 'error';
  data: unknown[] | JsonRows | null;
  error: string | null;
  meta: Meta;
  provenance: Record<string, unknown> | null;
  suggestions: unknown[];
}

export function ok(
  data: unknown[] | JsonRows,
  meta: Record<string, unknown> = {},
  provenance: Record<string, unknown> | null = null,
  suggestions: unknown[] = [],
): Envelope {
  return { status: 'success', data, error: null, meta: { ...meta, version: 'v1' }, provenance, suggestions };
}

/**
 * ok() for a meta the caller made for this envelope alone, version already in its place: taken as it is, not
 * copied (one object fewer an answer).
 */
export function okWithMeta(data: unknown[] | JsonRows, meta: Meta, provenance: Record<string, unknown> | null, suggestions: unknown[]): Envelope {
  return { status: 'success', data, error: null, meta, provenance, suggestions };
}

export function fail(err: ApiError, requestId?: string): Envelope {
  const meta: Meta = { version: 'v1', error_code: err.code };
  if (requestId !== undefined) meta.request_id = requestId;
  return { status: 'error', data: null, error: err.message, meta, provenance: null, suggestions: [] };
}

/**
 * The envelope as JSON, keys in the spec's order: UTF-8 bytes when its rows
 * write bytes (JsonRows), else text. The bytes may be a view of a larger
 * buffer: a caller that keeps them copies them.
 */
export function serialize(env: Envelope): string | Uint8Array {
  if (!(env.data instanceof JsonRows)) {
    return `{"status":${JSON.stringify(env.status)},"data":${JSON.stringify(env.data)},"error":${JSON.stringify(env.error)},"meta":${JSON.stringify(env.meta)},"provenance":${JSON.stringify(env.provenance)},"suggestions":${JSON.stringify(env.suggestions)}}`;
  }
  // One buffer for the body, sized once: the rows' own estimate and room for the rest as large as the largest
  // of late (no pass to measure it). Everything is written into it as bytes (json-value.ts), not made into
  // strings that would be sized and encoded again, and the parts fixed per corpus are copied as bytes.
  const room = bodyRoom(HEAD_ROOM + env.data.size + tailRoom);
  const w = new ByteWriter(room);
  w.text('{"status":');
  writeJson(w, env.status);
  w.text(',"data":');
  env.data.write(w);
  const at = w.n;
  w.text(',"error":');
  writeJson(w, env.error);
  w.text(',"meta":');
  writeJson(w, env.meta);
  w.text(',"provenance":');
  writeJson(w, env.provenance);
  w.text(',"suggestions":');
  writeJson(w, env.suggestions);
  w.byte(0x7d);
  const tail = w.n - at;
  // The largest tail of late, shrinking by 1/64 an answer toward smaller ones, so one large answer does not size every later one.
  tailRoom = Math.max(tail + TAIL_SLACK, tailRoom - (tailRoom >> 6));
  // A body in the slab stays where it was written: the slab moves past it (8-aligned) and lends it, unless it
  // outgrew its room. A body of its own moves nothing (it once moved the slab past its end, and a new slab was made).
  if (w.buf === room && room.buffer === slab.buffer) { slabAt += (w.n + 7) & ~7; slabLent++; }
  return w.written();
}

/**
 * Bodies are written into a slab per thread, one after the other, not each into a buffer of its own (a fresh
 * ArrayBuffer is a microsecond or two of allocation and GC bookkeeping an answer, and its memory is cold).
 * A body is lent: whoever reads it last gives it back (releaseBody) once it is sent or copied. When every
 * body written into the slab is back, the next is written from its start again, so a thread that sends its
 * answers as it makes them writes them all into the same few hot cache lines (issue 32: all categories of
 * one government, about 220 KB, 0.89 of the CPU an answer served). A body never given back (the in-process
 * callers that keep it, an answer its client left) only keeps the slab from being written again: when it
 * fills, a new one replaces it and the old lives on while a body in it does. A body larger than a quarter
 * slab gets a buffer of its own.
 */
function bodyRoom(size: number): Uint8Array {
  if (size > SLAB >> 2) return Buffer.allocUnsafeSlow(size);
  if (slabAt + size > SLAB) { slab = Buffer.allocUnsafeSlow(SLAB); slabAt = 0; slabLent = 0; }
  return slab.subarray(slabAt, slabAt + size);
}
const SLAB = 2 << 20;
let slab = Buffer.allocUnsafeSlow(SLAB), slabAt = 0;
/** Bodies written into this slab and not given back yet. */
let slabLent = 0;

/**
 * A body serialize() made, given back by the last that reads it: the server once uWS has taken it (uWS
 * copies what it does not send at once), the compression stage once it has compressed or copied it, the
 * response cache's store once it has copied it, inject once it has copied it. Any other body (a string, a
 * buffer of its own, a cached copy, a body of an earlier slab) is no body of this slab: nothing happens.
 * Each body is given back once at most (a second time would let the slab be written under a body still lent).
 */
export function releaseBody(body: string | Uint8Array): void {
  if (typeof body === 'string' || body.buffer !== slab.buffer || slabLent === 0) return;
  if (--slabLent === 0) slabAt = 0;
}

/** The slab's state, for tests: where the next body goes, and how many are lent. */
export const slabState = (): { at: number; lent: number; buffer: ArrayBufferLike } => ({ at: slabAt, lent: slabLent, buffer: slab.buffer });

const HEAD_ROOM = 32, TAIL_SLACK = 256;
/** Room for what follows the rows (meta, provenance, suggestions): per thread, from the answers before. */
let tailRoom = 4096;

/** The serialized envelope as text, for callers that want a string (the CLI, tests). */
export function serializeText(env: Envelope): string {
  const body = serialize(env);
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}
