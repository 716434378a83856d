// Load generation for the benchmarks: autocannon against our own server on
// loopback, bounded in time, with a fresh random path per request.

import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

export async function load(url: string, nextPath: () => string, o: { connections: number; seconds: number; headers?: Record<string, string> }): Promise<LoadResult> {
  const r = await autocannon({
    url,
    connections: o.connections,
    duration: o.seconds,
    ...(o.headers !== undefined ? { headers: o.headers } : {}),
    requests: [{ setupRequest: (req) => ({ ...req, path: nextPath() }) }],
  });
  return {
    requestsPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    total: r.requests.total,
  };
}
