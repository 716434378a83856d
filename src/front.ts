// A front thread of the finance API. With FRONT_THREADS above 1 the main
// thread loads the corpus once and starts this many threads; each runs its
// own uWS app on the shared port (the kernel spreads connections across
// them), its own pool for large jobs, and runs the small jobs (one
// government's history) itself: tens of microseconds of work that cost less
// than the round trip to a worker, and no longer queue behind one thread
// that reads, writes and hands off every request.
//
// The main thread supervises: it relays a stop, collects each thread's
// drain, and exits if a thread dies (as the process would, were that code on
// the main thread).

import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from './config.js';
import { financeCtx, financeService, type FinanceData } from './finance/http/service.js';
import { startBulkFiles } from './finance/http/bulk-start.js';
import { shareLogCounters } from './server/access-log.js';
import { shareGateStats } from './server/conn-gate.js';
import { shareReadiness } from './server/readiness.js';
import { shareRateTables } from './server/rate-stage.js';
import { shareBoards, type Boards } from './server/telemetry.js';
import { Listener } from './server/listener.js';
import { buildApp, drain, inFlight } from './server/http.js';
import { loadUws, type UWS } from './server/uws.js';

export interface FrontData {
  config: Config;
  data: FinanceData;
  /** The process's access-log counters (dropped lines), shared by every thread. */
  logCounters: SharedArrayBuffer;
  /** The connection gate's figures (main thread's), for /health. */
  gateStats: SharedArrayBuffer;
  /** The metrics' boards (telemetry.ts), and this thread's slot of the finance board. */
  boards: Boards;
  slot: number;
  /** The process's readiness flag (readiness.ts): set by the main thread on SIGTERM. */
  readiness: SharedArrayBuffer;
  /** The rate limits' tables (rate-stage.ts), one per service. */
  rateTables: Record<string, SharedArrayBuffer>;
}

/**
 * Messages a front thread posts to the main thread. It builds its context,
 * says ready, and listens on the port the main thread then sends (the first
 * thread may be sent 0; the others then share the port it got).
 */
export type FrontEvent =
  | { event: 'ready' }
  | { event: 'listening'; port: number }
  | { event: 'failed'; message: string }
  | { event: 'stopped'; inFlightAtSignal: number; drained: 'idle' | 'timeout'; unfinished: number }
  /** Answer to 'close': every uWS socket of this thread is closed, so the process may exit. */
  | { event: 'closed' };

const post = (e: FrontEvent): void => parentPort!.postMessage(e);

/** This thread's app and listener, once built: closed when the main thread is about to exit (see main.ts exit). */
let app: UWS.TemplatedApp | null = null;
let listener: Listener | null = null;
parentPort!.on('message', (m: unknown) => {
  if (m !== 'close') return;
  // Shut first: a 'resume' arriving later must not listen again on a closed app.
  listener?.shut();
  (app as unknown as { close(): void } | null)?.close();
  post({ event: 'closed' });
});

async function run(): Promise<void> {
  const { config, data, logCounters, gateStats, boards, slot, readiness, rateTables } = workerData as FrontData;
  shareLogCounters(logCounters);
  shareGateStats(gateStats);
  shareBoards(boards, slot);
  shareReadiness(readiness);
  shareRateTables(rateTables);
  const uws = loadUws();
  const ctx = await financeCtx(config, data, { inline: true });
  app = buildApp(uws, financeService(ctx, config));
  const port = await new Promise<number>((resolve) => {
    const take = (m: unknown): void => {
      if (typeof m === 'object' && m !== null && 'listen' in m) { parentPort!.off('message', take); resolve((m as { listen: number }).listen); }
    };
    parentPort!.on('message', take);
    post({ event: 'ready' });
  });
  const own = (listener = new Listener(uws, app, config.host, port));
  await own.open();
  startBulkFiles(ctx, config);
  parentPort!.on('message', (m: unknown) => {
    // The connection gate (main thread) closes and reopens every listening socket of the process.
    if (m === 'pause') own.close();
    if (m === 'resume') own.open().catch((err: unknown) => post({ event: 'failed', message: err instanceof Error ? err.message : String(err) }));
    if (m !== 'stop') return;
    own.shut();
    const inFlightAtSignal = inFlight();
    // The main thread ends the process once every front thread has stopped, having asked each to close
    // its sockets (idle keep-alive clients too): a thread torn down with uWS sockets open aborts the process.
    void drain(config.shutdownGraceMs).then(async (drained) => {
      const unfinished = inFlight();
      await ctx.pool.close().catch(() => {});
      post({ event: 'stopped', inFlightAtSignal, drained, unfinished });
    });
  });
  post({ event: 'listening', port: own.port });
}

// A failure is reported, and the main thread ends the process (see the stop above).
run().catch((err: unknown) => post({ event: 'failed', message: err instanceof Error ? err.message : String(err) }));
