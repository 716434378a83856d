// HTTP over a raw socket, for tests of what the server does on the wire:
// when it closes, what it sends to pipelined or odd requests.

import net from 'node:net';

export const portOf = (base: string): number => Number(new URL(base).port);

export interface Exchange {
  /** Everything the server sent, as latin1 text. */
  text: string;
  /** ms from the first write until the server closed, or null if it was still open at the deadline. */
  closedAfter: number | null;
}

/** Writes each request (after the given delay in ms), then waits until the server closes or deadlineMs passes. */
export function exchange(port: number, writes: [number, string][], deadlineMs: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let text = '';
    const t0 = Date.now();
    const timer = setTimeout(() => { sock.destroy(); resolve({ text, closedAfter: null }); }, deadlineMs);
    sock.on('data', (d) => { text += d.toString('latin1'); });
    sock.on('error', (e) => { clearTimeout(timer); reject(e); });
    sock.on('close', () => { clearTimeout(timer); resolve({ text, closedAfter: Date.now() - t0 }); });
    sock.on('connect', () => { for (const [delay, req] of writes) setTimeout(() => sock.write(req), delay); });
  });
}

export const req = (method: string, path: string): string => `${method} ${path} HTTP/1.1\r\nHost: test\r\n\r\n`;
export const statuses = (text: string): number[] => [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));

/** The status line and headers of every answer, by status order; bodies are not parsed. */
export function contentLengths(text: string): (number | null)[] {
  return text.split(/^HTTP\/1\.1 /m).slice(1).map((a) => {
    const m = /\r\ncontent-length: (\d+)\r\n/i.exec(a.split('\r\n\r\n')[0] + '\r\n');
    return m ? Number(m[1]) : null;
  });
}
