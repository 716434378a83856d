// Readiness as a balancer reads it (/readyz). A process is ready once it
// listens: the corpus is loaded and verified before that. It stops being
// ready the moment it is asked to stop (SIGTERM), before its listening
// sockets close (main.ts waits SHUTDOWN_DELAY_MS), so a balancer that polls
// /readyz stops sending while the server still answers. The flag is one word
// of shared memory, so every front thread reads the main thread's.

import { isDraining } from './lifecycle.js';

let flag = new Int32Array(new SharedArrayBuffer(4));

/** The process's flag, to hand to the front threads (main.ts), or adopted by one (front.ts). */
export function shareReadiness(shared?: SharedArrayBuffer): SharedArrayBuffer {
  if (shared !== undefined) flag = new Int32Array(shared);
  return flag.buffer as SharedArrayBuffer;
}

/** From now on /readyz answers 503 on every thread. */
export function markStopping(): void {
  Atomics.store(flag, 0, 1);
}

/** Why this process is not ready (shutting down), or null. A service adds its own checks (a live worker). */
export function processNotReady(): string | null {
  if (Atomics.load(flag, 0) === 1 || isDraining()) return 'shutting down: the server is draining its requests';
  return null;
}
