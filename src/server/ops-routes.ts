// The operator's routes every service has at its root, as Kubernetes and
// Prometheus name them: /livez, /readyz and /metrics. They are declared like
// every route (so OpenAPI, the docs and the dictionary list them), marked
// operational: the pipeline answers them before its limits stage, so a probe
// or a scrape is answered while the server drains and is never rate limited,
// and they are never cached. What they read of their service (its readiness
// checks, its gauges, its corpus) is registered by the pipeline when it is
// compiled for that service (registerOps).

import { metricsText, METRICS_CONTENT_TYPE, type ServiceInfo } from './metrics.js';
import { processNotReady } from './readiness.js';
import type { Reply, RouteSpec } from './route-spec.js';
import type { ServiceSample } from './telemetry.js';

/** What the operator's routes read of a service. */
export interface OpsHooks {
  /** Why the service cannot answer its data routes now (no live worker), or null. */
  notReady?(): string | null;
  /** The service's own gauges (its pool and page slots). */
  sample?(): ServiceSample;
  info?(): ServiceInfo;
}

interface Registered { routeIds: readonly string[]; hooks: OpsHooks }
const services = new Map<string, Registered>();

/** Called by the pipeline for each service it serves on this thread. */
export function registerOps(name: string, routeIds: readonly string[], hooks: OpsHooks): void {
  services.set(name, { routeIds, hooks });
}

const NO_STORE = { 'Cache-Control': 'no-store' };
const text = (status: number, body: string): Reply => ({ kind: 'body', status, contentType: 'text/plain; charset=utf-8', body, headers: NO_STORE });

/** Service `name`'s own gauges on this thread (its pool and page slots), as its sampler writes them. */
export const serviceSample = (name: string): ServiceSample => services.get(name)?.hooks.sample?.() ?? {};

/** Why service `name` is not ready, or null. */
export function notReady(name: string): string | null {
  return processNotReady() ?? services.get(name)?.hooks.notReady?.() ?? null;
}

export function opsRoutes<Ctx>(service: string): RouteSpec<Ctx>[] {
  return [
    {
      id: 'livez', path: '/livez', tags: ['operations'], produces: 'text/plain', query: {}, operational: true,
      summary: 'Liveness', description: 'ok while the process can answer (a Kubernetes liveness probe). Answered while draining; never rate limited.',
      handle: () => text(200, 'ok\n'),
    },
    {
      id: 'readyz', path: '/readyz', tags: ['operations'], produces: 'text/plain', query: {}, operational: true,
      summary: 'Readiness',
      description: 'ready (200) once the corpus is loaded and verified (the server listens only then), the pool has a live worker, and the server is not shutting down; 503 with the reason otherwise. On SIGTERM it turns 503 at once, SHUTDOWN_DELAY_MS before the listening sockets close, so a balancer stops sending first.',
      handle: () => {
        const why = notReady(service);
        return why === null ? text(200, 'ready\n') : text(503, `not ready: ${why}\n`);
      },
    },
    {
      id: 'metrics', path: '/metrics', tags: ['operations'], produces: 'text/plain', query: {}, operational: true,
      summary: 'Prometheus metrics',
      description: 'The Prometheus text exposition of this service, summed over every thread that serves it: request durations by route id, method and status class (OpenTelemetry buckets), requests in flight, body bytes by format and coding, response-cache hits and misses, pool queue depth, jobs inline and on the pool, worker busy time, 429/503/504 counts, page slots in use, event-loop lag and heap per thread, process memory, corpus rows and build.',
      handle: async () => {
        const r = services.get(service);
        const body = await metricsText(service, r?.routeIds ?? [], r?.hooks.sample?.() ?? {}, r?.hooks.info?.() ?? { rows: 0, build: {} });
        return { kind: 'body', contentType: METRICS_CONTENT_TYPE, body, headers: NO_STORE };
      },
    },
  ];
}
