// A route is data: its path, the query keys it accepts with how each is parsed,
// documented and defaulted, and the function that answers it. Validation, the
// OpenAPI document, the docs page, llms.txt and the data dictionary are all
// derived from these declarations (src/server/validate.ts, openapi.ts, ...).

import type { Envelope } from './envelope.js';
import type { ApiError } from './errors.js';
import type { Coding, Encoding } from './encoding.js';
import type { Format } from './formats.js';

export type JsonSchema = Record<string, unknown>;

/** The values the request itself gave, parsed: what a default computed from its siblings may read. */
export type Given = Readonly<Record<string, unknown>>;

export interface ParamSpec<Ctx = unknown, T = unknown> {
  description: string;
  /** JSON Schema of the raw query value, for OpenAPI. */
  schema: JsonSchema;
  /** Human text of what is allowed, used in docs. */
  allowed: string;
  /**
   * Applied when the key is absent. A function when it depends on the corpus,
   * or on the values the request gave for other keys (never on their defaults).
   */
  default?: T | ((ctx: Ctx, given: Given) => T);
  /** Text of the default for the docs, when it is computed. */
  defaultText?: string;
  required?: boolean;
  /** The error when a required key is missing (default: E_MISSING's "<name> is required for <route>."). */
  missing?: () => ApiError;
  example?: string;
  /** When the key takes several values, comma-separated in one key (years, govid, category): an example of several, which the message of a key given twice shows. */
  list?: string;
  /** Free text matched literally (q, pattern): the query parser keeps the spaces around it, which it drops from every other value. */
  literal?: true;
  parse(raw: string, name: string, ctx: Ctx): T;
  /**
   * The one spelling of a value this parameter took, for the canonical request (canonical.ts): an enumeration's
   * declared value whatever case or alias was sent, a state code in capitals. Absent: the value as sent.
   */
  spell?(value: T, raw: string, ctx: Ctx): string;
}

export interface FieldDoc {
  name: string;
  type: string;
  description: string;
  /** Present only when the request has this query (e.g. `adjust=real`). */
  when?: string;
}

/** Any route's declared parameters, by name. */
export type ParamSpecs<Ctx> = Readonly<Record<string, ParamSpec<Ctx, unknown>>>;

/** The value a parameter parses to. */
export type ValueOf<S> = S extends ParamSpec<any, infer T> ? T : never;

/** A parameter always present once validated: it is required, or has a default (a type its builder declares). */
type Present<S> = S extends { required: true } ? true : S extends { default: {} } ? true : false;
type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * The validated parameters of a route, from its declarations: path values,
 * query values that are required or defaulted, and the other query values as
 * optional (`T | undefined`).
 */
export type ParamsOf<PS, QS> = Flat<
  { -readonly [K in keyof PS]: ValueOf<PS[K]> } &
  { -readonly [K in keyof QS as Present<QS[K]> extends true ? K : never]: ValueOf<QS[K]> } &
  { -readonly [K in keyof QS as Present<QS[K]> extends true ? never : K]?: ValueOf<QS[K]> }
>;

/** A cross-parameter rule over the parsed values; the first failure is the answer. */
export type ParamRule<Ctx, Q> = (params: Q, ctx: Ctx) => Error | undefined;

export interface RouteRequest<Ctx, Q = {}> {
  params: Q;
  ctx: Ctx;
  /** Host header as sent, for absolute URLs built from the request. */
  host: string;
  /** The canonical path and query (canonical.ts): the given keys in declared order, each value encoded one way. */
  url: string;
  /** A HEAD request: the answer's headers are sent, never its body, so a handler may skip work only the body needs. */
  head: boolean;
  /** The Range and If-Range headers as sent ('' when absent), for routes that serve files in byte ranges. */
  range: string;
  ifRange: string;
  /** The If-None-Match header as sent ('' when absent), for routes that answer their own validators (bulk files). */
  ifNoneMatch: string;
  /**
   * The content coding negotiated for the answer (the negotiate stage). A handler whose stream is coded where
   * it is written (a bulk page, by its worker) writes it in this coding and says so (the stream's encoded);
   * any other answer is coded by the encode stage (compress.ts).
   */
  encoding: Encoding;
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
  | {
    kind: 'stream'; format: Format; next: () => Uint8Array | null | Promise<Uint8Array | null>; done?: () => void; status?: number; headers?: Record<string, string>;
    /** Its chunks are in this content coding already (the request's encoding): the encode stage passes them through. */
    encoded?: Coding;
  }
  /**
   * A file (or a byte range of one) of its own media type, not rows in a format of the route: pulled in
   * chunks like a stream, its known length sent as Content-Length (the stream Answer's length).
   */
  | {
    kind: 'file'; contentType: string; length: number; next: () => Uint8Array | null | Promise<Uint8Array | null>; done?: () => void;
    status?: number; headers?: Record<string, string>;
  };

/** What every route declares beside its parameters and the functions that read them. */
interface RouteBase<Ctx> {
  id: string;
  /** Absolute path with `{name}` segments, e.g. `/api/v1/governments/{govid}`. */
  path: string;
  summary: string;
  description: string;
  tags: string[];
  /** Keys this route refuses with a specific explanation (instead of the generic unknown-key message). */
  rejects?: Record<string, string>;
  /** What the body is: the JSON envelope, documentation text/HTML, or files (octet-stream: each of its own media type). */
  produces: 'envelope' | 'text/plain' | 'text/markdown' | 'text/html' | 'application/json' | 'application/octet-stream';
  /**
   * The formats an envelope route answers in (src/formats/registry.ts), its default first;
   * ['json'] when absent. A route with more takes a `format` parameter made
   * from this list (render.ts formatParam), and OpenAPI lists each media type.
   */
  formats?: readonly Format[];
  /** Row fields of `data`, for the docs and the data dictionary. */
  rowFields?: FieldDoc[];
  /** Its JSON answers depend only on the URL and the (immutable) data, so they may be served from the response cache. */
  cacheable?: boolean;
  /**
   * An operator's route (/livez, /readyz, /metrics; ops-routes.ts): answered before the limits stage, so
   * while the server drains too, never rate limited, never cached.
   */
  operational?: true;
  /**
   * A page people reach by links (the landing page, the dictionary): query keys it does not declare (a
   * newsletter's utm_source, a social network's fbclid) are ignored rather than refused. Data routes refuse them.
   */
  ignoresUnknownKeys?: true;
  /** Example calls generated from the live corpus, for /examples and the docs. */
  examples?(ctx: Ctx): { description: string; path: string }[];
}

/**
 * A declared route whose handler and rules see its parameters typed as Q.
 * Routes of different Q sit in one table as RouteSpec<Ctx> (Q = any): the
 * router, the validator and the docs read only the declarations.
 */
export interface RouteSpec<Ctx, Q = any> extends RouteBase<Ctx> {
  pathParams?: ParamSpecs<Ctx>;
  query: ParamSpecs<Ctx>;
  /** Cross-parameter rules, checked after every value parsed; the first failure is the answer. */
  rules?: ParamRule<Ctx, Q>[];
  /**
   * Tokens a request costs its client (rate-stage.ts) from its validated parameters: a bulk page by the rows
   * it asks, a file by the bytes it will send (its Range, If-Range, HEAD); 1 when absent.
   */
  cost?: RouteCost<Ctx, Q>;
  handle: (req: RouteRequest<Ctx, Q>) => Promise<Reply> | Reply;
}

export type RouteCost<Ctx, Q> = (params: Q, ctx: Ctx, req: { range: string; ifRange: string; ifNoneMatch: string; method: string }) => number;

/** A route as written: Q is inferred from its parameter declarations, so handle and rules need no casts. */
export interface RouteDecl<Ctx, PS extends ParamSpecs<Ctx>, QS extends ParamSpecs<Ctx>> extends RouteBase<Ctx> {
  pathParams?: PS;
  query: QS;
  rules?: ParamRule<Ctx, NoInfer<ParamsOf<PS, QS>>>[];
  cost?: RouteCost<Ctx, NoInfer<ParamsOf<PS, QS>>>;
  handle: (req: RouteRequest<Ctx, NoInfer<ParamsOf<PS, QS>>>) => Promise<Reply> | Reply;
}

/**
 * The validated parameters of a declared route (what defineRoute inferred for its handler, rules and cost):
 * `RouteParams<typeof myRoute>`. For a handler written before its route, QueryParams over the declarations
 * the route spreads into its query.
 */
export type RouteParams<R> = R extends RouteSpec<any, infer Q> ? Q : never;

/** The parameters of a query declaration (and path declaration), as defineRoute infers them for a route declaring exactly these. */
export type QueryParams<QS, PS = {}> = ParamsOf<PS, QS>;

type KeysOfUnion<U> = U extends unknown ? keyof U : never;
type ValueIn<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U[K] : undefined) : never;
type PresentIn<U> = { [K in KeysOfUnion<U>]: undefined extends ValueIn<U, K> ? never : K }[KeysOfUnion<U>];

/**
 * What code shared by several routes may read of their parameters (a union of RouteParams): a key every
 * route gives a value is present, any other optional, its type the union of the routes' types for it.
 */
export type SharedParams<U> = Flat<
  { [K in PresentIn<U>]: ValueIn<U, K> } & { [K in Exclude<KeysOfUnion<U>, PresentIn<U>>]?: ValueIn<U, K> }
>;

/** A handler of the route declaring exactly these query (and path) parameters. */
export type HandlerOf<Ctx, QS, PS = {}> = (req: RouteRequest<Ctx, ParamsOf<PS, QS>>) => Promise<Reply> | Reply;

/**
 * Declares a route of the service of Ctx, its parameters typed from its
 * ParamSpecs (as Hono's validator types its handler):
 * `defineRoute<FinanceCtx>()({ path, query: { n: nParam }, handle: (req) => ... req.params.n ... })`.
 */
export const defineRoute = <Ctx>() =>
  <PS extends ParamSpecs<Ctx> = {}, QS extends ParamSpecs<Ctx> = {}>(spec: RouteDecl<Ctx, PS, QS>): RouteSpec<Ctx, ParamsOf<PS, QS>> => {
    // The docs' Try it out (and every default-filled call) sends a parameter's example: a required one without
    // an example would be a 400 from the docs themselves (issue 31: /draws' model). A table error, at load.
    for (const [name, p] of Object.entries(spec.query ?? {}) as [string, ParamSpec<Ctx>][]) {
      if (p.required === true && p.example === undefined) throw new Error(`route ${spec.path}: required parameter ${name} declares no example`);
    }
    return spec;
  };

export const envelopeReply = (envelope: Envelope, headers?: Record<string, string>): Reply => ({ kind: 'envelope', envelope, headers });
