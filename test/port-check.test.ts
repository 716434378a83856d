// A second instance on a port a civicstream already serves is refused, not
// started beside it (this uWS build listens with SO_REUSEPORT, so it would
// silently split the traffic); a port another program holds is named, with
// its cause (issue 23, finding 7).

import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { arrestsUrl, financeUrl } from './helpers/http.js';
import { runToExit } from './helpers/server.js';
import { portOf } from './helpers/raw-http.js';


describe('ports', () => {
  it('refuses to start on the port of a running civicstream, naming the port and the instance', async () => {
    const port = portOf(financeUrl());
    const got = await runToExit({ FINANCE_PORT: String(port) });
    expect(got.code).toBe(1);
    expect(got.stdout).not.toContain('"event":"listening"');
    expect(got.stderr).toContain(`port ${port} (FINANCE_PORT) already serves civicstream finance`);
    // The running instance still answers alone.
    expect((await fetch(`${financeUrl()}/api/v1/health`)).status).toBe(200);
  }, 60_000);

  it('refuses the school port too', async () => {
    const port = portOf(arrestsUrl());
    const got = await runToExit({ ARRESTS_PORT: String(port) });
    expect(got.code).toBe(1);
    expect(got.stderr).toContain(`port ${port} (ARRESTS_PORT) already serves civicstream`);
  }, 60_000);

  it('names a port another program holds, and the cause', async () => {
    const other = net.createServer((s) => s.end('not http\r\n'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as net.AddressInfo).port;
    try {
      const got = await runToExit({ HOST: '127.0.0.1', ARRESTS_PORT: String(port) });
      expect(got.code).toBe(1);
      expect(got.stderr).toContain(`port ${port} (ARRESTS_PORT) is held by another program (EADDRINUSE)`);
    } finally {
      other.close();
    }
  }, 60_000);

  it('refuses a port another civicstream has claimed but does not listen on (starting, or paused at its cap)', async () => {
    const free = net.createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as net.AddressInfo).port;
    await new Promise<void>((r) => free.close(() => r()));
    // The claim a civicstream holds for its port: an abstract unix socket named for it.
    const claim = net.createServer();
    await new Promise<void>((r) => claim.listen({ path: `\0civicstream-port-${port}` }, r));
    try {
      const got = await runToExit({ HOST: '127.0.0.1', FINANCE_PORT: String(port) });
      expect(got.code).toBe(1);
      expect(got.stderr).toContain(`port ${port} (FINANCE_PORT) is claimed by another civicstream on this machine`);
    } finally {
      claim.close();
    }
  }, 60_000);
});
