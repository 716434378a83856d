// Before listening: is the port free? This uWS build listens with
// SO_REUSEPORT, so a second instance on the same port would start and
// silently split the traffic with the first. A plain bind (without
// SO_REUSEPORT) fails with EADDRINUSE on a port uWS holds, which tells us the
// port is taken; a request to it then tells a civicstream apart from another
// program, and the refusal says which, naming the port.

import net from 'node:net';

/** null when the port can be bound now, else the error code (EADDRINUSE, EACCES, ...). */
function bindError(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    srv.listen({ host, port, exclusive: true }, () => srv.close(() => resolve(null)));
  });
}

/** The service name a civicstream on this port gives at `/api/v1/` (its metadata root), or null when what answers is not one (or nothing does). */
async function civicstreamAt(host: string, port: number): Promise<string | null> {
  const target = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  try {
    const r = await fetch(`http://${target.includes(':') ? `[${target}]` : target}:${port}/api/v1/`, { signal: AbortSignal.timeout(2000) });
    const body = (await r.json()) as { data?: { service?: unknown }[] };
    const service = body.data?.[0]?.service;
    return typeof service === 'string' && service.startsWith('civicstream') ? service : null;
  } catch {
    return null;
  }
}

/** Claims held for the life of the process (see claim). */
const claims: net.Server[] = [];

/**
 * Claims the port for this process among civicstreams on this machine: an abstract unix socket named for
 * it, which the kernel frees when the process ends. The bind check alone leaves a window: two instances
 * started at once both find the port free while they load, and an instance paused at its connection cap
 * (conn-gate.ts) has no listening socket to find. False when another process holds the claim.
 */
function claim(port: number): Promise<boolean> {
  // Abstract sockets are Linux's; elsewhere the bind check is all there is.
  if (process.platform !== 'linux') return Promise.resolve(true);
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', (e: NodeJS.ErrnoException) => resolve(e.code !== 'EADDRINUSE'));
    srv.listen({ path: `\0civicstream-port-${port}` }, () => { srv.unref(); claims.push(srv); resolve(true); });
  });
}

/**
 * Throws, naming the port, its variable and the cause, when `port` cannot be ours alone. Port 0 (any free
 * port) always can; with SHARE_PORT=true an operator asks for the kernel to spread one port's connections
 * over several instances, and nothing is checked (a port held without SO_REUSEPORT still fails at listen).
 */
export async function assertPortFree(host: string, port: number, variable: string, sharePort = false): Promise<void> {
  if (port === 0 || sharePort) return;
  const code = await bindError(host, port);
  if (code === null) {
    if (await claim(port)) return;
    throw new Error(`port ${port} (${variable}) is claimed by another civicstream on this machine (starting, or paused at its connection cap), and a second would split its traffic (uWS listens with SO_REUSEPORT). Stop it, set ${variable} to another port, or set SHARE_PORT=true to share the port on purpose.`);
  }
  if (code !== 'EADDRINUSE') throw new Error(`cannot listen on ${host}:${port} (${variable}): ${code}`);
  const other = await civicstreamAt(host, port);
  if (other !== null) {
    throw new Error(`port ${port} (${variable}) already serves ${other}: another instance is running there, and a second would split its traffic (uWS listens with SO_REUSEPORT). Stop it, set ${variable} to another port, or set SHARE_PORT=true to share the port on purpose.`);
  }
  throw new Error(`port ${port} (${variable}) is held by another program (EADDRINUSE); set ${variable} to a free port.`);
}
