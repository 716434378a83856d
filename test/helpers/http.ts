// Small HTTP helpers over fetch for the tests.

import http from 'node:http';
import net from 'node:net';
import { expect, inject } from 'vitest';

export const financeUrl = (): string => inject('financeUrl');
export const arrestsUrl = (): string => inject('arrestsUrl');

export interface Got<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function get<T = any>(pathOrUrl: string, init?: RequestInit, base = financeUrl()): Promise<Got<T>> {
  const res = await fetch(pathOrUrl.startsWith('http') ? pathOrUrl : `${base}${pathOrUrl}`, init);
  const text = await res.text();
  let body: any = text;
  if (text !== '' && (res.headers.get('content-type') ?? '').includes('application/json')) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, body, text };
}

/** Asserts the error envelope of the spec and returns the message. */
export function expectErrorEnvelope(got: Got, status: number): string {
  const b = got.body;
  if (got.status !== status) throw new Error(`expected ${status}, got ${got.status}: ${got.text.slice(0, 300)}`);
  const keys = Object.keys(b).sort().join(',');
  if (keys !== 'data,error,meta,provenance,status,suggestions') throw new Error(`envelope keys ${keys}`);
  if (b.status !== 'error' || b.data !== null || b.provenance !== null || !Array.isArray(b.suggestions) || b.suggestions.length !== 0 || b.meta.version !== 'v1' || typeof b.error !== 'string') {
    throw new Error(`not an error envelope: ${got.text.slice(0, 300)}`);
  }
  return b.error as string;
}

/**
 * A GET sent as written: fetch normalizes paths (dots, slashes) and will not
 * let a client set Host, so path and header tests go through node:http.
 */
export function rawGet(path: string, o: { base?: string; headers?: Record<string, string> } = {}): Promise<Got> {
  const u = new URL(o.base ?? financeUrl());
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, method: 'GET', headers: o.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        const json = String(res.headers['content-type'] ?? '').includes('application/json');
        resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body: json ? JSON.parse(text) : text, text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET with a raw Host header. */
export const getWithHost = (path: string, host: string, base = financeUrl()): Promise<Got> => rawGet(path, { base, headers: { host } });

/** Whether a connection to the port on loopback is accepted now: true if so, false if refused (or any error). */
export const accepts = (port: number): Promise<boolean> => new Promise((resolve) => {
  const c = net.connect(port, '127.0.0.1', () => { c.destroy(); resolve(true); });
  c.on('error', () => resolve(false));
});

/**
 * Until the port refuses new connections (a server that has begun its shutdown closes its listener), polled for up to
 * 10 s: not a fixed sleep, since on a machine busy with other test files a signal's handling can take longer than any
 * sleep chosen for a quiet one.
 */
export const listenerClosed = (port: number): Promise<void> => expect.poll(() => accepts(port), { timeout: 10_000, interval: 20, message: 'the listener closed' }).toBe(false);

/** Opens a connection, sends a GET, and drops the connection after delayMs (0: at once). */
export function dropAfter(port: number, path: string, delayMs: number, acceptEncoding = ''): Promise<void> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${acceptEncoding === '' ? '' : `Accept-Encoding: ${acceptEncoding}\r\n`}\r\n`);
      setTimeout(() => { sock.destroy(); resolve(); }, delayMs);
    });
    sock.on('error', () => resolve());
  });
}

/**
 * Sends a GET and closes the connection once `bytes` bytes of the answer (head included) have arrived:
 * an abort in the middle of a stream, wherever its chunks happen to fall. Resolves to the bytes seen and the status.
 */
export function dropAfterBytes(port: number, path: string, bytes: number, acceptEncoding = ''): Promise<{ seen: number; status: number }> {
  return new Promise((done) => {
    let seen = 0, status = 0;
    const resolve = (n: number): void => done({ seen: n, status });
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n${acceptEncoding === '' ? '' : `Accept-Encoding: ${acceptEncoding}\r\n`}\r\n`);
    });
    sock.on('data', (d: Buffer) => {
      if (seen === 0) status = Number(d.subarray(9, 12).toString());
      seen += d.length;
      if (seen >= bytes) { sock.destroy(); resolve(seen); }
    });
    sock.on('end', () => resolve(seen));
    sock.on('error', () => resolve(seen));
  });
}

export interface Raw { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** A request (GET by default) whose body comes back as sent: fetch would decode a content coding. */
export function raw(path: string, headers: Record<string, string> = {}, base = financeUrl(), method = 'GET'): Promise<Raw> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    http.request({ host: u.hostname, port: u.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}
