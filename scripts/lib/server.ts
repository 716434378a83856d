// Starts the real server (the built dist/) as a child process on an ephemeral
// port and reads the port from its "listening" line. Shared by bench/ and
// test/: it lives in scripts/lib/ because tsc compiles scripts/ (so the
// benches, run from dist/bench/, can import it) and it is neither bench nor
// test code, so neither tree imports the other.

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url.replace('/dist/scripts/', '/scripts/'))));
export const MAIN = path.join(ROOT, 'dist/src/main.js');

export interface Running {
  url: string;
  /** The school arrest-rate service. */
  arrestsUrl: string;
  port: number;
  proc: ChildProcess;
  ready: Record<string, unknown>;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  stop(): Promise<number | null>;
}

export interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `main` lets a bench start another build of the server (an old worktree's); `nofile` starts it under
 * that descriptor limit (ulimit -n), for the connection-cap test.
 */
export function startServer(env: Record<string, string> = {}, timeoutMs = 60_000, main = MAIN, o: { nofile?: number } = {}): Promise<Running> {
  return new Promise((resolve, reject) => {
    const [cmd, args] = o.nofile === undefined
      ? [process.execPath, [main]]
      : ['bash', ['-c', `ulimit -n ${o.nofile} && exec "$0" "$1"`, process.execPath, main]];
    const proc = spawn(cmd, args, {
      // No bulk-file build unless asked (test/bulk-files.test.ts): it would take pool jobs and page slots from tests that count them.
      // No pause before closing on SIGTERM unless asked (test/ops.test.ts): each stop would take SHUTDOWN_DELAY_MS more.
      // No rate limits unless asked (test/rate-limits.test.ts): a fuzz run or a bench is one client sending thousands a second.
      env: { ...process.env, FINANCE_PORT: '0', ARRESTS_PORT: '0', ACCESS_LOG: 'false', WORKERS: '2', BULK_BUILD: 'false', SHUTDOWN_DELAY_MS: '0', RATE_LIMIT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '', err = '';
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`server did not start: ${err}`)); }, timeoutMs);
    proc.stderr!.on('data', (d) => { err += d; });
    proc.stdout!.on('data', (d) => {
      out += d;
      const lines = out.split('\n').filter((l) => l.includes('"event":"listening"')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const ready = lines.find((l) => l.service === 'finance'), arrests = lines.find((l) => l.service === 'arrests');
      if (!ready || !arrests) return;
      clearTimeout(timer);
      const port = Number(ready.port);
      resolve({
        url: `http://127.0.0.1:${port}`, arrestsUrl: `http://127.0.0.1:${Number(arrests.port)}`, port, proc, ready, stderr: () => err,
        stop: () => new Promise((r) => { if (proc.exitCode !== null) return r(proc.exitCode); proc.once('exit', (c) => r(c)); proc.kill('SIGTERM'); }),
      });
    });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}: ${err}`)); });
  });
}

/**
 * Runs the server expecting it to refuse to start; resolves with its exit. A server ended by a signal this
 * function did not send (another process's `pkill` on a shared machine) rejects, naming the signal, rather
 * than passing as an exit code of null that reads like a start that should have been refused.
 */
export function runToExit(env: Record<string, string>, timeoutMs = 60_000): Promise<Exited> {
  return new Promise((resolve, reject) => {
    let sent = false;
    const proc = spawn(process.execPath, [MAIN], {
      env: { ...process.env, FINANCE_PORT: '0', ARRESTS_PORT: '0', ACCESS_LOG: 'false', WORKERS: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '', stderr = '';
    proc.stdout!.on('data', (d) => {
      stdout += d;
      if (stdout.includes('"event":"listening"')) { sent = true; proc.kill('SIGKILL'); }
    });
    proc.stderr!.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { sent = true; proc.kill('SIGKILL'); }, timeoutMs);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== null && !sent) reject(new Error(`the server was ended by ${signal}, which runToExit did not send (another process killed it?); stderr: ${stderr.slice(-500)}`));
      else resolve({ code, stdout, stderr });
    });
  });
}
