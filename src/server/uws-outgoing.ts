// One request's way out through uWS: an answer written under cork, or a stream
// pumped with backpressure. It registers onAborted first, so a client that
// disconnects at any moment only flips a flag and nothing is written to a dead
// response; the request settles (for drain) exactly once, however it ends.

import type { UWS } from './uws.js';
import type { Answer } from './answer.js';
import { COMMON_HEADERS, discard } from './answer.js';
import { logRequest } from './access-log.js';
import type { Exchange } from './exchange.js';
import { isDraining, requestSettled, requestStarted, streamClosed, streamOpened } from './lifecycle.js';
import type { Service } from './service.js';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 204: '204 No Content', 304: '304 Not Modified', 400: '400 Bad Request', 404: '404 Not Found',
  405: '405 Method Not Allowed', 406: '406 Not Acceptable', 414: '414 URI Too Long', 431: '431 Request Header Fields Too Large', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
  504: '504 Gateway Timeout',
};

type StreamAnswer = Extract<Answer, { kind: 'stream' }>;

export class Outgoing<Ctx> {
  private settled = false;
  private answered = false;
  /** The open stream's end: called once when it ends, fails or its client leaves. */
  private streamEnd: (() => void) | undefined;
  private readonly head: boolean;

  constructor(
    private readonly res: UWS.HttpResponse,
    private readonly ex: Exchange,
    private readonly service: Service<Ctx>,
    private readonly method: string,
    readonly path: string,
    private readonly started: number,
  ) {
    this.head = method === 'head';
    requestStarted();
    res.onAborted(() => {
      ex.gone = true;
      this.endStream();
      this.settle();
      ex.cancel();
      this.log(0, 0, true);
    });
  }

  /** Writes an answer, once; one that comes after the client left (or a second one) is discarded. */
  write(answer: Answer): void {
    if (this.ex.gone || this.answered) { discard(answer); return; }
    if (answer.kind === 'none') return;
    this.answered = true;
    if (answer.kind === 'stream') { this.stream(answer); return; }
    const { status, body } = answer;
    const draining = isDraining();
    const res = this.res;
    res.cork(() => {
      this.writeHead(status, answer.contentType, answer.headers);
      // A 304 repeats no length: it would have to be the 200's, which was never computed. A 204 has none (RFC 9110 8.6).
      if (status === 304 || status === 204) res.endWithoutBody();
      else if (this.head) {
        // The length goes in as a header: endWithoutBody(length) leaves this uWS build's connection without its
        // idle timeout and breaks the next request on it (test/head.test.ts), a descriptor held for good per HEAD.
        res.writeHeader('Content-Length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
        res.endWithoutBody();
      } else res.end(body, draining);
    });
    this.settle();
    this.log(status, typeof body === 'string' ? body.length : body.byteLength);
  }

  private writeHead(status: number, contentType: string, headers: Record<string, string> | undefined): void {
    const res = this.res;
    res.writeStatus(STATUS_TEXT[status] ?? `${status} Unknown`);
    for (const [k, v] of COMMON_HEADERS) res.writeHeader(k, v);
    res.writeHeader('X-Request-Id', this.ex.requestId);
    res.writeHeader('Content-Type', contentType);
    if (headers) for (const k in headers) res.writeHeader(k, headers[k]!);
  }

  // Chunks go out as the client takes them: when write() reports backpressure
  // we stop pulling and resume in onWritable, so a slow reader holds one chunk
  // in flight beyond what the answer keeps. An abort just stops the pump and
  // calls the stream's done hook.
  private stream(answer: StreamAnswer): void {
    const res = this.res;
    const pump = new Pump(this, answer);
    streamOpened();
    this.streamEnd = () => { streamClosed(); answer.done?.(); };
    res.cork(() => {
      this.writeHead(answer.status, answer.contentType, answer.headers);
      if (this.head) {
        this.finishStream();
        res.endWithoutBody();
        this.log(answer.status, 0);
        return;
      }
      res.onWritable(() => {
        res.cork(() => pump.run());
        return true;
      });
      pump.run();
    });
  }

  /** Ends the open stream (its done hook runs once) and settles the request. */
  finishStream(): void {
    this.endStream();
    this.settle();
  }

  private endStream(): void {
    const end = this.streamEnd;
    this.streamEnd = undefined;
    end?.();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    requestSettled();
  }

  log(status: number, bytes: number, aborted?: boolean): void {
    logRequest(this.service, { requestId: this.ex.requestId, method: this.method, path: this.path, status, started: this.started, bytes, aborted });
  }

  get gone(): boolean { return this.ex.gone; }
  get response(): UWS.HttpResponse { return this.res; }
  get requestId(): string { return this.ex.requestId; }
}

/**
 * Pulls a stream's chunks while the client takes them. A chunk made off the thread (a compressor's) comes
 * as a promise: the pump waits for it, then goes on under cork, unless the client left meanwhile.
 */
class Pump<Ctx> {
  private bytes = 0;
  private ended = false;
  private waiting = false;

  constructor(private readonly out: Outgoing<Ctx>, private readonly answer: StreamAnswer) {}

  run(): void {
    const out = this.out;
    while (!out.gone && !this.ended && !this.waiting) {
      let got: Uint8Array | null | Promise<Uint8Array | null>;
      try {
        got = this.answer.next();
      } catch (err) {
        this.fail(err);
        return;
      }
      if (got instanceof Promise) {
        this.waiting = true;
        got.then(
          (chunk) => { this.waiting = false; if (!out.gone && !this.ended) out.response.cork(() => { if (this.put(chunk)) this.run(); }); },
          (err: unknown) => { this.waiting = false; if (!out.gone && !this.ended) out.response.cork(() => this.fail(err)); },
        );
        return;
      }
      if (!this.put(got)) return;
    }
  }

  /** Writes a chunk, or ends the answer at null; false when the pump stops (the end, or backpressure). */
  private put(chunk: Uint8Array | null): boolean {
    const out = this.out, res = out.response;
    if (chunk === null) {
      this.ended = true;
      out.finishStream();
      res.end();
      out.log(this.answer.status, this.bytes);
      return false;
    }
    this.bytes += chunk.byteLength;
    return res.write(chunk);
  }

  /** Headers are gone: the only honest signal left is to cut the connection. */
  private fail(err: unknown): void {
    const out = this.out;
    console.error(JSON.stringify({ level: 'error', requestId: out.requestId, path: out.path, error: err instanceof Error ? err.stack : String(err) }));
    this.ended = true;
    out.finishStream();
    out.response.close();
  }
}
