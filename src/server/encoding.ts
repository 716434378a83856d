// Content codings: which ones this server offers, at which levels, and the
// choice among them for a request's Accept-Encoding (RFC 9110 12.5.3), q-values
// respected. The compression layer (compress.ts) applies the choice to an
// answer's bytes; nothing else in the server knows a coding exists.
//
// Levels were chosen by bench/compression.ts (figures and reasons in
// bench/results/compression.md): a stream (a CSV page, an Arrow stream) is
// compressed as it is sent, so its level is the fastest that still gives
// several times fewer bytes; a body (a JSON envelope, a page of the docs) is
// compressed once and then kept in the response cache, so it can afford more.

import zlib from 'node:zlib';

export type Coding = 'gzip' | 'br' | 'zstd';
export type Encoding = Coding | 'identity';

export interface CodingInfo {
  /** The ETag of an answer in this coding: the identity ETag with this before its closing quote. */
  etagSuffix: string;
  /** A whole body, compressed at once. */
  compressBody(body: Uint8Array, sizeHint: number): Buffer;
  /** The same bytes as compressBody, compressed on libuv's thread pool. */
  compressBodyAsync(body: Uint8Array, sizeHint: number): Promise<Buffer>;
  /** A compressor for a stream, fed chunk by chunk. */
  createStream(): zlib.Gzip | zlib.BrotliCompress;
}

/** The levels in use, by coding and by what is compressed (see the head of this file). */
export const LEVELS = {
  gzip: { body: 4, stream: 1 },
  br: { body: 4, stream: 1 },
  zstd: { body: 6, stream: 1 },
} as const satisfies Record<Coding, { body: number; stream: number }>;

const C = zlib.constants;
export const brotliParams = (quality: number, sizeHint: number): Record<number, number> => ({
  [C.BROTLI_PARAM_QUALITY]: quality,
  [C.BROTLI_PARAM_MODE]: C.BROTLI_MODE_TEXT,
  ...(sizeHint > 0 ? { [C.BROTLI_PARAM_SIZE_HINT]: sizeHint } : {}),
});

/**
 * zstd where the platform has it: node:zlib gained it in Node 22.15 and 23.8. On Node 20 (this
 * machine's, for its uWebSockets.js build) it is absent and not offered; the Node bump turns it on.
 */
interface ZstdZlib {
  zstdCompressSync?: (b: Uint8Array, o: { params: Record<number, number> }) => Buffer;
  zstdCompress?: (b: Uint8Array, o: { params: Record<number, number> }, cb: (err: Error | null, out: Buffer) => void) => void;
  createZstdCompress?: (o: { params: Record<number, number> }) => zlib.Gzip;
  constants: Record<string, number>;
}
const zz = zlib as unknown as ZstdZlib;
const promised = (run: (cb: (err: Error | null, out: Buffer) => void) => void): Promise<Buffer> =>
  new Promise((resolve, reject) => run((err, out) => (err ? reject(err) : resolve(out))));
const ZSTD_LEVEL = zz.constants.ZSTD_c_compressionLevel;
const zstd: CodingInfo | undefined = zz.zstdCompressSync !== undefined && zz.zstdCompress !== undefined && zz.createZstdCompress !== undefined && ZSTD_LEVEL !== undefined
  ? {
      etagSuffix: '-zstd',
      compressBody: (b) => zz.zstdCompressSync!(b, { params: { [ZSTD_LEVEL]: LEVELS.zstd.body } }),
      compressBodyAsync: (b) => promised((cb) => zz.zstdCompress!(b, { params: { [ZSTD_LEVEL]: LEVELS.zstd.body } }, cb)),
      createStream: () => zz.createZstdCompress!({ params: { [ZSTD_LEVEL]: LEVELS.zstd.stream } }),
    }
  : undefined;

export const CODINGS: Partial<Record<Coding, CodingInfo>> = {
  ...(zstd !== undefined ? { zstd } : {}),
  br: {
    etagSuffix: '-br',
    compressBody: (b, hint) => zlib.brotliCompressSync(b, { params: brotliParams(LEVELS.br.body, hint) }),
    compressBodyAsync: (b, hint) => promised((cb) => zlib.brotliCompress(b, { params: brotliParams(LEVELS.br.body, hint) }, cb)),
    createStream: () => zlib.createBrotliCompress({ params: brotliParams(LEVELS.br.stream, 0) }),
  },
  gzip: {
    etagSuffix: '-gzip',
    compressBody: (b) => zlib.gzipSync(b, { level: LEVELS.gzip.body }),
    compressBodyAsync: (b) => promised((cb) => zlib.gzip(b, { level: LEVELS.gzip.body }, cb)),
    createStream: () => zlib.createGzip({ level: LEVELS.gzip.stream }),
  },
};

/** Offered codings, most preferred first: where a client weighs several alike, the first of them is chosen. */
export const OFFERED: readonly Encoding[] = [...(Object.keys(CODINGS) as Coding[]), 'identity'];

/** Names a client may use for a coding (x-gzip is gzip's old name, RFC 9110 8.4.1.3). */
const ALIASES: Record<string, Encoding> = { 'x-gzip': 'gzip' };

/** A q-value as RFC 9110 12.4.2 writes it: 0 to 1, at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The coding to answer in, for an Accept-Encoding header ('' when the request had none: identity).
 * null when the client refuses every coding offered, identity included: a 406.
 * An element that cannot be read (a bad q-value) is ignored, as is a coding this server does not know.
 */
export function negotiate(header: string): Encoding | null {
  if (header === '') return 'identity';
  // Clients send a handful of distinct headers, each thousands of times: the choice is remembered per header.
  const known = chosen.get(header);
  if (known !== undefined) return known;
  const choice = choose(header);
  if (chosen.size >= CHOICES_KEPT) chosen.clear();
  chosen.set(header, choice);
  return choice;
}

/** Headers whose choice is remembered (each at most MAX_HEADER_BYTES long, so a few MB at worst). */
const CHOICES_KEPT = 256;
const chosen = new Map<string, Encoding | null>();

function choose(header: string): Encoding | null {
  const q = new Map<string, number>();
  for (const element of header.split(',')) {
    const [rawName, ...params] = element.split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '') continue;
    let weight = 1;
    let readable = true;
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const v = p.slice(eq + 1).trim();
      if (QVALUE.test(v)) weight = Number(v); else readable = false;
    }
    if (!readable) continue;
    const coding = ALIASES[name] ?? name;
    // A coding listed twice: the higher weight stands.
    q.set(coding, Math.max(q.get(coding) ?? 0, weight));
  }
  const star = q.get('*');
  // identity, when neither named nor covered by *, is acceptable (RFC 9110 12.5.3) but no more than what the
  // client did name: "gzip;q=0.5" still means gzip rather than nothing (as the negotiator package reads it).
  const named = [...q].filter(([k, w]) => k !== '*' && k !== 'identity' && w > 0).map(([, w]) => w);
  const implicitIdentity = named.length === 0 ? 1 : Math.min(...named);
  const weightOf = (e: Encoding): number => q.get(e) ?? star ?? (e === 'identity' ? implicitIdentity : 0);
  let best: Encoding | null = null, bestQ = 0;
  for (const e of OFFERED) {
    const w = weightOf(e);
    if (w > bestQ) { best = e; bestQ = w; }
  }
  return best;
}

/** The validators of an answer in a coding: its ETag marked with the coding, so each coding's bytes have their own. */
export function codedValidators(validators: Record<string, string> | undefined, enc: Encoding): Record<string, string> | undefined {
  if (validators === undefined || enc === 'identity') return validators;
  const tag = validators.ETag!;
  return { ...validators, ETag: `${tag.slice(0, -1)}${CODINGS[enc]!.etagSuffix}"` };
}
