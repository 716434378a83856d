// The only place JSON bodies are built. Both services answer in this shape;
// the school service simply never sets provenance or suggestions.

import type { ApiError } from './errors.js';

export interface Meta {
  version: 'v1';
  [key: string]: unknown;
}

/**
 * Rows already written as a JSON array (from result columns, without row
 * objects): the serializer splices the text in as `data`. Tests and handlers
 * that need the rows as values can still parse it.
 */
export class JsonRows {
  constructor(readonly json: string, readonly length: number) {}
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

/** The envelope as JSON text, keys in the spec's order. */
export function serialize(env: Envelope): string {
  const data = env.data instanceof JsonRows ? env.data.json : JSON.stringify(env.data);
  return `{"status":${JSON.stringify(env.status)},"data":${data},"error":${JSON.stringify(env.error)},"meta":${JSON.stringify(env.meta)},"provenance":${JSON.stringify(env.provenance)},"suggestions":${JSON.stringify(env.suggestions)}}`;
}
