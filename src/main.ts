// Entry point: `npm start` / `civicstream serve`. Loads and verifies the data,
// starts the pool, then listens. Prints one JSON line per service when ready.

import { readConfig } from './config.js';
import { LoadError } from './corpus/parquet.js';
import { loadFinance, financeService } from './finance/service.js';
import { buildApp } from './server/http.js';
import { loadUws, type UWS } from './server/uws.js';

async function main(): Promise<void> {
  const t0 = performance.now();
  const config = readConfig();
  const uws = loadUws();
  const finance = await loadFinance(config);
  const app = buildApp(uws, financeService(finance, config));
  const listen = await listenOn(uws, app, config.host, config.financePort);
  const port = uws.us_socket_local_port(listen as unknown as UWS.us_socket);
  process.stdout.write(`${JSON.stringify({
    event: 'listening', service: 'finance', host: config.host, port,
    startup_ms: Math.round(performance.now() - t0), load_ms: Math.round(finance.stats.ms),
    rows: finance.stats.rows, shared_bytes: finance.stats.sharedBytes, workers: config.workers,
    rss_bytes: process.memoryUsage.rss(),
  })}\n`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    uws.us_listen_socket_close(listen);
    void finance.pool.close().finally(() => process.exit(0));
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
