// The only place JSON bodies are built. Both services answer in this shape;
// the school service simply never sets provenance or suggestions.

import { ByteWriter } from '../bytes/byte-writer.js';
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
  const head = `{"status":${JSON.stringify(env.status)},"data":`;
  const tail = [`,"error":${JSON.stringify(env.error)},"meta":`, JSON.stringify(env.meta), ',"provenance":', JSON.stringify(env.provenance), ',"suggestions":', JSON.stringify(env.suggestions), '}'];
  if (!(env.data instanceof JsonRows)) return `${head}${JSON.stringify(env.data)}${tail.join('')}`;
  // One buffer for the body: the rows are written into it, not into one of their own and copied; the
  // pieces after them are written one by one, not joined into a string that would be flattened first.
  let size = head.length + env.data.size;
  for (const piece of tail) size += Buffer.byteLength(piece);
  const w = new ByteWriter(size);
  w.text(head);
  env.data.write(w);
  for (const piece of tail) w.text(piece);
  return w.written();
}

/** The serialized envelope as text, for callers that want a string (the CLI, tests). */
export function serializeText(env: Envelope): string {
  const body = serialize(env);
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}
