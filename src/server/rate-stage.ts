// The rate stage: every request a client sends over the network is charged
// to its bucket (rate-limit.ts) before it is handled, and refused with a 429
// envelope past its limit, so one client cannot take the pool from the
// others. Its charge is what the route declares (RouteSpec.cost: a bulk page
// by the rows it asks, a bulk file by its bytes), 1 otherwise; a 304 a tenth, a
// HEAD 1 (REVALIDATION_COST, HEAD_COST). A request that
// fails before its route is known (404, 400, 405...) costs 1 all the same: a
// flood of bad requests is a flood. The operator's routes (/livez, /readyz,
// /metrics), CORS preflights (OPTIONS) and the in-process callers (the CLI,
// the bulk-file build, the tests' inject) are never charged, nor the server's
// own refusals (503).
//
// Every answer to a charged request carries the IETF RateLimit-Policy and
// RateLimit headers, a 429 Retry-After too.

import type { Config } from '../config.js';
import { apiError, ApiError } from './errors.js';
import type { Exchange, Incoming } from './exchange.js';
import { clientAddress, parseTrustedProxies, RateLimiter, type RatePolicy, type TrustedProxies } from './rate-limit.js';

/** A service's limiter and the proxies whose X-Forwarded-For it believes. */
export interface RateGate {
  limiter: RateLimiter;
  policy: RatePolicy;
  trusted: TrustedProxies;
  /** The service's cheaper way to much data, said in the 429's message (each service names its own). */
  cheaper: string;
}

/** A bulk page costs one token more per ROWS_PER_TOKEN rows it asks for, a bulk file one more per BYTES_PER_TOKEN. */
export const ROWS_PER_TOKEN = 10_000;
export const BYTES_PER_TOKEN = 10 * 1024 * 1024;
/**
 * What a revalidation answered 304 costs (If-None-Match naming the answer's ETag): a tenth of a token. It is
 * answered before any work but validation and sends no body, and a client that revalidates its copy instead of
 * fetching it again is what the limits should encourage; a tenth, not nothing, so that a flood of them is still
 * a flood. A HEAD costs 1, whatever the GET would: the extra tokens of a bulk page or file pay for the rows or
 * bytes sent, and a HEAD sends none.
 */
export const REVALIDATION_COST = 0.1;
export const HEAD_COST = 1;
const ROWS_TEXT = ROWS_PER_TOKEN.toLocaleString('en-US');

/** The process's tables, by service: made by the main thread, adopted by the front threads, so a client has one bucket whichever thread answers. */
let tables: Record<string, SharedArrayBuffer> = {};

export function shareRateTables(shared?: Record<string, SharedArrayBuffer>): Record<string, SharedArrayBuffer> {
  if (shared !== undefined) tables = shared;
  return tables;
}

/** Service `name`'s gate under config, or undefined when RATE_LIMIT is 0 (off). */
export function rateGate(name: string, config: Config, cheaper: string): RateGate | undefined {
  if (config.rateLimit === 0) return undefined;
  const table = tables[name] ?? (tables[name] = RateLimiter.table());
  const policy = { rate: config.rateLimit, burst: config.rateLimitBurst };
  return { limiter: new RateLimiter(policy, table), policy, trusted: parseTrustedProxies(config.trustProxy), cheaper };
}

/** Charges the request's client `cost` tokens, once per request; past the limit an E_RATE_LIMITED. In-process requests (no peer) are free. */
export function charge(gate: RateGate | undefined, req: Incoming, ex: Exchange, cost: number): void {
  if (gate === undefined || !req.peer || ex.rateHeaders !== undefined) return;
  const d = gate.limiter.take(bucketKey(clientAddress(req.peer, req.forwardedFor, gate.trusted)), cost);
  ex.rateHeaders = gate.limiter.headers(d);
  if (!d.ok) {
    throw apiError('E_RATE_LIMITED', 'overLimit', { burst: gate.policy.burst, rate: gate.policy.rate, cost, retryAfter: d.retryAfterS, rowsPerToken: ROWS_TEXT, cheaper: gate.cheaper });
  }
}

/**
 * The bucket of a client address: an IPv4 address its own, an IPv6 address its /64, since one host or home
 * usually holds a whole /64 and could otherwise take a fresh bucket with each of its 2^64 addresses.
 */
export function bucketKey(addr: string): string {
  if (!addr.includes(':')) return addr;
  const cut = addr.indexOf('::');
  const head = (cut < 0 ? addr : addr.slice(0, cut)).split(':').filter((g) => g !== '');
  const tail = cut < 0 ? [] : addr.slice(cut + 2).split(':').filter((g) => g !== '');
  const groups = cut < 0 ? head : [...head, ...new Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail];
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/**
 * A request that failed before it was charged is charged 1; the error it is answered with (a 429 when that is
 * refused). A refusal of the server's own (503 while draining or at capacity) is not charged: a proxy retries it
 * on another replica, and a 429 in its place would not be.
 */
export function chargeFailed(gate: RateGate | undefined, req: Incoming, ex: Exchange, err: unknown): unknown {
  if (err instanceof ApiError && err.status >= 500) return err;
  try {
    charge(gate, req, ex, 1);
    return err;
  } catch (refused) {
    return refused instanceof ApiError ? refused : err;
  }
}
