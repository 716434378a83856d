// Figures of the process for /health that never fail the answer: reading the
// resident set size is a system call that fails when the process is out of
// descriptors (EMFILE), exactly when an operator most needs /health.

import v8 from 'node:v8';
import { accessLogStats } from './access-log.js';
import { compressionStats } from './compress.js';
import { connectionStats } from './conn-gate.js';

export function memoryStats(): { rss_bytes: number | null; heap_used_bytes: number } {
  let rss: number | null = null;
  try {
    rss = process.memoryUsage.rss();
  } catch {
    // Reported as null: the answer still says everything else.
  }
  return { rss_bytes: rss, heap_used_bytes: v8.getHeapStatistics().used_heap_size };
}

/** What both services' /health report of the process: memory, the access log, the connection gate and this thread's compression. */
export function processStats(): {
  memory: ReturnType<typeof memoryStats>; access_log: ReturnType<typeof accessLogStats>; connections: ReturnType<typeof connectionStats>; compression: ReturnType<typeof compressionStats>;
} {
  return { memory: memoryStats(), access_log: accessLogStats(), connections: connectionStats(), compression: compressionStats() };
}
