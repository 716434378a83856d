// Entry point: `npm start` / `civicstream serve`. Loads and verifies both
// mirrors, starts the pool, then listens: the finance API on FINANCE_PORT and
// the school arrest-rate API on ARRESTS_PORT. Prints one JSON line per
// service when it is ready; refuses to start on any data fault.

import { readConfig } from './config.js';
import { LoadError } from './corpus/load-error.js';
import { loadFinance, financeService } from './finance/service.js';
import { loadArrests, arrestsService } from './arrests/service.js';
import { buildApp, drain, inFlight } from './server/http.js';
import { loadUws, type UWS } from './server/uws.js';

async function main(): Promise<void> {
  const t0 = performance.now();
  const config = readConfig();
  const uws = loadUws();
  const [finance, arrests] = await Promise.all([loadFinance(config), loadArrests(config)]);
  const sockets: UWS.us_listen_socket[] = [];
  const announce = async (service: string, app: UWS.TemplatedApp, port: number, extra: Record<string, unknown>): Promise<void> => {
    const sock = await listenOn(uws, app, config.host, port);
    sockets.push(sock);
    process.stdout.write(`${JSON.stringify({
      event: 'listening', service, host: config.host, port: uws.us_socket_local_port(sock as unknown as UWS.us_socket),
      startup_ms: Math.round(performance.now() - t0), workers: config.workers, rss_bytes: process.memoryUsage.rss(), ...extra,
    })}\n`);
  };
  await announce('finance', buildApp(uws, financeService(finance, config)), config.financePort, {
    load_ms: Math.round(finance.stats.ms), loader_threads: finance.stats.loaders, rows: finance.stats.rows, shared_bytes: finance.stats.sharedBytes,
  });
  await announce('arrests', buildApp(uws, arrestsService(arrests, config)), config.arrestsPort, {
    districts: arrests.districts.length, draw_rows: arrests.summaries.build.rows, summaries: arrests.summaries.build,
  });

  // Stop listening, let the answers in flight finish (bounded), then exit 0.
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    for (const s of sockets) uws.us_listen_socket_close(s);
    const inFlightAtSignal = inFlight();
    void drain(config.shutdownGraceMs)
      .then((how) => {
        process.stdout.write(`${JSON.stringify({ event: 'shutdown', in_flight_at_signal: inFlightAtSignal, drained: how, unfinished: inFlight() })}\n`);
        return finance.pool.close();
      })
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function listenOn(uws: typeof UWS, app: UWS.TemplatedApp, host: string, port: number): Promise<UWS.us_listen_socket> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, (sock) => (sock ? resolve(sock) : reject(new Error(`cannot listen on ${host}:${port}`))));
  });
}

main().catch((err: unknown) => {
  if (err instanceof LoadError) process.stderr.write(`civicstream: refusing to start: data fault in ${err.message}\n`);
  else process.stderr.write(`civicstream: refusing to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
