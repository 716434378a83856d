// The only place JSON bodies are built. Both services answer in this shape;
// the school service simply never sets provenance or suggestions.

import type { ApiError } from './errors.js';

export interface Meta {
  version: 'v1';
  [key: string]: unknown;
}

export interface Envelope {
  status: 'success' | 'error';
  data: unknown[] | null;
  error: string | null;
  meta: Meta;
  provenance: Record<string, unknown> | null;
  suggestions: unknown[];
}

export function ok(
  data: unknown[],
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
