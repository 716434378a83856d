// A deliberate fault, for the worker-fault test only. The route that sends
// this job exists only when the server is started with CIVICSTREAM_FAULTS=1,
// which start-up refuses when NODE_ENV=production.

import type { FaultArgs } from '../src/job-runner.js';

/** How long a hanging job blocks its worker: far longer than a test waits to see it cancelled. */
const HANG_MS = 10_000;

export function fault(a: FaultArgs): never {
  if (a.kind === 'exit') process.exit(70);
  // Blocks the thread as a runaway job would: only cancelling the job (ending its worker) frees it sooner.
  if (a.kind === 'hang') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, HANG_MS);
  throw new Error('injected worker fault (CIVICSTREAM_FAULTS test hook)');
}
