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

/**
 * Writes each request (after the given delay in ms), then waits until the server closes or deadlineMs passes; given
 * the requests' methods, also until that many answers are whole (then closedAfter is null: the socket was open).
 */
export function exchange(port: number, writes: [number, string][], deadlineMs: number, methods?: string[]): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let text = '';
    const t0 = Date.now();
    const timer = setTimeout(() => { sock.destroy(); resolve({ text, closedAfter: null }); }, deadlineMs);
    sock.on('data', (d) => {
      text += d.toString('latin1');
      if (methods !== undefined && parseAnswers(Buffer.from(text, 'latin1'), methods).answers.length === methods.length) {
        clearTimeout(timer);
        sock.destroy();
        resolve({ text, closedAfter: null });
      }
    });
    sock.on('error', (e) => { clearTimeout(timer); reject(e); });
    sock.on('close', () => { clearTimeout(timer); resolve({ text, closedAfter: Date.now() - t0 }); });
    sock.on('connect', () => { for (const [delay, req] of writes) setTimeout(() => sock.write(req), delay); });
  });
}

/**
 * Sends the requests on one connection in turn, each once the answers before it are whole (a kept-alive client that
 * waits, rather than a fixed pause a busy machine can outrun), and resolves once every answer is whole, the server
 * closes, or deadlineMs passes: `text` is everything sent back, `answers` the whole answers in it.
 */
export function exchangeInTurn(port: number, requests: [method: string, text: string][], deadlineMs: number): Promise<Exchange & { answers: RawAnswer[] }> {
  const methods = requests.map(([m]) => m);
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let bytes = Buffer.alloc(0), sent = 0;
    const t0 = Date.now();
    const done = (closedAfter: number | null): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve({ text: bytes.toString('latin1'), closedAfter, answers: parseAnswers(bytes, methods).answers });
    };
    const timer = setTimeout(() => done(null), deadlineMs);
    const next = (): void => {
      const whole = parseAnswers(bytes, methods).answers.length;
      if (whole === requests.length) return done(null);
      if (whole === sent && sent < requests.length) sock.write(requests[sent++]![1]);
    };
    sock.on('data', (d) => { bytes = Buffer.concat([bytes, d]); next(); });
    sock.on('error', (e) => { clearTimeout(timer); reject(e); });
    sock.on('close', () => done(Date.now() - t0));
    sock.on('connect', next);
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

export interface RawAnswer {
  status: number;
  /** Header names in lower case; a repeated name keeps its last value. */
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Reads the answers in bytes one after another, as a client on the connection would: each framed by its
 * Content-Length or chunked coding, with no body after a HEAD (methods[i] is the method of the i-th request),
 * a 204 or a 304. Stops at the first answer that is not whole; `rest` is what is left unread (empty when every
 * byte belonged to a whole answer).
 */
export function parseAnswers(bytes: Buffer, methods: string[]): { answers: RawAnswer[]; rest: Buffer } {
  const answers: RawAnswer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at, 'latin1');
    if (end < 0) break;
    const lines = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.1 (\d{3}) /.exec(lines[0]!);
    if (m === null) break;
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    let p = end + 4;
    let body: Buffer;
    if (methods[answers.length] === 'HEAD' || status === 204 || status === 304) body = Buffer.alloc(0);
    else if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      let whole = false;
      for (;;) {
        const le = bytes.indexOf('\r\n', p, 'latin1');
        if (le < 0) break;
        const size = parseInt(bytes.subarray(p, le).toString('latin1'), 16);
        if (!Number.isFinite(size) || le + 2 + size + 2 > bytes.length) break;
        parts.push(bytes.subarray(le + 2, le + 2 + size));
        p = le + 2 + size + 2;
        if (size === 0) { whole = true; break; }
      }
      if (!whole) break;
      body = Buffer.concat(parts);
    } else {
      const n = Number(headers['content-length'] ?? NaN);
      if (!Number.isFinite(n) || p + n > bytes.length) break;
      body = bytes.subarray(p, p + n);
      p += n;
    }
    answers.push({ status, headers, body });
    at = p;
  }
  return { answers, rest: bytes.subarray(at) };
}
