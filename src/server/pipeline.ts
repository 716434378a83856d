// The request pipeline, without the transport: a straight line of named
// stages, in the manner of Fastify's lifecycle. operational -> limits -> preflight ->
// negotiate -> asset -> route -> validate -> freshness -> cache -> handle
// (within the time budget) -> render -> encode -> store. Validation comes
// before the validators and the cache because both are keyed by the canonical
// request (canonical.ts), which only a valid request has; the content coding
// is chosen first because each coding's answer has its own ETag and its own
// cache entry (the cache keeps the compressed bytes). Each stage either passes
// the request on or ends it with an answer (or an ApiError, which the error
// stage renders). The uWS adapter (http.ts), the CLI and the tests
// (inject.ts) all call dispatch().
//
// The operational stage answers the operator's routes (/livez, /readyz,
// /metrics) first: a probe is answered while the server drains.
//
// The routed stages are a list (BEFORE, then handle, render, encode, store:
// ROUTED_STAGES). A handler that returns its reply synchronously is answered in
// the same turn: no promise, no timer. One government's history runs its job
// on the front thread (Pool.runSmall) but its handler is async, so it is
// answered a microtask later, still before uWS reads the next request.

import type { Answer } from './answer.js';
import { NOTHING } from './answer.js';
import { ALLOWED_METHODS, ApiError, ERROR_CATALOG, apiError, type ErrorEntry } from './errors.js';
import { toApiError } from './edge-errors.js';
import { fail, releaseBody } from './envelope.js';
import type { Exchange, Incoming } from './exchange.js';
import { compileCanonical, type Canonicalizer } from './canonical.js';
import { encodeAnswer } from './compress.js';
import { fixedFile, type FixedFile } from './fixed-files.js';
import { keepWhileStreaming, keptStream } from './kept-streams.js';
import { codedValidators, negotiate, OFFERED, type Encoding } from './encoding.js';
import { etagMatches, validatorsOf } from './freshness.js';
import { FORMATS, JSON_ONLY, formatFromAccept } from './formats.js';
import { clearDeadline, deadline } from './deadlines.js';
import { isDraining } from './lifecycle.js';
import { parseQueryString } from './query.js';
import { JSON_TYPE, render, renderEnvelope, type RenderContext } from './render.js';
import type { Reply, RouteSpec } from './route-spec.js';
import { Router, type Match } from './router.js';
import type { Service } from './service.js';
import { compileValidator, type Validator } from './validate.js';
import { registerOps } from './ops-routes.js';
import { charge, chargeFailed, HEAD_COST, REVALIDATION_COST } from './rate-stage.js';
import { MAX_ROUTES, ROUTE_ASSET, telemetry, type Telemetry } from './telemetry.js';

export const MAX_URL = 8192;
export const MAX_HEADER_BYTES = 16_384;

interface Compiled<Ctx> {
  /** Its place in the service's table: the metrics' route label (telemetry.ts). */
  index: number;
  spec: RouteSpec<Ctx>;
  validate: Validator<Ctx>;
  canonical: Canonicalizer;
  /** For a key that takes several values (ParamSpec.list), its example: the message of a key given twice shows it. */
  listExample: (key: string) => string | undefined;
  /** Free-text keys (ParamSpec.literal), whose spaces the query parser keeps. */
  literal: (key: string) => boolean;
}

function listExamples<Ctx>(spec: RouteSpec<Ctx>): (key: string) => string | undefined {
  const lists = new Map<string, string>();
  for (const [key, p] of Object.entries(spec.query)) if (p.list !== undefined) lists.set(key, p.list);
  return (key) => lists.get(key);
}

/** Which of a route's keys are free text, kept as sent by the query parser. */
function literalKeys<Ctx>(spec: RouteSpec<Ctx>): (key: string) => boolean {
  const keys = new Set(Object.entries(spec.query).filter(([, p]) => p.literal === true).map(([k]) => k));
  return (key) => keys.has(key);
}

export interface Pipeline {
  dispatch(req: Incoming, ex: Exchange): Answer | Promise<Answer>;
}

/** A service with its routes compiled: what every stage reads. */
interface Line<Ctx> {
  service: Service<Ctx>;
  router: Router<Compiled<Ctx>>;
  /** The fixed files, each in every coding offered (compressed once, when first asked for), with its validators. */
  assets: Map<string, FixedFile>;
  /** The operator's routes, by exact path (ops-routes.ts). */
  operational: Map<string, Compiled<Ctx>>;
  telemetry: Telemetry;
}

type BytesAnswer = Answer & { kind: 'bytes' };

export function compilePipeline<Ctx>(service: Service<Ctx>): Pipeline {
  const router = new Router<Compiled<Ctx>>();
  const operational: Line<Ctx>['operational'] = new Map();
  service.routes.forEach((spec, index) => {
    const c = { index, spec, validate: compileValidator(spec), canonical: compileCanonical(spec), listExample: listExamples(spec), literal: literalKeys(spec) };
    if (spec.operational) operational.set(spec.path, c);
    else router.add(spec.path, c);
  });
  Object.freeze(service.routes);
  // Each route has its own series on the metrics board, which has room for MAX_ROUTES.
  if (service.routes.length > MAX_ROUTES) throw new Error(`${service.name}: ${service.routes.length} routes, more than the metrics board's ${MAX_ROUTES}`);
  registerOps(service.name, service.routes.map((r) => r.id), service.ops ?? {});
  const assets: Line<Ctx>['assets'] = new Map();
  for (const [path, a] of service.assets) assets.set(path, fixedFile(a));
  const line: Line<Ctx> = { service, router, assets, operational, telemetry: telemetry(service.name) };
  return {
    dispatch(req, ex) {
      let enc: Encoding = 'identity';
      const op = operational.get(req.path);
      try {
        if (op !== undefined && (req.method === 'get' || req.method === 'head')) return answerOperational(line, op, req, ex, negotiated(req));
        const answer = limits(req) ?? preflight(req);
        if (answer !== undefined) return answer;
        enc = negotiated(req);
        return asset(line, req, enc, ex) ?? routed(line, req, ex, enc);
      } catch (thrown) {
        // A domain error (a busy pool) is the catalog's before it is charged: a 503 costs nothing.
        const err = toApiError(thrown);
        // The operator's routes are never charged, even when refused (a 400, a 406).
        return encodeAnswer(errorAnswer(op === undefined ? chargeFailed(service.rate, req, ex, err) : err, ex, req.path), enc);
      }
    },
  };
}

/** Refuses what is too large to read, and everything while draining. */
function limits(req: Incoming): undefined {
  if (isDraining()) throw apiError('E_BUSY', 'draining');
  if (req.path.length + req.query.length > MAX_URL) throw apiError('E_URI_TOO_LONG', 'tooLong', { max: MAX_URL });
  // uWS accepts very large headers; ours is a GET-only API, so anything past 16 KB in all is refused.
  // uWS reads the first Content-Length and goes on: the body, and the request after it, may be read wrong.
  if (req.conflictingLength) throw apiError('E_BAD_FRAMING', 'contentLength');
  if (req.headerBytes > MAX_HEADER_BYTES) {
    throw apiError('E_HEADERS_TOO_LARGE', 'tooLarge', { bytes: req.headerBytes, max: MAX_HEADER_BYTES });
  }
  return undefined;
}

/** CORS preflight, and the methods a read-only API refuses. */
function preflight(req: Incoming): Answer | undefined {
  if (req.method === 'options') {
    return {
      kind: 'bytes', status: 204, contentType: 'text/plain; charset=utf-8', body: '',
      headers: { 'Access-Control-Allow-Methods': ALLOWED_METHODS, 'Access-Control-Allow-Headers': '*', 'Access-Control-Max-Age': '86400' },
    };
  }
  if (req.method !== 'get' && req.method !== 'head') {
    throw apiError('E_METHOD', 'readOnly', { method: req.methodText.slice(0, 16).toUpperCase() });
  }
  return undefined;
}

/** The negotiate stage: the content coding of the answer (encoding.ts), or a 406 when the client refuses them all. */
function negotiated(req: Incoming): Encoding {
  const enc = negotiate(req.acceptEncoding);
  if (enc === null) {
    throw apiError('E_NOT_ACCEPTABLE', 'encoding', { offered: OFFERED.join(', ') });
  }
  return enc;
}

/** The fixed files (docs and explorer pages), in the negotiated coding, revalidated by their ETag. */
function asset<Ctx>(line: Line<Ctx>, req: Incoming, enc: Encoding, ex: Exchange): Answer | Promise<Answer> | undefined {
  const file = line.assets.get(req.path);
  if (file === undefined) return undefined;
  ex.route = ROUTE_ASSET;
  const validators = file.validators(enc);
  if (req.ifNoneMatch !== '' && etagMatches(req.ifNoneMatch, validators.ETag!)) {
    charge(line.service.rate, req, ex, REVALIDATION_COST);
    return { kind: 'bytes', status: 304, contentType: file.contentType, body: '', headers: validators };
  }
  charge(line.service.rate, req, ex, 1);
  return file.answer(enc);
}

function route<Ctx>(line: Line<Ctx>, req: Incoming): Match<Compiled<Ctx>> {
  const match = line.router.match(req.path);
  if (match === undefined) {
    const shown = req.path.length > 200 ? `${req.path.slice(0, 200)}...` : req.path;
    throw apiError('E_NOT_FOUND', 'noRoute', { path: shown });
  }
  return match;
}

/**
 * The freshness stage: a cacheable answer's validators, its ETag marked with the coding it goes in. A route
 * of several formats may answer one URL in the format Accept picks, so a shared cache must key it by Accept
 * too: its validators carry Vary: Accept, Accept-Encoding, which replaces the common Vary on every answer
 * they go on (a 200 in any format, a 304, a cache hit).
 */
function freshness<Ctx>(service: Service<Ctx>, spec: RouteSpec<Ctx>, url: string, enc: Encoding): Record<string, string> | undefined {
  if (!spec.cacheable || service.etagSeed === undefined) return undefined;
  const v = codedValidators(validatorsOf(service.etagSeed, url), enc);
  return v !== undefined && (spec.formats?.length ?? 1) > 1 ? { ...v, Vary: VARY_FORMATS } : v;
}
const VARY_FORMATS = 'Accept, Accept-Encoding';

/**
 * The store stage, after encode: a whole 200 envelope of a cacheable route kept as sent; a compressed 200
 * stream of one (a bulk page) kept once it has gone out whole (kept-streams.ts).
 */
function store(coded: Answer, rc: RenderContext, get: boolean): Answer {
  if (coded.kind === 'stream' && get && coded.status === 200 && rc.cacheKey !== null && coded.headers?.['Content-Encoding'] !== undefined) {
    return keepWhileStreaming(coded, rc.cache!, rc.cacheKey);
  }
  if (coded.kind !== 'bytes' || !coded.keep || rc.cacheKey === null) return coded;
  // A copy: a byte body may be a view of a larger buffer, whose size the cache would not count.
  const body = Buffer.from(coded.body);
  releaseBody(coded.body);
  rc.cache!.set(rc.cacheKey, { body, headers: coded.headers });
  return { ...coded, body, headers: { ...coded.headers, 'X-Cache': 'miss' } };
}

/** The validate stage: typed parameters, and the request's canonical URL (canonical.ts). */
function validate<Ctx>(service: Service<Ctx>, match: Match<Compiled<Ctx>>, req: Incoming): { params: unknown; url: string } {
  const query = parseQueryString(req.query, match.route.listExample, match.route.literal);
  acceptedFormat(match.route.spec, query, req.accept);
  const params = match.route.validate(query, match.values, service.ctx);
  return { params, url: match.route.canonical(match.values, query, params, service.ctx) };
}

/**
 * A route of several formats whose query names none answers in the one its Accept header prefers, as if
 * the query had named it: format then keys the canonical URL, the ETag and the cache like any value. An
 * Accept that refuses every format of the route (no wildcard) is a 406; one that does not parse is no
 * preference. A route of one format answers in it whatever Accept says, as before.
 */
function acceptedFormat<Ctx>(spec: RouteSpec<Ctx>, query: Map<string, string>, accept: string): void {
  const formats = spec.formats ?? JSON_ONLY;
  if (formats.length < 2 || query.has('format') || accept === '') return;
  const f = formatFromAccept(accept, formats);
  if (f === null) {
    throw apiError('E_NOT_ACCEPTABLE', 'mediaType', { path: spec.path, types: formats.map((x) => FORMATS[x].openapiType).join(', ') });
  }
  if (f !== undefined && f !== formats[0]) query.set('format', f);
}

/** The handle stage: the route's handler, with its typed parameters. */
function handle<Ctx>(service: Service<Ctx>, spec: RouteSpec<Ctx>, params: unknown, req: Incoming, url: string, ex: Exchange, enc: Encoding): Reply | Promise<Reply> {
  // A domain error it throws or rejects with (a busy pool) becomes the catalog's in the error stage (toApiError), at no cost to an answer.
  return spec.handle({ params, ctx: service.ctx, host: req.host, url, head: req.method === 'head', range: req.range, ifRange: req.ifRange, ifNoneMatch: req.ifNoneMatch, encoding: enc, get signal() { return ex.signal(); } });
}

/** What the routed stages know of a request as they pass it on: each stage fills in its part. */
interface Flow<Ctx> {
  line: Line<Ctx>;
  req: Incoming;
  ex: Exchange;
  enc: Encoding;
  match: Match<Compiled<Ctx>>;
  params: unknown;
  url: string;
  validators: Record<string, string> | undefined;
  /** The request names the current ETag: the revalidate stage answers 304 (the rate stage charged a tenth). */
  notModified: boolean;
  cacheKey: string | null;
}

/** A stage before the handler: it fills in its part of the flow and passes (undefined), or ends the request with an answer. */
interface Stage { name: string; run(f: Flow<any>): Answer | undefined }

/**
 * The routed line, in order. Each stage is a function of the flow; the handler comes after the last of these,
 * then render, encode and store (AFTER). test/pipeline.test.ts pins the order.
 */
const BEFORE: readonly Stage[] = [
  { name: 'route', run: routeStage },
  { name: 'validate', run: validateStage },
  { name: 'freshness', run: freshnessStage },
  { name: 'rate', run: rateStage },
  { name: 'revalidate', run: revalidateStage },
  { name: 'cache', run: cacheStage },
];
const AFTER = ['render', 'encode', 'store'] as const;
/** Every stage of a routed request, by name, in the order they run. */
export const ROUTED_STAGES: readonly string[] = [...BEFORE.map((s) => s.name), 'handle', ...AFTER];

function routeStage<Ctx>(f: Flow<Ctx>): undefined {
  f.match = route(f.line, f.req);
  f.ex.route = f.match.route.index;
  return undefined;
}

function validateStage<Ctx>(f: Flow<Ctx>): undefined {
  const { params, url } = validate(f.line.service, f.match, f.req);
  f.params = params;
  f.url = url;
  return undefined;
}

function freshnessStage<Ctx>(f: Flow<Ctx>): undefined {
  const v = freshness(f.line.service, f.match.route.spec, f.url, f.enc);
  f.validators = v;
  f.notModified = v !== undefined && f.req.ifNoneMatch !== '' && etagMatches(f.req.ifNoneMatch, v.ETag!);
  return undefined;
}

/** The rate stage: a revalidation answered 304 costs a tenth, a HEAD 1, any other what its route declares (rate-stage.ts). */
function rateStage<Ctx>(f: Flow<Ctx>): undefined {
  const { service } = f.line, req = f.req;
  if (f.notModified) { charge(service.rate, req, f.ex, REVALIDATION_COST); return undefined; }
  // A route with validators of its own (a bulk file's ETag) prices its own revalidation (cost below 1): a HEAD pays no more than that.
  const cost = f.match.route.spec.cost?.(f.params, service.ctx, req) ?? 1;
  charge(service.rate, req, f.ex, req.method === 'head' ? Math.min(HEAD_COST, cost) : cost);
  return undefined;
}

function revalidateStage<Ctx>(f: Flow<Ctx>): Answer | undefined {
  return f.notModified ? { kind: 'bytes', status: 304, contentType: JSON_TYPE, body: '', headers: f.validators } : undefined;
}

/** The cache stage: each coding's bytes are an entry of their own, so a repeat costs no compression. */
function cacheStage<Ctx>(f: Flow<Ctx>): Answer | undefined {
  const { service } = f.line;
  const cacheKey = f.match.route.spec.cacheable && service.cache ? (f.enc === 'identity' ? f.url : `${f.enc} ${f.url}`) : null;
  f.cacheKey = cacheKey;
  if (cacheKey === null) return undefined;
  const hit = service.cache!.get(cacheKey);
  f.line.telemetry.cache(hit !== undefined);
  if (hit?.stream) return keptStream(hit, service as Service<unknown>);
  if (hit !== undefined) return { kind: 'bytes', status: 200, contentType: hit.contentType ?? JSON_TYPE, body: hit.body, headers: { ...hit.headers, 'X-Cache': 'hit' } };
  return undefined;
}

/** The routed part of the line: the stages of BEFORE, then handle, then render, encode and store. */
function routed<Ctx>(line: Line<Ctx>, req: Incoming, ex: Exchange, enc: Encoding): Answer | Promise<Answer> {
  const f: Flow<Ctx> = { line, req, ex, enc, match: undefined!, params: undefined, url: '', validators: undefined, notModified: false, cacheKey: null };
  for (let i = 0; i < BEFORE.length; i++) {
    const answer = BEFORE[i]!.run(f);
    if (answer !== undefined) return answer;
  }
  const { service } = line, spec = f.match.route.spec;
  const rc: RenderContext = { validators: f.validators, cacheKey: f.cacheKey, cache: service.cache, gone: false, formats: spec.formats ?? JSON_ONLY };
  const reply = handle(service, spec, f.params, req, f.url, ex, enc);
  const get = req.method === 'get';
  const stored = (coded: Answer): Answer => store(coded, rc, get);
  if (!(reply instanceof Promise)) return then(encodeAnswer(render(reply, rc), enc), stored);
  // render() serializes, and rows write themselves then: a throw there is answered too (500).
  return withinBudget(service.timeoutMs, reply, ex, rc, req.path).then((a) => encodeAnswer(a, enc)).then(stored);
}

/** f applied to an answer now, or once it is ready (a body compressed off the thread): synchronous answers stay synchronous. */
const then = (a: Answer | Promise<Answer>, f: (a: Answer) => Answer): Answer | Promise<Answer> => (a instanceof Promise ? a.then(f) : f(a));

/** The operational stage: an operator's route (no limits, no cache), its query validated like any. */
function answerOperational<Ctx>(line: Line<Ctx>, op: Compiled<Ctx>, req: Incoming, ex: Exchange, enc: Encoding): Answer | Promise<Answer> {
  ex.route = op.index;
  const { params, url } = validate(line.service, { route: op, values: [] }, req);
  const rc: RenderContext = { validators: undefined, cacheKey: null, cache: undefined, gone: false, formats: JSON_ONLY };
  const reply = handle(line.service, op.spec, params, req, url, ex, enc);
  if (!(reply instanceof Promise)) return encodeAnswer(render(reply, rc), enc);
  // A throw while rendering is answered too, never left unanswered.
  return reply.then((r) => encodeAnswer(render(r, rc), enc)).catch((err: unknown) => encodeAnswer(errorAnswer(err, ex, req.path), enc));
}

/** Awaits the handler within the time budget: past it a 504, and the job is cancelled. */
function withinBudget(ms: number | undefined, reply: Promise<Reply>, ex: Exchange, rc: RenderContext, path: string): Promise<Answer> {
  const rendered = (r: Reply): Answer => {
    rc.gone = ex.gone;
    return render(r, rc);
  };
  if (ms === undefined) return reply.then(rendered).catch((err: unknown) => errorAnswer(err, ex, path));
  return new Promise<Answer>((resolve) => {
    let over = false;
    const timer = deadline(ms, () => {
      over = true;
      ex.cancel();
      resolve(errorAnswer(apiError('E_TIMEOUT', 'budget', { ms }), ex, path));
    });
    reply.then(
      (r) => {
        if (over) { if (r.kind === 'stream' || r.kind === 'file') r.done?.(); return; }
        clearDeadline(timer);
        try { resolve(rendered(r)); } catch (err) { resolve(errorAnswer(err, ex, path)); }
      },
      (err: unknown) => {
        if (over) return;
        clearDeadline(timer);
        resolve(errorAnswer(err, ex, path));
      },
    );
  });
}

/** The error stage: an ApiError is its envelope; anything else a logged 500 naming the request id. */
function errorAnswer(thrown: unknown, ex: Exchange, path: string): Answer {
  // The domain's own errors (src/domain-errors.ts) are answered as the catalog's (edge-errors.ts).
  const err = toApiError(thrown);
  // The client left, or the time budget answered already, and the job was cancelled: nothing to answer or report.
  if (ex.gone) return NOTHING;
  const rc: RenderContext = { validators: undefined, cacheKey: null, cache: undefined, gone: false, formats: JSON_ONLY };
  if (err instanceof ApiError) {
    const entry: ErrorEntry = ERROR_CATALOG[err.code];
    const answer = renderEnvelope(err.status, fail(err), entry.headers === undefined ? undefined : { ...entry.headers }, rc);
    return entry.close && answer.kind === 'bytes' ? { ...answer, close: true } : answer;
  }
  console.error(JSON.stringify({ level: 'error', requestId: ex.requestId, path, error: err instanceof Error ? err.stack : String(err) }));
  return renderEnvelope(500, fail(apiError('E_INTERNAL', 'fault', { requestId: ex.requestId }), ex.requestId), undefined, rc);
}
