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
  // The body stays where it was written: the slab moves past it (8-aligned), unless it outgrew its room.
  if (w.buf === room) slabAt += (w.n + 7) & ~7;
  return w.written();
}

/**
 * Bodies are written into a slab per thread, one after the other, not each into a buffer of its own (a fresh
 * ArrayBuffer is a microsecond or two of allocation and GC bookkeeping an answer). A slab is never written
 * twice: a new one replaces it when full, and the old lives on while a body in it does (bodies are views,
 * and whoever keeps one copies it). A body larger than a quarter slab gets a buffer of its own.
 */
function bodyRoom(size: number): Uint8Array {
  if (size > SLAB >> 2) return Buffer.allocUnsafeSlow(size);
  if (slabAt + size > SLAB) { slab = Buffer.allocUnsafeSlow(SLAB); slabAt = 0; }
  return slab.subarray(slabAt, slabAt + size);
}
const SLAB = 512 * 1024;
let slab = Buffer.allocUnsafeSlow(SLAB), slabAt = 0;

const HEAD_ROOM = 32, TAIL_SLACK = 256;
/** Room for what follows the rows (meta, provenance, suggestions): per thread, from the answers before. */
let tailRoom = 4096;

/** The serialized envelope as text, for callers that want a string (the CLI, tests). */
export function serializeText(env: Envelope): string {
  const body = serialize(env);
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}
