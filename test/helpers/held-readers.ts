// Readers that hold an answer in flight (test/helpers/held-reader.py): N
// connections with a 4 KB receive window, each reading only the first bytes
// of its answer, so the server really has bytes left to send; readAll()
// reads each to its end.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Held {
  readAll(): Promise<{ status: number; rows: number; ends_with_crlf: boolean }[]>;
  stop(): void;
}

export async function heldReaders(port: number, path: string, n: number): Promise<Held> {
  const proc = spawn('python3', [fileURLToPath(new URL('./held-reader.py', import.meta.url)), '127.0.0.1', String(port), path, String(n)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout!.on('data', (d) => { out += d; });
  await new Promise<void>((resolve, reject) => {
    const onData = (): void => { if (out.includes('ready')) { proc.stdout!.off('data', onData); resolve(); } };
    proc.stdout!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`held readers exited ${code}`)));
  });
  return {
    readAll: () => new Promise((resolve, reject) => {
      proc.stdout!.on('data', () => {
        const line = out.split('\n').find((l) => l.startsWith('['));
        if (line) resolve(JSON.parse(line));
      });
      proc.once('exit', (code) => reject(new Error(`held readers exited ${code}: ${out}`)));
      proc.stdin!.write('go\n');
    }),
    stop: () => proc.kill(),
  };
}
