// One request as the pipeline sees it, whatever carried it: what was asked
// (Incoming, copied out of the transport) and how it may end early
// (Exchange: the client leaving, the time budget).

import { ROUTE_UNMATCHED } from './telemetry.js';

export interface Incoming {
  /** Lower-case, as uWS reports it. */
  method: string;
  /** The method as sent, for the message of a 405 (only read for methods other than GET and HEAD). */
  methodText: string;
  path: string;
  /** The raw query string, without '?'. */
  query: string;
  host: string;
  ifNoneMatch: string;
  /** The Accept-Encoding header, '' when absent. */
  acceptEncoding: string;
  /** The Accept header, '' when absent: picks a route's format when the query names none (formats.ts). */
  accept: string;
  /** The Range and If-Range headers, '' when absent: read by routes that serve files (byte ranges). */
  range: string;
  ifRange: string;
  /** Bytes of all request headers (names, values and separators). */
  headerBytes: number;
  /** Content-Length given more than once (or as a list) with different values: the request's framing is unknown (RFC 9112 6.3). */
  conflictingLength: boolean;
  /** The socket's peer address ('' in-process: the CLI and the tests' inject are never rate limited), and X-Forwarded-For ('' when absent). */
  peer: string;
  forwardedFor: string;
}

/**
 * A request's cancellation. Its AbortController is made when a handler first
 * asks for the signal: it costs about 2 us, and a job a front thread runs
 * itself never needs one. An abort that came first is remembered.
 */
export class Exchange {
  private controller: AbortController | undefined;
  private cancelled = false;
  /** Set by the transport when the client left: nothing more is written, and work not begun is skipped. */
  gone = false;
  /** The route that answered, by its index in the service's table (or ROUTE_ASSET, ROUTE_UNMATCHED): the metrics' label, never the raw path. */
  route = ROUTE_UNMATCHED;
  /** Once the request is charged to its client (rate-stage.ts): the RateLimit headers every answer to it carries. */
  rateHeaders: Record<string, string> | undefined;

  constructor(readonly requestId: string) {}

  signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort();
    }
    return this.controller.signal;
  }

  cancel(): void {
    this.cancelled = true;
    this.controller?.abort();
  }
}
