// A client that disconnects at any moment never crashes the server: requests
// are dropped before, during and after the pool job, and the server answers
// normally afterwards.

import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { financeUrl, get } from './helpers/http.js';

function dropAfter(port: number, path: string, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      setTimeout(() => { sock.destroy(); resolve(); }, delayMs);
    });
    sock.on('error', () => resolve());
  });
}

describe('client aborts', () => {
  it('survives 600 requests dropped before or while they are answered', async () => {
    const port = Number(new URL(financeUrl()).port);
    const paths = ['/api/v1/governments/062037161174', '/api/v1/governments?q=city&limit=1000', '/api/v1/data-dictionary', '/__docs__/swagger-ui-bundle.js'];
    for (let round = 0; round < 6; round++) {
      await Promise.all(Array.from({ length: 100 }, (_, i) => dropAfter(port, paths[i % paths.length]!, i % 3)));
    }
    const after = await get('/api/v1/governments/062037161174');
    expect(after.status).toBe(200);
    expect(after.body.data[0].gov_name).toBe('LOS ANGELES CITY');
    expect((await get('/api/v1/health')).status).toBe(200);
  });
});
