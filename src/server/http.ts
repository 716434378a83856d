// The uWS adapter: a thin transport over the request pipeline (pipeline.ts).
// It does only what only uWS can do: copy the request out of uWS's
// stack-allocated object (valid only until the handler returns), and hand the
// answer to Outgoing (uws-outgoing.ts), which owns abort, cork and the pump.

import { threadId } from 'node:worker_threads';
import type { UWS } from './uws.js';
import { Exchange, type Incoming } from './exchange.js';
import { compilePipeline } from './pipeline.js';
import type { Service } from './service.js';
import { Outgoing } from './uws-outgoing.js';
import { startSampler } from './metrics.js';
import { appendForwarded, peerText } from './client-address.js';

export type { Asset, Service } from './service.js';
export { drain, inFlight, openStreams } from './lifecycle.js';

let requestCounter = 0;
// The thread's id too: front threads (src/front.ts) share the process and count requests each from 1.
const requestPrefix = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}${threadId ? `t${threadId}` : ''}`;

/** What the pipeline reads of a request, copied out of uWS's object. */
function copyIncoming(res: UWS.HttpResponse, req: UWS.HttpRequest, wantPeer: boolean): Incoming {
  const method = req.getMethod();
  let headerBytes = 0;
  // Every X-Forwarded-For line, in order (getHeader reads the first only): a proxy may add its own line.
  let forwardedFor = '';
  // Every Content-Length too (getHeader reads the first only, and so does uWS's parser): two that differ are a 400 and a close.
  let length: string | undefined;
  let conflictingLength = false;
  req.forEach((k, v) => {
    headerBytes += k.length + v.length + 4;
    // In the same pass as the header bytes (forwardedFor() would walk the headers again).
    if (k === 'x-forwarded-for') forwardedFor = appendForwarded(forwardedFor, v);
    else if (k === 'content-length') {
      for (const one of v.split(',')) {
        const n = one.trim();
        if (length !== undefined && n !== length) conflictingLength = true;
        length = n;
      }
    }
  });
  return {
    method,
    methodText: method === 'get' || method === 'head' ? method : req.getCaseSensitiveMethod(),
    path: req.getUrl(),
    query: req.getQuery() ?? '',
    host: req.getHeader('host'),
    ifNoneMatch: req.getHeader('if-none-match'),
    acceptEncoding: req.getHeader('accept-encoding'),
    accept: req.getHeader('accept'),
    range: req.getHeader('range'),
    ifRange: req.getHeader('if-range'),
    headerBytes,
    conflictingLength,
    // Read only where the rate limits need it: it copies the address out of uWS on every request.
    peer: wantPeer ? peerText(res) : '',
    forwardedFor,
  };
}

export function buildApp<Ctx>(uws: typeof UWS, service: Service<Ctx>): UWS.TemplatedApp {
  const pipeline = compilePipeline(service);
  // The gauges of a service served here (its pool, the event loop) are written once a second for /metrics.
  const sample = service.ops?.sample;
  startSampler(service.name, sample === undefined ? () => ({}) : () => sample());
  const wantPeer = service.rate !== undefined;
  const app = uws.App();
  app.any('/*', (res, req) => {
    const started = performance.now();
    const incoming = copyIncoming(res, req, wantPeer);
    const ex = new Exchange(`${requestPrefix}-${(++requestCounter).toString(36)}`);
    const out = new Outgoing(res, ex, service, incoming.method, incoming.path, started);
    const answer = pipeline.dispatch(incoming, ex);
    if (answer instanceof Promise) answer.then((a) => out.write(a), (err: unknown) => { console.error(err); });
    else out.write(answer);
  });
  return app;
}
