// The compression layer: an answer in, the same answer in a content coding
// out. It is the last stage of the pipeline and reads nothing but the answer:
// a body is compressed at once; a stream is compressed chunk by chunk as the
// client pulls it, so a slow reader holds one chunk and the compressor's
// state, never the whole answer, and a client that leaves frees both. A
// bulk page is coded where it is written instead, by its worker (issue 32:
// codingAtSource chooses; src/bytes/page-coder.ts codes): its stream comes
// here coded already (encoded) and passes through with its Content-Encoding.

import type { Answer } from './answer.js';
import { CODINGS, LEVELS, brotliParams, type Encoding } from './encoding.js';
import { releaseBody } from './envelope.js';
import { PAGE_CODER_READY, type PageCodingSpec } from '../bytes/page-coder.js';
import { FORMAT_IDS, FORMATS } from './formats.js';

/** Bodies smaller than this go as they are: a packet or two either way, and compressing costs more than it saves. */
export const MIN_COMPRESS_BYTES = 1024;
/**
 * Bodies this large or larger are compressed on libuv's thread pool, not on the thread that serves (issue 32):
 * brotli at level 4 costs about 10 us a KB, so one government's 24 KB history compressed in place held the
 * front thread for a quarter of a millisecond, several times the rest of its answer. Smaller bodies cost less
 * than the hop to another thread and back.
 */
export const OFF_THREAD_BYTES = 4096;

/** An answer format's media type (its parameters dropped) is worth compressing as the format registry says. */
const FORMAT_COMPRESSIBLE = new Map<string, boolean>(FORMAT_IDS.map((f) => [FORMATS[f].openapiType, FORMATS[f].compressible]));
/** Any other media type worth compressing (documents and assets): text, JSON, JavaScript, SVG. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:json|javascript)|image\/svg\+xml)/;
export const compressible = (contentType: string): boolean =>
  FORMAT_COMPRESSIBLE.get(contentType.slice(0, contentType.indexOf(';') >>> 0)) ?? COMPRESSIBLE.test(contentType);

type Stream = Extract<Answer, { kind: 'stream' }>;

/**
 * The coding a stream of this media type is written in where it is made (a bulk page, by its worker as it
 * writes it: src/bytes/page-coder.ts), with the stream level's options; undefined when it goes identity or
 * in a coding the workers do not write (zstd), which the encode stage then applies here as before.
 */
export function codingAtSource(enc: Encoding, contentType: string): PageCodingSpec | undefined {
  if (!PAGE_CODER_READY || !compressible(contentType)) return undefined;
  if (enc === 'gzip') return { coding: 'gzip', options: { level: LEVELS.gzip.stream } };
  if (enc === 'br') return { coding: 'br', options: { params: brotliParams(LEVELS.br.stream, 0) } };
  return undefined;
}

/** This thread's compression so far, and its compressors open now (each holds zlib's native state until its stream ends). */
const counts = { open_compressors: 0, streams_compressed: 0, bodies_compressed: 0 };
export const compressionStats = (): typeof counts => ({ ...counts });

/**
 * The answer in the coding (when its media type and size are worth it), with Content-Encoding said: at once,
 * or (a body of OFF_THREAD_BYTES or more) once libuv's thread pool has compressed it.
 */
export function encodeAnswer(answer: Answer, enc: Encoding): Answer | Promise<Answer> {
  return encoded(answer, enc, OFF_THREAD_BYTES);
}

/** The answer in the coding at once, on this thread: for bodies compressed once at start-up (the docs and explorer files). */
export const encodeNow = (answer: Answer, enc: Encoding): Answer => encoded(answer, enc, Infinity) as Answer;

function encoded(answer: Answer, enc: Encoding, offThreadBytes: number): Answer | Promise<Answer> {
  // Coded where it was written (a bulk page, by its worker, in the request's coding): passed through untouched.
  if (answer.kind === 'stream' && answer.encoded !== undefined) return { ...answer, headers: { ...answer.headers, 'Content-Encoding': answer.encoded } };
  if (enc === 'identity' || answer.kind === 'none' || !compressible(answer.contentType)) return answer;
  if (answer.status === 204 || answer.status === 304) return answer;
  const coding = CODINGS[enc]!;
  if (answer.kind === 'bytes') {
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body, 'utf8') : answer.body;
    if (body.byteLength < MIN_COMPRESS_BYTES) return answer;
    counts.bodies_compressed++;
    const headers = { ...answer.headers, 'Content-Encoding': enc };
    if (body.byteLength < offThreadBytes) {
      const coded = coding.compressBody(body, body.byteLength);
      releaseBody(body);
      return { ...answer, body: coded, headers };
    }
    // Copied when a view: the body may be a view of a writer's slab, written again once its bodies are back.
    const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : Buffer.from(body);
    releaseBody(body);
    return coding.compressBodyAsync(own, own.byteLength).then((coded) => ({ ...answer, body: coded, headers }));
  }
  return compressedStream(answer, enc);
}

/**
 * A stream through a compressor (zlib's, which runs on libuv's thread pool, off the front thread). Each
 * pull feeds it source chunks until it gives out bytes; the source is pulled no faster than the client
 * takes the output, so backpressure reaches the page. done() ends the source and destroys the compressor,
 * whether the stream ended, failed or its client left.
 */
function compressedStream(answer: Stream, enc: Encoding): Stream {
  const z = CODINGS[enc as keyof typeof CODINGS]!.createStream();
  counts.open_compressors++;
  counts.streams_compressed++;
  const out: Buffer[] = [];
  let failed: Error | undefined;
  let ended = false;
  let closed = false;
  z.on('data', (b: Buffer) => out.push(b));
  z.on('error', (err: Error) => { failed = err; });
  const ending = new Promise<void>((resolve) => { z.once('end', () => { ended = true; resolve(); }); z.once('close', resolve); });
  const fed = (chunk: Uint8Array): Promise<void> => new Promise((resolve, reject) => {
    // Copied: the source's chunk may be a view of a page slot, and zlib reads it later, on another thread.
    z.write(Buffer.from(chunk), (err) => (err ? reject(err) : resolve()));
  });
  const take = (): Buffer => (out.length === 1 ? out.pop()! : Buffer.concat(out.splice(0)));

  const pull = async (): Promise<Uint8Array | null> => {
    for (;;) {
      if (failed !== undefined) throw failed;
      if (out.length > 0) return take();
      if (ended || closed) return null;
      const chunk = await answer.next();
      if (closed) return null;
      if (chunk === null) {
        z.end();
        await ending;
        continue;
      }
      await fed(chunk);
    }
  };
  return {
    ...answer,
    // The coded bytes' length is not known before they are made: sent chunked, never the source's length.
    length: undefined,
    headers: { ...answer.headers, 'Content-Encoding': enc },
    next: pull,
    done: () => {
      if (closed) return;
      closed = true;
      counts.open_compressors--;
      z.destroy();
      answer.done?.();
    },
  };
}
