// The listening socket the connection gate closes and opens again (issue 23,
// finding 2): closing twice does nothing (uWS would crash on a socket closed
// twice), it listens again on the same port, and once shut for good an open
// (a gate's late resume) does not listen: the process can end cleanly.

import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { Listener } from '../dist/src/server/listener.js';
import { loadUws } from '../dist/src/server/uws.js';

const connects = (port: number): Promise<boolean> => new Promise((resolve) => {
  const c = net.connect(port, '127.0.0.1');
  c.once('connect', () => { c.destroy(); resolve(true); });
  c.once('error', () => resolve(false));
});

describe('Listener', () => {
  it('closes once, listens again on its port, and stays shut', async () => {
    const uws = loadUws();
    const app = uws.App().get('/*', (res) => { res.end('ok'); });
    const l = new Listener(uws, app, '127.0.0.1', 0);
    await l.open();
    const port = l.port;
    expect(port).toBeGreaterThan(0);
    expect(await connects(port)).toBe(true);
    l.close();
    l.close();
    expect(await connects(port)).toBe(false);
    await l.open();
    await l.open();
    expect(l.port).toBe(port);
    expect(await connects(port)).toBe(true);
    l.shut();
    await l.open();
    expect(await connects(port)).toBe(false);
    (app as unknown as { close(): void }).close();
  });
});
