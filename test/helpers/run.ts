// A child process run to its end without blocking this thread: spawnSync stops the test's event loop, so a
// kept-alive connection's idle timer (undici's) cannot run meanwhile, and a fetch just after may reuse a socket the
// server closed while the child ran ("other side closed", seen with three test files at once).

import { spawn } from 'node:child_process';

export interface Ran { status: number | null; stdout: string; stderr: string }

/** Runs cmd with args, writing input to its stdin, until it exits (or timeoutMs, then killed: status null). */
export function runCommand(cmd: string, args: string[], o: { input?: string | Buffer; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [], err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), o.timeoutMs);
    child.on('error', (e) => { clearTimeout(timer); resolve({ status: null, stdout: '', stderr: String(e) }); });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ status: code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => {}); // a child that exits without reading its input
    child.stdin.end(o.input ?? '');
  });
}
