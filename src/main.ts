// Entry point: `npm start` / `civicstream serve`. Loads and verifies both
// mirrors, starts the pool, then listens: the finance API on FINANCE_PORT and
// the school arrest-rate API on ARRESTS_PORT. Prints one JSON line per
// service when it is ready; refuses to start on any data fault.
//
// With FRONT_THREADS above 1 the finance API is served by that many front
// threads on the one port (src/front.ts); this thread loads the corpus once,
// serves the school API and supervises them.

import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { readConfig, type Config } from './config.js';
import { LoadError } from './corpus/load-error.js';
import { collectGarbage } from './corpus/shared.js';
import { loadFinance, loadFinanceData, financeService, type FinanceData } from './finance/http/service.js';
import { startBulkFiles } from './finance/http/bulk-start.js';
import { loadArrests, arrestsService } from './arrests/http/service.js';
import { shareLogCounters } from './server/access-log.js';
import { ConnectionGate, defaultCap, descriptorLimit, openDescriptors, shareGateStats } from './server/conn-gate.js';
import { Listener } from './server/listener.js';
import { assertPortFree } from './server/port-check.js';
import { buildApp, drain, inFlight } from './server/http.js';
import { humanLine } from './human-line.js';
import { markStopping, shareReadiness } from './server/readiness.js';
import { newBoard, shareBoards } from './server/telemetry.js';
import { shareRateTables } from './server/rate-stage.js';
import { RateLimiter } from './server/rate-limit.js';
import { loadUws, type UWS } from './server/uws.js';
import type { FrontData, FrontEvent } from './front.js';

/** The front threads started so far (see exit). */
const frontThreads: Worker[] = [];
/** The connection gate, once started: stopped on every way out, so it never reopens a socket of an ending process. */
let gate: ConnectionGate | null = null;

/**
 * Ends the process. A thread torn down with uWS sockets open aborts the
 * process (uv_loop_close with open handles), so each front thread is first
 * asked to close its sockets; one that does not answer within a second (a
 * stuck thread) is not waited for.
 */
async function exit(code: number): Promise<never> {
  gate?.stop();
  await Promise.all(frontThreads.map((w) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 1000);
    w.on('message', (e: FrontEvent) => { if (e.event === 'closed') { clearTimeout(timer); resolve(); } });
    w.once('exit', () => { clearTimeout(timer); resolve(); });
    // A thread that has already exited gets nothing and answers nothing: it holds no socket.
    if (w.threadId === -1) { clearTimeout(timer); resolve(); return; }
    w.postMessage('close');
  })));
  process.exit(code);
}

/** How the finance API runs: on this thread, or on front threads. */
interface FinanceServer {
  port: number;
  extra: Record<string, unknown>;
  stopListening(): void;
  /** The connection gate's hands (src/server/conn-gate.ts): stop accepting, and accept again. */
  pause(): void;
  resume(): void;
  /** What the front threads had in flight at the stop and left unfinished (this thread's own requests are drained by main). */
  drained(): Promise<{ inFlightAtSignal: number; drained: 'idle' | 'timeout'; unfinished: number }>;
  close(): Promise<void>;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const config = readConfig();
  // Refused before the corpus loads: a port taken (by a civicstream or anything else) is known at once.
  await assertPortFree(config.host, config.financePort, 'FINANCE_PORT', config.sharePort);
  await assertPortFree(config.host, config.arrestsPort, 'ARRESTS_PORT', config.sharePort);
  const uws = loadUws();
  // The metrics' boards: one slot per thread that serves the service (telemetry.ts); this thread is slot 0.
  shareBoards({ finance: newBoard(config.frontThreads > 1 ? config.frontThreads : 1), arrests: newBoard(1) }, 0);
  // The rate limits' buckets: one table per service for the whole process, so a client has one limit whichever thread answers.
  if (config.rateLimit > 0) shareRateTables({ finance: RateLimiter.table(), arrests: RateLimiter.table() });
  // A refused start ends only once both loads have stopped: exiting while the other service's workers were
  // still starting aborted the process now and then (uv_loop_close() with open handles, SIGABRT) instead of
  // exiting 1 with the reason. The one that started is closed, then the first failure is the answer.
  const [financeStart, arrestsStart] = await Promise.allSettled([
    config.frontThreads > 1 ? startFronts(config) : startHere(uws, config),
    loadArrests(config),
  ]);
  if (financeStart.status === 'rejected' || arrestsStart.status === 'rejected') {
    if (financeStart.status === 'fulfilled') await financeStart.value.close().catch(() => undefined);
    throw financeStart.status === 'rejected' ? financeStart.reason : (arrestsStart as PromiseRejectedResult).reason;
  }
  const [finance, arrests] = [financeStart.value, arrestsStart.value];
  const line = (service: string, port: number, extra: Record<string, unknown>): void => {
    process.stdout.write(`${JSON.stringify({
      event: 'listening', service, host: config.host, port,
      startup_ms: Math.round(performance.now() - t0), workers: config.workers, rss_bytes: process.memoryUsage.rss(), ...extra,
    })}\n`);
    // A person at a terminal (npm start) gets one line to click besides the log (issue 22, item 8); a pipe or a file, the JSON alone.
    if (process.stderr.isTTY) process.stderr.write(`${humanLine(service, config.host, port)}\n`);
  };
  line('finance', finance.port, finance.extra);
  const arrestsListener = new Listener(uws, buildApp(uws, arrestsService(arrests, config)), config.host, config.arrestsPort);
  await arrestsListener.open();
  gate = new ConnectionGate(config.maxConnections ?? defaultCap(descriptorLimit(), openDescriptors() ?? 0), {
    pause: () => { arrestsListener.close(); finance.pause(); },
    resume: () => { arrestsListener.open().catch(reopenFailed); finance.resume(); },
  });
  gate.start();
  // Not ready at once (/readyz 503 on every thread); on SIGTERM keep answering for SHUTDOWN_DELAY_MS, so a
  // balancer polling /readyz stops sending first; then stop listening, let the answers in flight finish
  // (bounded), and exit 0. Ctrl-C (SIGINT) at a terminal has no balancer to wait for.
  let stopping = false;
  let delayed: NodeJS.Timeout | undefined;
  const stop = (signal: NodeJS.Signals): void => {
    // A second signal during the delay (Ctrl-C after SIGTERM) closes at once.
    if (stopping) { if (delayed !== undefined) { clearTimeout(delayed); delayed = undefined; close(); } return; }
    stopping = true;
    markStopping();
    const delay = signal === 'SIGTERM' ? config.shutdownDelayMs : 0;
    if (delay > 0) delayed = setTimeout(() => { delayed = undefined; close(); }, delay);
    else close();
  };
  const close = (): void => {
    gate?.stop();
    arrestsListener.shut();
    finance.stopListening();
    const here = inFlight();
    void Promise.all([finance.drained(), drain(config.shutdownGraceMs)])
      .then(async ([f, how]) => {
        process.stdout.write(`${JSON.stringify({
          event: 'shutdown', in_flight_at_signal: here + f.inFlightAtSignal, drained: how === 'idle' && f.drained === 'idle' ? 'idle' : 'timeout', unfinished: inFlight() + f.unfinished,
        })}\n`);
        await finance.close();
      })
      .finally(() => void exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Last: whoever starts the server on this line may signal it at once, so the handlers come first.
  line('arrests', arrestsListener.port, {
    districts: arrests.districts.length, draw_rows: arrests.summaries.build.rows, summaries: arrests.summaries.build,
  });
}

/** The finance API on this thread, its jobs on the pool. */
async function startHere(uws: typeof UWS, config: Config): Promise<FinanceServer> {
  const ctx = await loadFinance(config);
  const listener = new Listener(uws, buildApp(uws, financeService(ctx, config)), config.host, config.financePort);
  await listener.open();
  startBulkFiles(ctx, config);
  return {
    port: listener.port,
    extra: { load_ms: Math.round(ctx.stats.ms), loader_threads: ctx.stats.loaders, rows: ctx.stats.rows, shared_bytes: ctx.stats.sharedBytes, count_index_bytes: ctx.stats.countIndexBytes, front_threads: 1 },
    stopListening: () => listener.shut(),
    pause: () => listener.close(),
    resume: () => { listener.open().catch(reopenFailed); },
    drained: () => Promise.resolve({ inFlightAtSignal: 0, drained: 'idle', unfinished: 0 }),
    close: () => ctx.pool.close(),
  };
}

/**
 * The finance API on config.frontThreads front threads sharing one port. The
 * corpus is loaded here once: its columns are shared memory, so every thread
 * reads the same bytes; each gets its own copy of the catalog.
 */
async function startFronts(config: Config): Promise<FinanceServer> {
  let data: FinanceData | null = await loadFinanceData(config);
  const extra = { load_ms: Math.round(data.stats.ms), loader_threads: data.stats.loaders, rows: data.stats.rows, shared_bytes: data.stats.sharedBytes, count_index_bytes: data.stats.countIndexBytes, front_threads: config.frontThreads };
  const stopped: Promise<Extract<FrontEvent, { event: 'stopped' }>>[] = [];
  let stopping = false;
  // A front thread that fails or dies takes the service down, as the process would were its code on this thread.
  const down = (why: string): void => {
    process.stderr.write(`civicstream: a finance front thread ${why}; exiting.\n`);
    void exit(1);
  };
  /** A front thread, resolved once it has built its context; listen() then starts it on a port. */
  const spawn = (k: number): Promise<{ listen(port: number): Promise<number> }> => new Promise((ready, fail) => {
    const w = new Worker(new URL('./front.js', import.meta.url), {
      workerData: { config: frontShare(config, k), data: data!, logCounters: shareLogCounters(), gateStats: shareGateStats(), boards: shareBoards(), slot: k, readiness: shareReadiness(), rateTables: shareRateTables() } satisfies FrontData,
    });
    frontThreads.push(w);
    // Until it listens, a failure fails its start (the server refuses to start); after, it takes the service down.
    let listening: { resolve(port: number): void; reject(e: Error): void } | null = null;
    let started = false;
    stopped.push(new Promise((done) => w.on('message', (e: FrontEvent) => { if (e.event === 'stopped') done(e); })));
    w.on('message', (e: FrontEvent) => {
      if (e.event === 'ready') {
        started = true;
        ready({ listen: (port) => new Promise((resolve, reject) => { listening = { resolve, reject }; w.postMessage({ listen: port }); }) });
      } else if (e.event === 'listening') {
        listening?.resolve(e.port);
        listening = null;
      } else if (e.event === 'failed') {
        if (!started) fail(new Error(e.message));
        else if (listening) listening.reject(new Error(e.message));
        else down(`failed: ${e.message}`);
      }
    });
    w.on('error', (err) => (started ? down(`failed: ${err.message}`) : fail(err)));
    w.on('exit', (code) => { if (!stopping) down(`stopped (exit code ${code})`); });
  });
  // Every thread builds its context at once, then all listen on one port. uWS shares a port between
  // sockets (SO_REUSEPORT) only when it is given a number, so port 0 is resolved here first. (Between
  // that probe and the threads' bind, another process could take the same free port: port 0 is for tests.)
  const fronts = await Promise.all(Array.from({ length: config.frontThreads }, (_, k) => spawn(k)));
  const port = config.financePort === 0 ? await freePort(config.host) : config.financePort;
  await Promise.all(fronts.map((f) => f.listen(port)));
  // The catalog's copy on this thread is not needed once every front thread has its own; and this
  // thread, idle from now on, would not collect it (nor what a load from parquet left) for a long while.
  data = null;
  collectGarbage();
  return {
    port, extra,
    stopListening: () => {
      stopping = true;
      for (const w of frontThreads) w.postMessage('stop');
    },
    pause: () => { for (const w of frontThreads) w.postMessage('pause'); },
    resume: () => { for (const w of frontThreads) w.postMessage('resume'); },
    drained: async () => {
      // Each thread's drain is bounded by SHUTDOWN_GRACE_MS; a thread that cannot even report (stuck) is not waited for past it.
      const late = { event: 'stopped', inFlightAtSignal: 0, drained: 'timeout', unfinished: 0 } as const;
      const bound = new Promise<typeof late>((r) => setTimeout(() => r(late), config.shutdownGraceMs + 2000).unref());
      const all = await Promise.all(stopped.map((p) => Promise.race([p, bound])));
      return {
        inFlightAtSignal: all.reduce((n, e) => n + e.inFlightAtSignal, 0),
        drained: all.every((e) => e.drained === 'idle') ? 'idle' : 'timeout',
        unfinished: all.reduce((n, e) => n + e.unfinished, 0),
      };
    },
    // Each front thread closed its pool before it reported stopped; the process exit ends the threads.
    close: () => Promise.resolve(),
  };
}

/** Front thread k's share of the pool, its queue, the response cache and the CSV page slots (the shares add up to the totals). */
function frontShare(config: Config, k: number): Config {
  const n = config.frontThreads;
  const share = (total: number): number => Math.floor(total / n) + (k < total % n ? 1 : 0);
  return {
    ...config,
    // Every front thread needs a worker for its large jobs, so WORKERS below FRONT_THREADS gives one each.
    workers: Math.max(1, share(config.workers)),
    poolQueue: share(config.poolQueue),
    // Not rounded: a share of a megabyte is a byte budget all the same, and rounding up to one each made the shares exceed a small total.
    responseCacheMb: config.responseCacheMb / n,
    // Every front thread needs a slot to stream any CSV at all.
    csvPageSlots: Math.max(1, share(config.csvPageSlots)),
    // One thread finds or builds the bulk files; the others follow it (src/finance/http/bulk-start.ts).
    bulkOwner: k === 0,
  };
}

/** A port free on host now (the kernel's pick for port 0). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A port the gate could not listen on again (another program took it meanwhile): the service cannot go on. */
function reopenFailed(err: unknown): void {
  process.stderr.write(`civicstream: ${err instanceof Error ? err.message : String(err)} after pausing at the connection cap; exiting.\n`);
  void exit(1);
}

main().catch((err: unknown) => {
  if (err instanceof LoadError) process.stderr.write(`civicstream: refusing to start: data fault in ${err.message}\n`);
  else process.stderr.write(`civicstream: refusing to start: ${err instanceof Error ? err.message : String(err)}\n`);
  void exit(1);
});
