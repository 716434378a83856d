// Graceful shutdown: SIGTERM stops listening, answers what is in flight to
// the end, refuses new work on kept-alive connections, and exits 0.

import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { heldReaders } from './helpers/held-readers.js';
import { listenerClosed } from './helpers/http.js';
import { startServer } from './helpers/server.js';

const PULL = '/api/v1/spending?type=city&years=2011-2020&format=csv';

/** A GET whose body is not read until resume() (so its answer stays in flight), then read whole. */
function heldGet(port: number, path: string, agent: http.Agent | false = false): Promise<{ status: number; retryAfter: string | undefined; resume: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.pause();
      resolve({
        status: res.statusCode ?? 0,
        retryAfter: res.headers['retry-after'] as string | undefined,
        resume: () => new Promise((done, fail) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d) => { text += d; });
          res.on('end', () => done(text));
          res.on('error', fail);
          res.resume();
        }),
      });
    });
    req.on('error', reject);
  });
}

describe('graceful shutdown', () => {
  it('SIGTERM: in-flight pulls finish whole, new connections are refused, a kept-alive connection gets 503, exit code 0', async () => {
    const s = await startServer({ WORKERS: '1', SHUTDOWN_GRACE_MS: '20000' });
    let out = '';
    s.proc.stdout!.on('data', (d) => { out += d; });
    const exited = new Promise<number | null>((r) => s.proc.once('exit', (code) => r(code)));

    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const warm = await heldGet(s.port, '/api/v1/categories?type=spending', keepAlive);
    expect(warm.status).toBe(200);
    await warm.resume();

    const held = await heldReaders(s.port, PULL, 3);
    s.proc.kill('SIGTERM');

    // The listening socket is closed: a new connection is refused.
    await listenerClosed(s.port);
    await expect(heldGet(s.port, '/api/v1/health')).rejects.toThrow(/ECONNREFUSED/);
    // A request on a connection opened before the signal is refused politely and the connection closed.
    const late = await heldGet(s.port, '/api/v1/categories?type=revenue', keepAlive);
    expect(late.status).toBe(503);
    expect(late.retryAfter).toBe('1');
    expect(JSON.parse(await late.resume()).error).toMatch(/shutting down/);
    expect(s.proc.exitCode).toBeNull();

    // The held pulls are still answered to their last row.
    const got = await held.readAll();
    expect(got).toEqual([1, 2, 3].map(() => ({ status: 200, rows: 50_000, ends_with_crlf: true })));
    expect(await exited).toBe(0);
    const line = JSON.parse(out.split('\n').find((l) => l.includes('"event":"shutdown"'))!);
    expect(line).toMatchObject({ in_flight_at_signal: 3, drained: 'idle', unfinished: 0 });
    keepAlive.destroy();
  });

  it('the wait is bounded: a reader that never reads does not hold the process past SHUTDOWN_GRACE_MS', async () => {
    const s = await startServer({ WORKERS: '1', SHUTDOWN_GRACE_MS: '500' });
    let out = '';
    s.proc.stdout!.on('data', (d) => { out += d; });
    const exited = new Promise<number | null>((r) => s.proc.once('exit', (code) => r(code)));
    const stuck = await heldReaders(s.port, PULL, 1);
    const t0 = performance.now();
    s.proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(JSON.parse(out.split('\n').find((l) => l.includes('"event":"shutdown"'))!)).toMatchObject({ in_flight_at_signal: 1, drained: 'timeout', unfinished: 1 });
    stuck.stop();
  });
});
