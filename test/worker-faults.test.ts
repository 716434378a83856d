// Worker faults: a job that throws, or a worker thread that dies mid-task,
// costs that one request a logged 500 envelope with its request id; the pool
// replaces the worker and the next requests succeed. The hook that injects
// the fault cannot be enabled in production. One front thread, so /health
// and the log describe every request of a test (front-threads.test.ts covers
// a fault with several).

import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, financeUrl, get } from './helpers/http.js';
import { runToExit, startServer } from './helpers/server.js';

describe('worker faults', () => {
  it('a throwing job and a dying worker each give one 500 with the request id; the pool recovers', async () => {
    const s = await startServer({ WORKERS: '1', CIVICSTREAM_FAULTS: '1', RESPONSE_CACHE_MB: '0', FRONT_THREADS: '1' });
    let stderr = '';
    s.proc.stderr!.on('data', (d) => { stderr += d; });
    const got = (p: string) => get(p, undefined, s.url);
    try {
      for (const kind of ['throw', 'exit']) {
        const fault = await got(`/__faults__/worker?kind=${kind}`);
        const id = fault.headers.get('x-request-id')!;
        expect(expectErrorEnvelope(fault, 500)).toBe(`Internal error; request id ${id}.`);
        // The next money request runs on a worker again (the replaced one, after an exit).
        const next = await got('/api/v1/governments/062037161174/spending?category=Police');
        expect(next.status, kind).toBe(200);
        expect(next.body.data.length).toBeGreaterThan(0);
        expect(stderr).toContain(`"requestId":"${id}"`);
      }
      expect(stderr).toContain('injected worker fault');
      expect((await got('/api/v1/health')).body.data[0].pool_jobs).toBe(0);
    } finally {
      await s.stop();
    }
  });

  it('a fault inside a batch of small jobs fails only its own request', async () => {
    const s = await startServer({ WORKERS: '2', CIVICSTREAM_FAULTS: '1', RESPONSE_CACHE_MB: '0', FRONT_THREADS: '1' });
    const got = (p: string) => get(p, undefined, s.url);
    try {
      const govs = (await got('/api/v1/governments?limit=40')).body.data.map((g: any) => g.canonical_govid as string);
      for (const kind of ['throw', 'exit']) {
        // Sent together, so they arrive in the same event-loop turns and share batches with the fault.
        const [fault, ...others] = await Promise.all([
          got(`/__faults__/worker?kind=${kind}&batched=true`),
          ...govs.map((g: string) => got(`/api/v1/governments/${g}/spending?category=Police`)),
        ]);
        expect(expectErrorEnvelope(fault!, 500)).toBe(`Internal error; request id ${fault!.headers.get('x-request-id')}.`);
        expect(others.map((r) => r.status), kind).toEqual(govs.map(() => 200));
        // Each answer is its own government's: batching never crosses results.
        expect(others.map((r) => r.body.data[0]?.canonical_govid), kind).toEqual(govs);
      }
      const h = (await got('/api/v1/health')).body.data[0];
      expect(h.pool_jobs).toBe(0);
      // The concurrent requests were batched: fewer messages than jobs.
      expect(h.pool_batches.jobs).toBeGreaterThanOrEqual(80);
      expect(h.pool_batches.messages).toBeLessThan(h.pool_batches.jobs);
    } finally {
      await s.stop();
    }
  });

  it('the hook is absent unless asked for, and refused with NODE_ENV=production', async () => {
    const plain = await fetch(`${financeUrl()}/__faults__/worker?kind=throw`);
    expect(plain.status).toBe(404);
    const refused = await runToExit({ CIVICSTREAM_FAULTS: '1', NODE_ENV: 'production' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('CIVICSTREAM_FAULTS=1 is a test hook and cannot be enabled with NODE_ENV=production');
  });
});
