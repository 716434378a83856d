// What a service is to the request pipeline: its declared routes bound to a
// context, fixed assets, and the knobs of the pipeline's stages. Both
// services (finance, school) are built as one of these; the transport (uWS)
// and the in-process callers (the CLI, the tests) run the same pipeline.

import type { RouteSpec } from './route-spec.js';
import type { ResponseCache } from './response-cache.js';
import type { OpsHooks } from './ops-routes.js';
import type { RateGate } from './rate-stage.js';

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
  /**
   * One of the service's places for a bulk stream, for a stream served from the response cache
   * (kept-streams.ts): its release, or null when every place is held. Absent: no cap.
   */
  admitStream?: () => (() => void) | null;
  /** What /readyz and /metrics read of the service (ops-routes.ts). */
  ops?: OpsHooks;
  /** The per-client rate limits (rate-stage.ts); absent: none (RATE_LIMIT=0). */
  rate?: RateGate;
}
