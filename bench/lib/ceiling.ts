// The uWebSockets.js ceiling for a body of a given size, for the scripts that
// put their figures beside it in the same run: bench/lib/hello.ts (uWS
// answering every GET with a fixed body from memory) in a child process,
// loaded as the server is (autocannon, 32 connections). bench/load.ts has its
// own, which also reads the CPU a request and runs wrk.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../scripts/lib/server.js';
import { load } from './load.js';

export async function uwsCeiling(bytes: number, seconds: number): Promise<{ rps: number; p99: number }> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'dist/bench/lib/hello.js'), String(bytes)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      proc.once('exit', (code) => reject(new Error(`hello.js exited (${code})`)));
      proc.stdout!.once('data', (d) => resolve((JSON.parse(String(d)) as { port: number }).port));
    });
    const url = `http://127.0.0.1:${port}`;
    await load(url, () => '/', { connections: 32, seconds: Math.min(3, seconds) });
    const r = await load(url, () => '/', { connections: 32, seconds });
    return { rps: r.requestsPerSec, p99: r.p99 };
  } finally {
    proc.kill();
  }
}
