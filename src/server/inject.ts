// The pipeline in-process, in the manner of Fastify's inject: a request in,
// the whole answer out, through the same stages as over HTTP and without a
// socket. The CLI answers with it, and tests that are not about sockets use it.

import type { Answer } from './answer.js';
import { answerHead } from './answer-head.js';
import { releaseBody } from './envelope.js';
import { Exchange, type Incoming } from './exchange.js';
import { compilePipeline, type Pipeline } from './pipeline.js';
import type { Service } from './service.js';

export interface Injected {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Buffer;
  /** The body as UTF-8 text. */
  text(): string;
  /** The body parsed as JSON. */
  json<T = unknown>(): T;
}

export interface InjectOptions {
  method?: string;
  headers?: Record<string, string>;
}

const pipelines = new WeakMap<Service<unknown>, Pipeline>();
let injected = 0;

function pipelineOf<Ctx>(service: Service<Ctx>): Pipeline {
  let p = pipelines.get(service as Service<unknown>);
  if (p === undefined) pipelines.set(service as Service<unknown>, (p = compilePipeline(service)));
  return p;
}

/** Answers `url` (path and query, as sent) as the server would; a stream is read to its end. */
export async function inject<Ctx>(service: Service<Ctx>, url: string, o: InjectOptions = {}): Promise<Injected> {
  const q = url.indexOf('?');
  const headers = Object.fromEntries(Object.entries(o.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const method = (o.method ?? 'GET').toLowerCase();
  const req: Incoming = {
    method,
    methodText: o.method ?? 'GET',
    path: q < 0 ? url : url.slice(0, q),
    query: q < 0 ? '' : url.slice(q + 1),
    host: headers.host ?? 'localhost',
    ifNoneMatch: headers['if-none-match'] ?? '',
    acceptEncoding: headers['accept-encoding'] ?? '',
    accept: headers.accept ?? '',
    range: headers.range ?? '',
    ifRange: headers['if-range'] ?? '',
    headerBytes: Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0),
    // One value per name here: an in-process request has its framing.
    conflictingLength: false,
    // In-process: no peer, so never rate limited.
    peer: '',
    forwardedFor: headers['x-forwarded-for'] ?? '',
  };
  const ex = new Exchange(`inject-${(++injected).toString(36)}`);
  const answer: Answer = await pipelineOf(service).dispatch(req, ex);
  if (answer.kind === 'none') throw new Error('inject: the pipeline gave no answer');
  // The same head the server writes (answer-head.ts): its lines, the length it announces, Connection: close.
  const head = answerHead(answer, ex, method, false);
  const out: Record<string, string> = {};
  for (const [k, v] of head.lines) out[k.toLowerCase()] = v;
  if (head.length !== undefined) out['content-length'] = String(head.length);
  if (head.close) out.connection = 'close';
  const body = method === 'head' ? Buffer.alloc(0) : await bodyOf(answer);
  if (answer.kind === 'stream' && method === 'head') answer.done?.();
  return { status: answer.status, headers: out, body, text: () => body.toString('utf8'), json: <T>() => JSON.parse(body.toString('utf8')) as T };
}

/** Every byte of an answer; a stream is pulled to its end and its resources given back. */
async function bodyOf(answer: Exclude<Answer, { kind: 'none' }>): Promise<Buffer> {
  if (answer.kind === 'bytes') {
    if (typeof answer.body === 'string') return Buffer.from(answer.body, 'utf8');
    const copy = Buffer.from(answer.body);
    releaseBody(answer.body);
    return copy;
  }
  const chunks: Buffer[] = [];
  try {
    // Copied: a chunk may be a view of a page slot that goes back when the stream is done.
    for (let c = await answer.next(); c !== null; c = await answer.next()) chunks.push(Buffer.from(c));
  } finally {
    answer.done?.();
  }
  const body = Buffer.concat(chunks);
  // Over HTTP a body that is not its Content-Length is cut off: here it is an error, not a short answer.
  if (answer.length !== undefined && body.byteLength !== answer.length) throw new Error(`inject: a stream of length ${answer.length} gave ${body.byteLength} bytes`);
  return body;
}
