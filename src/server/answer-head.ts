// One header writer for every transport: the status, the header lines in the order they go on the wire,
// the length the answer announces and whether the connection closes after it. The uWS adapter
// (uws-outgoing.ts) writes these lines; inject() (the CLI and the tests in-process) returns them. Before
// this, each wrote its own, and an in-process HEAD had no Content-Length where the server sent one.

import type { Answer } from './answer.js';
import { COMMON_HEADERS } from './answer.js';
import type { Exchange } from './exchange.js';

export interface AnswerHead {
  status: number;
  /** Every header line but Content-Length and Connection, in wire order (names as sent). */
  lines: [string, string][];
  /**
   * The Content-Length the answer announces, or undefined: a chunked stream, or a 304 or 204, which
   * announce none (a 304 would have to repeat the 200's, which was never computed; RFC 9110 8.6).
   */
  length: number | undefined;
  /** Connection: close goes with it, and the connection closes once it is sent. */
  close: boolean;
}

type Written = Exclude<Answer, { kind: 'none' }>;

const byteLength = (body: string | Uint8Array): number => (typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);

/**
 * The head of an answer to `method` ('get', 'head', ...). `draining`: the server is shutting down, so every
 * answer in bytes closes its connection. A HEAD announces the length its GET would have, except one that closes the
 * connection (a framing error, which says nothing of a GET's length): that one goes as an empty body.
 */
export function answerHead(answer: Written, ex: Exchange, method: string, draining: boolean): AnswerHead {
  const headers = answer.headers;
  const lines: [string, string][] = [];
  // An answer's own header replaces a common one of the name (Vary: Accept, Accept-Encoding on a route of several formats).
  for (const [k, v] of COMMON_HEADERS) if (headers === undefined || headers[k] === undefined) lines.push([k, v]);
  lines.push(['X-Request-Id', ex.requestId]);
  const rate = ex.rateHeaders;
  if (rate !== undefined) for (const k in rate) lines.push([k, rate[k]!]);
  lines.push(['Content-Type', answer.contentType]);
  if (headers) for (const k in headers) lines.push([k, headers[k]!]);
  const status = answer.status;
  // A stream ends its connection only as uWS does after any answer: a draining server's listener is closed,
  // and the idle timeout ends what is left (lifecycle.ts).
  if (answer.kind === 'stream') return { status, lines, length: answer.length, close: false };
  const close = draining || answer.close === true;
  let length: number | undefined;
  if (status === 304 || status === 204) length = undefined;
  else if (method === 'head' && close) length = 0;
  else length = byteLength(answer.body);
  return { status, lines, length, close };
}
