// The uWebSockets.js ceiling on this machine: a server answering every GET
// with the same fixed body (of a given size) straight from memory. Run as a
// child process by the load benchmark, which reads the port from stdout.
//   node dist/bench/lib/hello.js <bytes>

import { loadUws, type UWS } from '../../src/server/uws.js';

const uws = loadUws();
const body = Buffer.alloc(Number(process.argv[2] ?? '2'), 'x');
const app = uws.App();
app.get('/*', (res) => {
  res.cork(() => res.writeHeader('Content-Type', 'application/json; charset=utf-8').end(body));
});
app.listen('127.0.0.1', 0, (sock) => {
  if (!sock) process.exit(1);
  process.stdout.write(`${JSON.stringify({ port: uws.us_socket_local_port(sock as unknown as UWS.us_socket) })}\n`);
});
