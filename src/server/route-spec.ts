// A route is data: its path, the query keys it accepts with how each is parsed,
// documented and defaulted, and the function that answers it. Validation, the
// OpenAPI document, the docs page, llms.txt and the data dictionary are all
// derived from these declarations (src/server/validate.ts, openapi.ts, ...).

import type { Envelope } from './envelope.js';

export type JsonSchema = Record<string, unknown>;

export interface ParamSpec<Ctx = unknown, T = unknown> {
  description: string;
  /** JSON Schema of the raw query value, for OpenAPI. */
  schema: JsonSchema;
  /** Human text of what is allowed, used in docs. */
  allowed: string;
  /** Applied when the key is absent. A function when it depends on the corpus. */
  default?: T | ((ctx: Ctx) => T);
  /** Text of the default for the docs, when it is computed. */
  defaultText?: string;
  required?: boolean;
  /** The message when a required key is missing (default: "<name> is required for <route>."). */
  requiredMessage?: string;
  example?: string;
  parse(raw: string, name: string, ctx: Ctx): T;
}

export interface FieldDoc {
  name: string;
  type: string;
  description: string;
  /** Present only when the request has this query (e.g. `adjust=real`). */
  when?: string;
}

export interface RouteRequest<Ctx> {
  params: Record<string, unknown>;
  ctx: Ctx;
  /** Host header as sent, for absolute URLs built from the request. */
  host: string;
  /** Path and query exactly as the client sent them. */
  url: string;
  signal: AbortSignal;
}

export type Reply =
  | { kind: 'envelope'; envelope: Envelope; status?: number; headers?: Record<string, string> }
  | { kind: 'body'; contentType: string; body: string | Uint8Array; status?: number; headers?: Record<string, string> }
  /**
   * A body pulled in chunks (null when done), written as the client reads it.
   * done, when given, is called once the stream no longer needs next(): it
   * ended, the client left, or it was never started.
   */
  | { kind: 'stream'; contentType: string; next: () => Uint8Array | null; done?: () => void; status?: number; headers?: Record<string, string> };

export interface RouteSpec<Ctx> {
  id: string;
  /** Absolute path with `{name}` segments, e.g. `/api/v1/governments/{govid}`. */
  path: string;
  summary: string;
  description: string;
  tags: string[];
  pathParams?: Record<string, ParamSpec<Ctx>>;
  query: Record<string, ParamSpec<Ctx>>;
  /** Keys this route refuses with a specific explanation (instead of the generic unknown-key message). */
  rejects?: Record<string, string>;
  /** Cross-parameter rules, checked after every value parsed; the first failure is the answer. */
  rules?: ((params: Record<string, unknown>, ctx: Ctx) => Error | undefined)[];
  /** What the body is: the JSON envelope, or documentation text/HTML. */
  produces: 'envelope' | 'text/plain' | 'text/markdown' | 'text/html' | 'application/json';
  /** Row fields of `data`, for the docs and the data dictionary. */
  rowFields?: FieldDoc[];
  /** Its JSON answers depend only on the URL and the (immutable) data, so they may be served from the response cache. */
  cacheable?: boolean;
  /** Example calls generated from the live corpus, for /examples and the docs. */
  examples?(ctx: Ctx): { description: string; path: string }[];
  handle(req: RouteRequest<Ctx>): Promise<Reply> | Reply;
}

export const envelopeReply = (envelope: Envelope, headers?: Record<string, string>): Reply => ({ kind: 'envelope', envelope, headers });
