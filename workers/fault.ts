// A deliberate fault, for the worker-fault test only. The route that sends
// this job exists only when the server is started with CIVICSTREAM_FAULTS=1,
// which start-up refuses when NODE_ENV=production.

export interface FaultArgs {
  kind: 'throw' | 'exit';
}

export function fault(a: FaultArgs): never {
  if (a.kind === 'exit') process.exit(70);
  throw new Error('injected worker fault (CIVICSTREAM_FAULTS test hook)');
}
