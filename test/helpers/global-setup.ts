// One finance server on the real v6 fixture for the whole run; tests that
// need other data start their own.

import type { TestProject } from 'vitest/node';
import { startServer, type Running } from './server.js';

let server: Running | undefined;

export async function setup(project: TestProject): Promise<void> {
  server = await startServer();
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
