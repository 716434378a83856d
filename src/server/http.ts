// The uWS front end shared by both services: one catch-all handler that copies
// the request out of uWS's stack-allocated object, matches the declared
// routes, validates, awaits the route and writes the reply under cork. Every
// path registers onAborted first, so a client that disconnects at any moment
// only flips a flag; nothing is written to a dead response.

import { threadId } from 'node:worker_threads';
import { hash } from 'node:crypto';
import type { UWS } from './uws.js';
import { ApiError, apiError } from './errors.js';
import { fail, serialize, type Envelope } from './envelope.js';
import { parseQueryString } from './query.js';
import { Router } from './router.js';
import type { Reply, RouteSpec } from './route-spec.js';
import { compileValidator, type Validator } from './validate.js';
import type { ResponseCache } from './response-cache.js';

export interface Asset {
  contentType: string;
  body: Uint8Array | string;
  headers?: Record<string, string>;
}

export interface Service<Ctx> {
  name: string;
  routes: RouteSpec<Ctx>[];
  ctx: Ctx;
  /** Fixed files served as-is (the docs UI). Looked up by exact path only. */
  assets: Map<string, Asset>;
  accessLog: boolean;
  cache?: ResponseCache;
  /**
   * What the answers of cacheable routes depend on besides the URL (the
   * corpus's manifest digest, the code version, the configured mirror URL).
   * With it, those answers carry an ETag and Cache-Control, and a matching
   * If-None-Match gets 304 before any work.
   */
  etagSeed?: string;
  /** Time budget of a request until its answer starts; past it a 504 envelope, and the job is cancelled. */
  timeoutMs?: number;
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 204: '204 No Content', 304: '304 Not Modified', 400: '400 Bad Request', 404: '404 Not Found',
  405: '405 Method Not Allowed', 414: '414 URI Too Long', 431: '431 Request Header Fields Too Large', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
  504: '504 Gateway Timeout',
};

const JSON_TYPE = 'application/json; charset=utf-8';
const MAX_URL = 8192;
const MAX_HEADER_BYTES = 16_384;
const COMMON_HEADERS: [string, string][] = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Access-Control-Allow-Origin', '*'],
  // Without this a browser script on another origin sees none of the paging or validator headers.
  ['Access-Control-Expose-Headers', 'ETag, X-Total-Count, X-Page, X-Limit, X-Request-Id, X-Cache'],
];

interface Compiled<Ctx> {
  spec: RouteSpec<Ctx>;
  validate: Validator<Ctx>;
}

let requestCounter = 0;
let streamsOpen = 0;
/** Responses currently streaming (for /health: a client that leaves must not leave one behind). */
export const openStreams = (): number => streamsOpen;

let pending = 0;
let draining = false;
let onIdle: (() => void) | null = null;
/** Requests received and not yet answered to the end (or aborted by their client). */
export const inFlight = (): number => pending;

/**
 * Graceful shutdown: from now on a request on a kept-alive connection gets a
 * 503 and a closed connection; the promise settles once every request already
 * in flight has been answered to its end, or after graceMs, whichever is first.
 */
export function drain(graceMs: number): Promise<'idle' | 'timeout'> {
  draining = true;
  if (pending === 0) return Promise.resolve('idle');
  return new Promise((resolve) => {
    const timer = setTimeout(() => { onIdle = null; resolve('timeout'); }, graceMs);
    onIdle = () => { clearTimeout(timer); onIdle = null; resolve('idle'); };
  });
}
// The thread's id too: front threads (src/front.ts) share the process and count requests each from 1.
const requestPrefix = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}${threadId ? `t${threadId}` : ''}`;

export function buildApp<Ctx>(uws: typeof UWS, service: Service<Ctx>): UWS.TemplatedApp {
  const router = new Router<Compiled<Ctx>>();
  for (const spec of service.routes) router.add(spec.path, { spec, validate: compileValidator(spec) });
  Object.freeze(service.routes);

  const app = uws.App();
  app.any('/*', (res, req) => {
    const started = performance.now();
    const method = req.getMethod();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const host = req.getHeader('host');
    const ifNoneMatch = req.getHeader('if-none-match');
    // uWS accepts very large headers; ours is a GET-only API, so anything past 16 KB in all is refused.
    let headerBytes = 0;
    req.forEach((k, v) => { headerBytes += k.length + v.length + 4; });
    const requestId = `${requestPrefix}-${(++requestCounter).toString(36)}`;
    // Made when a handler first asks for the request's signal: an AbortController costs about 2 us, and a
    // job a front thread runs itself never needs one. cancelled remembers an abort that came first.
    let controller: AbortController | undefined;
    let cancelled = false;
    const cancel = (): void => { cancelled = true; controller?.abort(); };
    const signal = (): AbortSignal => {
      if (controller === undefined) { controller = new AbortController(); if (cancelled) controller.abort(); }
      return controller.signal;
    };
    const state = { aborted: false, streaming: false, settled: false, answered: false };
    let budget: ReturnType<typeof setTimeout> | undefined;
    pending++;
    const settle = (): void => {
      if (state.settled) return;
      state.settled = true;
      if (--pending === 0 && onIdle !== null) onIdle();
    };
    /** The stream's done hook: called once when it ends, fails or its client leaves. */
    let streamRelease: (() => void) | undefined;
    const streamDone = (): void => {
      if (state.streaming) { state.streaming = false; streamsOpen--; }
      const release = streamRelease;
      streamRelease = undefined;
      release?.();
      settle();
    };
    res.onAborted(() => {
      state.aborted = true;
      streamDone();
      cancel();
      log(service, { requestId, method, path, status: 0, started, bytes: 0, aborted: true });
    });

    const head = method === 'head';
    const finish = (status: number, contentType: string, body: string | Uint8Array, headers?: Record<string, string>): void => {
      if (state.aborted || state.answered) return;
      state.answered = true;
      clearTimeout(budget);
      res.cork(() => {
        res.writeStatus(STATUS_TEXT[status] ?? `${status} Unknown`);
        for (const [k, v] of COMMON_HEADERS) res.writeHeader(k, v);
        res.writeHeader('X-Request-Id', requestId);
        res.writeHeader('Content-Type', contentType);
        if (headers) for (const k in headers) res.writeHeader(k, headers[k]!);
        // A 304 repeats no length: it would have to be the 200's, which was never computed.
        // (An explicit undefined length is read by uWS as 2^63, so the call takes no arguments.)
        if (status === 304) res.endWithoutBody();
        else if (head) {
          // The length goes in as a header: endWithoutBody(length) leaves this uWS build's connection without its
          // idle timeout and breaks the next request on it (test/head.test.ts), a descriptor held for good per HEAD.
          res.writeHeader('Content-Length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
          res.endWithoutBody();
        } else res.end(body, draining);
      });
      settle();
      log(service, { requestId, method, path, status, started, bytes: typeof body === 'string' ? body.length : body.byteLength });
    };
    let cacheKey: string | null = null;
    /** ETag and Cache-Control of a cacheable route's 200 answer; sent on nothing else. */
    let validators: Record<string, string> | undefined;
    const sendEnvelope = (status: number, env: Envelope, headers?: Record<string, string>): void => {
      // Answered already (the time budget) or the client left: the body would be thrown away unwritten.
      if (state.aborted || state.answered) return;
      const body = serialize(env);
      if (status === 200 && cacheKey !== null && headers === undefined) {
        // A copy: a byte body may be a view of a larger buffer, whose size the cache would not count.
        const bytes = Buffer.from(body);
        service.cache!.set(cacheKey, bytes);
        finish(status, JSON_TYPE, bytes, { 'X-Cache': 'miss', ...validators });
        return;
      }
      finish(status, JSON_TYPE, body, status === 200 ? { ...headers, ...validators } : headers);
    };
    const sendError = (err: unknown): void => {
      // The client left, or the time budget answered already, and the job was cancelled: nothing to answer or report.
      if (state.aborted || state.answered) return;
      if (err instanceof ApiError) {
        sendEnvelope(err.status, fail(err), err.status === 405 ? { Allow: 'GET, HEAD, OPTIONS' } : err.status === 503 ? { 'Retry-After': '1' } : undefined);
        return;
      }
      console.error(JSON.stringify({ level: 'error', requestId, path, error: err instanceof Error ? err.stack : String(err) }));
      sendEnvelope(500, fail(apiError('E_INTERNAL', `Internal error; request id ${requestId}.`), requestId));
    };

    try {
      if (draining) throw apiError('E_BUSY', 'The server is shutting down; retry in a moment.');
      if (path.length + rawQuery.length > MAX_URL) {
        throw apiError('E_URI_TOO_LONG', `URL longer than ${MAX_URL} characters.`);
      }
      if (headerBytes > MAX_HEADER_BYTES) {
        throw apiError('E_HEADERS_TOO_LARGE', `Request headers of ${headerBytes} bytes; at most ${MAX_HEADER_BYTES} are accepted.`);
      }
      if (method === 'options') {
        finish(204, 'text/plain; charset=utf-8', '', {
          'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
          'Access-Control-Allow-Headers': '*',
          'Access-Control-Max-Age': '86400',
        });
        return;
      }
      if (method !== 'get' && !head) throw apiError('E_METHOD', `Method ${req.getCaseSensitiveMethod().slice(0, 16)} is not allowed; this API is read-only (GET, HEAD).`);

      const asset = service.assets.get(path);
      if (asset !== undefined) {
        finish(200, asset.contentType, asset.body, asset.headers);
        return;
      }
      const match = router.match(path);
      if (match === undefined) throw apiError('E_NOT_FOUND', `No route ${path.length > 200 ? `${path.slice(0, 200)}...` : path}. See /openapi.json for the routes of this service.`);
      const url = rawQuery === '' ? path : `${path}?${rawQuery}`;
      validators = match.route.spec.cacheable && service.etagSeed !== undefined ? freshness(service.etagSeed, url) : undefined;
      if (validators !== undefined && ifNoneMatch !== '' && etagMatches(ifNoneMatch, validators.ETag)) {
        finish(304, JSON_TYPE, '', validators);
        return;
      }
      cacheKey = match.route.spec.cacheable && service.cache ? url : null;
      const hit = cacheKey === null ? undefined : service.cache!.get(cacheKey);
      if (hit !== undefined) {
        finish(200, JSON_TYPE, hit, { 'X-Cache': 'hit', ...validators });
        return;
      }
      const params = match.route.validate(parseQueryString(rawQuery), match.values, service.ctx);
      if (service.timeoutMs !== undefined) {
        const ms = service.timeoutMs;
        budget = setTimeout(() => {
          sendEnvelope(504, fail(apiError('E_TIMEOUT', `The request took longer than ${ms} ms and was cancelled; ask for less at once (fewer years or governments, a smaller limit) or page through it.`)));
          cancel();
        }, ms);
      }
      const result = match.route.spec.handle({ params, ctx: service.ctx, host, url, get signal() { return signal(); } });
      // write() serializes, and rows write themselves then: a throw there is answered too (500), not an unhandled rejection.
      if (result instanceof Promise) result.then(write).catch(sendError);
      else write(result);
    } catch (err) {
      sendError(err);
    }

    function write(reply: Reply): void {
      if (reply.kind === 'envelope') sendEnvelope(reply.status ?? 200, reply.envelope, reply.headers);
      else if (reply.kind === 'body') finish(reply.status ?? 200, reply.contentType, reply.body, (reply.status ?? 200) === 200 ? { ...reply.headers, ...validators } : reply.headers);
      else stream((reply.status ?? 200) === 200 && validators ? { ...reply, headers: { ...reply.headers, ...validators } } : reply);
    }

    // Chunks go out as the client takes them: when write() reports
    // backpressure we stop pulling and resume in onWritable, so a slow reader
    // holds one chunk in flight beyond what the reply keeps. An abort just
    // stops the pump and calls the reply's done hook.
    function stream(reply: Extract<Reply, { kind: 'stream' }>): void {
      // Answered already (the time budget ran out) or the client left: the body is never read.
      if (state.aborted || state.answered) { reply.done?.(); return; }
      streamRelease = reply.done;
      state.answered = true;
      clearTimeout(budget);
      const status = reply.status ?? 200;
      let bytes = 0;
      let ended = false;
      state.streaming = true;
      streamsOpen++;
      const pump = (): void => {
        while (!state.aborted && !ended) {
          let chunk: Uint8Array | null;
          try {
            chunk = reply.next();
          } catch (err) {
            // Headers are gone: the only honest signal left is to cut the connection.
            console.error(JSON.stringify({ level: 'error', requestId, path, error: err instanceof Error ? err.stack : String(err) }));
            ended = true;
            streamDone();
            res.close();
            return;
          }
          if (chunk === null) {
            ended = true;
            streamDone();
            res.end();
            log(service, { requestId, method, path, status, started, bytes });
            return;
          }
          bytes += chunk.byteLength;
          if (!res.write(chunk)) return;
        }
      };
      res.cork(() => {
        res.writeStatus(STATUS_TEXT[status] ?? `${status} Unknown`);
        for (const [k, v] of COMMON_HEADERS) res.writeHeader(k, v);
        res.writeHeader('X-Request-Id', requestId);
        res.writeHeader('Content-Type', reply.contentType);
        if (reply.headers) for (const k in reply.headers) res.writeHeader(k, reply.headers[k]!);
        if (head) {
          ended = true;
          streamDone();
          res.endWithoutBody();
          log(service, { requestId, method, path, status, started, bytes: 0 });
          return;
        }
        res.onWritable(() => {
          res.cork(pump);
          return true;
        });
        pump();
      });
    }
  });
  return app;
}

/**
 * A strong validator for an answer that is a pure function of the URL and the
 * seed (the corpus is immutable). Revalidation is cheap, so caches may reuse
 * an answer for an hour and then ask again with If-None-Match.
 */
function freshness(seed: string, url: string): Record<string, string> {
  // The one-shot hash: a third of createHash's cost, the same digest.
  const tag = hash('sha256', `${seed}\0${url}`, 'base64url').slice(0, 27);
  return { ETag: `"${tag}"`, 'Cache-Control': 'public, max-age=3600' };
}

/** If-None-Match: "*" or a comma-separated list of entity tags, compared weakly (RFC 9110 13.1.2). */
function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

interface LogEntry {
  requestId: string;
  method: string;
  path: string;
  status: number;
  started: number;
  bytes: number;
  aborted?: boolean;
}

function log(service: { name: string; accessLog: boolean }, e: LogEntry): void {
  if (!service.accessLog) return;
  // Query values are deliberately not logged: only the route path.
  process.stdout.write(
    `${JSON.stringify({
      time: new Date().toISOString(),
      service: service.name,
      request_id: e.requestId,
      method: e.method.toUpperCase(),
      path: e.path.length > 200 ? e.path.slice(0, 200) : e.path,
      status: e.status,
      duration_ms: Math.round((performance.now() - e.started) * 1000) / 1000,
      bytes: e.bytes,
      ...(e.aborted ? { aborted: true } : {}),
    })}\n`,
  );
}
