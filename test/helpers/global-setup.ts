// One finance server on the real v6 fixture for the whole run; tests that
// need other data start their own.

import type { TestProject } from 'vitest/node';
import { startServer, type Running } from './server.js';

let server: Running | undefined;

export async function setup(project: TestProject): Promise<void> {
  // Every test file shares this server at once; its queue bound is tested on a server of its own (overload.test.ts).
  server = await startServer({ POOL_QUEUE: '10000' });
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
