// One request's way out through uWS: an answer written under cork, or a stream
// pumped with backpressure. It registers onAborted first, so a client that
// disconnects at any moment only flips a flag and nothing is written to a dead
// response; the request settles (for drain) exactly once, however it ends.

import type { UWS } from './uws.js';
import type { Answer } from './answer.js';
import { discard } from './answer.js';
import { releaseBody } from './envelope.js';
import { answerHead, type AnswerHead } from './answer-head.js';
import { logRequest } from './access-log.js';
import type { Exchange } from './exchange.js';
import { isDraining, requestSettled, requestStarted, streamClosed, streamOpened, streamWrote } from './lifecycle.js';
import type { Service } from './service.js';
import { telemetry, type Telemetry } from './telemetry.js';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 204: '204 No Content', 206: '206 Partial Content', 304: '304 Not Modified', 307: '307 Temporary Redirect', 400: '400 Bad Request', 404: '404 Not Found',
  405: '405 Method Not Allowed', 406: '406 Not Acceptable', 429: '429 Too Many Requests', 414: '414 URI Too Long', 416: '416 Range Not Satisfiable', 431: '431 Request Header Fields Too Large',
  500: '500 Internal Server Error', 503: '503 Service Unavailable', 504: '504 Gateway Timeout',
};

type StreamAnswer = Extract<Answer, { kind: 'stream' }>;

/**
 * A body up to this size is written at once: it fits the socket's send buffer whenever the client has read what
 * came before (Linux starts a socket's buffer at 16 KB), so it goes whole and a pipelined request behind it is
 * answered too. A larger one is written after uWS's parse (see write()).
 */
const WHOLE_AT_ONCE = 16 * 1024;
const bodyBytes = (body: string | Uint8Array): number => (typeof body === 'string' ? body.length * 3 : body.byteLength);

export class Outgoing<Ctx> {
  private settled = false;
  private answered = false;
  /** An answer that closes the connection waits for uWS's parse to end (write()). */
  private deferred = false;
  /** The open stream's end: called once when it ends, fails or its client leaves. */
  private streamEnd: (() => void) | undefined;
  private readonly head: boolean;
  private readonly telemetry: Telemetry;
  /** The answer's media type and coding, for the metrics of the bytes sent. */
  private contentType = '';
  private encoding: string | undefined;
  /** Body bytes written so far (a stream's, as the pump writes them): what an abort counts as sent. */
  sent = 0;

  constructor(
    private readonly res: UWS.HttpResponse,
    private readonly ex: Exchange,
    private readonly service: Service<Ctx>,
    private readonly method: string,
    readonly path: string,
    private readonly started: number,
  ) {
    this.head = method === 'head';
    this.telemetry = telemetry(service.name);
    requestStarted();
    this.telemetry.inFlight(1);
    res.onAborted(() => {
      ex.gone = true;
      this.endStream();
      this.settle();
      ex.cancel();
      this.log(0, this.sent, true);
    });
  }

  /** Writes an answer, once; one that comes after the client left (or a second one) is discarded. */
  write(answer: Answer): void {
    if (this.ex.gone || this.answered) { discard(answer); return; }
    if (answer.kind === 'none') return;
    if (answer.kind === 'bytes' && answer.close === true && !this.deferred) {
      // Written after uWS has parsed all it read: a request behind this one is then read while this answer is
      // pending, and uWS closes the connection without answering it (as RFC 9112 6.3 wants after a framing error).
      // Ended inside the parse, the answer's close would be lost: uWS would answer the next request and keep the connection.
      this.deferred = true;
      setImmediate(() => this.write(answer));
      return;
    }
    if (answer.kind === 'bytes' && !this.head && !this.deferred && bodyBytes(answer.body) > WHOLE_AT_ONCE) {
      // A body that may not go whole at once is kept until the client reads it (endOrKeep), pending to uWS all that
      // time: started inside uWS's parse, a request pipelined behind it in the same read would close the connection
      // with it cut short (a review found 47,768 bytes of a 400 KB answer sent, then the close). Started after the
      // parse, such a request closes the connection before any of it is written, as a stream's does.
      this.deferred = true;
      setImmediate(() => this.write(answer));
      return;
    }
    if (answer.kind === 'stream' && !this.head && !this.deferred) {
      // A stream is pending until its last chunk: started inside uWS's parse (an answer resolved in the
      // microtasks uWS.js runs after each handler), a request pipelined behind it in the same read would
      // make uWS close the connection with the answer cut short. Started after the parse, such a request
      // closes the connection before any of it is written: nothing partial (the `connections` decision).
      this.deferred = true;
      setImmediate(() => this.write(answer));
      return;
    }
    this.answered = true;
    this.contentType = answer.contentType;
    this.encoding = answer.headers?.['Content-Encoding'];
    if (answer.kind === 'stream') { this.stream(answer); return; }
    const { status, body } = answer;
    const head = answerHead(answer, this.ex, this.method, isDraining());
    const res = this.res;
    let kept = false;
    res.cork(() => {
      this.writeHead(head);
      if (head.length === undefined) res.endWithoutBody();
      else if (this.head) {
        // The length goes in as a header: endWithoutBody(length) leaves this uWS build's connection without its
        // idle timeout and breaks the next request on it (test/head.test.ts), a descriptor held for good per HEAD.
        // This build's endWithoutBody never closes: an answer that must close the connection ends as an empty
        // body (answerHead announces 0 for it), and the connection closes after it.
        if (head.close) res.end('', true);
        else {
          res.writeHeader('Content-Length', String(head.length));
          res.endWithoutBody();
        }
      } else if (head.close) res.end(body, true);
      else kept = this.endOrKeep(body, status);
    });
    // uWS has sent the body, or this answer keeps a copy of it: the bytes go back to their writer's slab.
    releaseBody(body);
    if (kept) return;
    this.settle();
    this.log(status, typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  }

  /**
   * Ends with the body by tryEnd, which sends what the socket takes now and keeps nothing: true when some is left,
   * kept here (a copy) and sent as the client reads it (onWritable). res.end() would have copied the rest into
   * uWS's own buffer and gone on to the next request read, so a client that pipelines requests and never reads
   * made the server hold every answer (an audit of 2026-11-28: 600 requests of a 1.5 MB script in one 50 KB
   * write took 1 GB, and the server stopped answering others). An answer still going out is pending to uWS,
   * which closes the connection on a request behind it (the `connections` decision): one body a connection at most.
   */
  private endOrKeep(body: string | Uint8Array, status: number): boolean {
    const res = this.res;
    const at = res.getWriteOffset();
    const total = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    const [, done] = res.tryEnd(body, total);
    if (done) return false;
    // Only what the socket did not take is kept: a copy, as the body's bytes go back to their slab now.
    this.sent = res.getWriteOffset() - at;
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const rest = Buffer.from(bytes.subarray(this.sent));
    const restAt = at + this.sent;
    res.onWritable((offset) => {
      if (this.ex.gone) return true;
      this.sent = offset - at;
      let ok = false;
      res.cork(() => {
        const [sent, finished] = res.tryEnd(rest.subarray(offset - restAt), total);
        ok = sent;
        if (finished) { this.settle(); this.log(status, total); }
      });
      return ok;
    });
    return true;
  }

  /** The status line and the header lines of answer-head.ts; Content-Length and Connection are uWS's to write (end, tryEnd). */
  private writeHead(head: AnswerHead): void {
    const res = this.res;
    res.writeStatus(STATUS_TEXT[head.status] ?? `${head.status} Unknown`);
    for (const [k, v] of head.lines) res.writeHeader(k, v);
  }

  // Chunks go out as the client takes them: when write() reports backpressure
  // we stop pulling and resume in onWritable, so a slow reader holds one chunk
  // in flight beyond what the answer keeps. An abort just stops the pump and
  // calls the stream's done hook. A stream of known length (a file) goes out
  // with Content-Length through tryEnd, as uWS's VideoStreamer example does.
  private stream(answer: StreamAnswer): void {
    const res = this.res;
    const pump = new Pump(this, answer);
    streamOpened();
    this.telemetry.streams(1);
    this.streamEnd = () => { streamClosed(); this.telemetry.streams(-1); answer.done?.(); };
    const head = answerHead(answer, this.ex, this.method, false);
    res.cork(() => {
      this.writeHead(head);
      if (this.head) {
        this.finishStream();
        // As write() does for HEAD: the length as a header, never endWithoutBody(length) (see there).
        if (head.length !== undefined) res.writeHeader('Content-Length', String(head.length));
        res.endWithoutBody();
        this.log(answer.status, 0);
        return;
      }
      res.onWritable((offset) => {
        let ok = true;
        res.cork(() => { ok = pump.writable(offset); });
        return ok;
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
    this.telemetry.inFlight(-1);
  }

  log(status: number, bytes: number, aborted?: boolean): void {
    this.telemetry.request(this.ex.route, this.method, status, (performance.now() - this.started) / 1000, this.contentType, this.encoding, this.head ? 0 : bytes);
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
  /** Of a known-length stream: the chunk tryEnd could not take whole, and the response's write offset before it. */
  private pending: Uint8Array | null = null;
  private pendingAt = 0;

  constructor(private readonly out: Outgoing<Ctx>, private readonly answer: StreamAnswer) {}

  /** onWritable: a known-length stream first retries what tryEnd left of its chunk; false while the client still cannot take it. */
  writable(offset: number): boolean {
    if (this.pending !== null && !this.ended && !this.out.gone) {
      const rest = this.pending.subarray(offset - this.pendingAt);
      this.pending = null;
      // Not whole: the end (then all went) or backpressure again (then onWritable comes again).
      if (!this.tryEnd(rest, offset)) return this.ended;
    }
    this.run();
    return true;
  }

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
    const length = this.answer.length;
    // A known length reached ends at tryEnd; what ends here with null is a chunked stream, or one of length 0.
    if (length !== undefined && !(chunk === null && this.bytes === length)) {
      // The chunks must add up to the length sent: short or over, the body would be wrong, so the connection is cut.
      if (chunk === null || this.bytes + chunk.byteLength > length) {
        this.fail(new Error(`a stream of length ${length} gave ${chunk === null ? 'only' : 'more than'} ${this.bytes} bytes`));
        return false;
      }
      this.bytes += chunk.byteLength;
      out.sent = this.bytes;
      streamWrote(chunk.byteLength);
      return this.tryEnd(chunk, res.getWriteOffset());
    }
    if (chunk === null) {
      this.ended = true;
      out.finishStream();
      res.end();
      out.log(this.answer.status, this.bytes);
      return false;
    }
    this.bytes += chunk.byteLength;
    out.sent = this.bytes;
    streamWrote(chunk.byteLength);
    return res.write(chunk);
  }

  /**
   * Sends a chunk of a known-length stream with tryEnd, which takes what the socket takes now and keeps
   * nothing more: the rest is kept here (one chunk) until onWritable says how far the client got.
   * True when the whole chunk went and the body is not complete yet.
   */
  private tryEnd(chunk: Uint8Array, at: number): boolean {
    const out = this.out;
    const [ok, done] = out.response.tryEnd(chunk, this.answer.length!);
    if (done) {
      this.ended = true;
      out.finishStream();
      out.log(this.answer.status, this.bytes);
      return false;
    }
    if (!ok) {
      this.pending = chunk;
      this.pendingAt = at;
    }
    return ok;
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
