// The uWebSockets.js ceiling for a body of a given size, for the scripts that
// put their figures beside it in the same run: bench/lib/hello.ts (uWS
// answering every GET with a fixed body from memory) in a child process,
// loaded as the server is (autocannon, 32 connections). bench/load.ts,
// first-byte.ts and gzip-served.ts load it their own ways through withHello.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../scripts/lib/server.js';
import { load } from './load.js';

/**
 * bench/lib/hello.ts answering every GET with a fixed body of `bytes`, in a child process, for as long as
 * `use` runs: the one place the benches start it (pairs, load, first-byte, gzip-served). `use` gets its
 * base URL and its process id (for its CPU).
 */
export async function withHello<T>(bytes: number, use: (url: string, pid: number) => Promise<T> | T): Promise<T> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'dist/bench/lib/hello.js'), String(bytes)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      proc.once('exit', (code) => reject(new Error(`hello.js exited (${code})`)));
      proc.stdout!.once('data', (d) => resolve((JSON.parse(String(d)) as { port: number }).port));
    });
    return await use(`http://127.0.0.1:${port}`, proc.pid!);
  } finally {
    proc.kill();
  }
}

export function uwsCeiling(bytes: number, seconds: number): Promise<{ rps: number; p99: number }> {
  return withHello(bytes, async (url) => {
    await load(url, () => '/', { connections: 32, seconds: Math.min(3, seconds) });
    const r = await load(url, () => '/', { connections: 32, seconds });
    return { rps: r.requestsPerSec, p99: r.p99 };
  });
}
