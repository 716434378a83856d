// One finance server on the real v6 fixture for the whole run; tests that
// need other data start their own.

import type { TestProject } from 'vitest/node';
import { startServer, type Running } from './server.js';

let server: Running | undefined;

export async function setup(project: TestProject): Promise<void> {
  // Every test file shares this server at once; its queue bound is tested on a server of its own (overload.test.ts).
  // With its bulk files (built once into the fixture's gitignored cache, then found there): every route's
  // example answers, /api/v1/bulk/files/{name} included. No test reads this server's pool or slot counts.
  server = await startServer({ POOL_QUEUE: '10000', BULK_BUILD: 'true' });
  for (let t = 0; t < 600; t++) {
    const listing = await (await fetch(`${server.url}/api/v1/bulk`)).json() as { meta: { ready: number; total: number } };
    if (listing.meta.ready === listing.meta.total) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  project.provide('financeUrl', server.url);
  project.provide('arrestsUrl', server.arrestsUrl);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    financeUrl: string;
    arrestsUrl: string;
  }
}
