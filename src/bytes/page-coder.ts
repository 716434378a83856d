// A gzip or brotli coder run synchronously on the thread that writes a page
// (a worker), its coded bytes going straight into the page's slot (issue 32:
// compression off the front threads, where the page is written). node:zlib's
// public API is either whole-buffer and synchronous (gzipSync: no stream
// across pieces) or streaming and asynchronous (a callback per piece, on
// libuv's pool). A page written piece by piece wants one stream, coded as it
// is written, on the writer's own thread: this drives the native handle of a
// zlib stream as zlib.gzipSync itself does (lib/zlib.js processChunkSync:
// handle.writeSync, then the handle's write state [out left, in left]),
// without closing it after each piece. Its options (the streams' levels,
// LEVELS.*.stream in src/server/encoding.ts) come with the job, chosen by the
// compression layer (compress.ts codingAtSource), which this loads nothing of.
// PAGE_CODER_READY says whether this Node has that handle (Node 10 to 24 do);
// without it pages go identity to the front thread, which codes them as before.
// GzipPieces, below, is the same coder for a file written piece by piece (the
// bulk build's .csv.gz), with a fallback of its own.

import zlib from 'node:zlib';

/** The codings a worker codes a page in as it writes it; any other (zstd) is coded on the front thread. */
export const PAGE_CODINGS = ['gzip', 'br'] as const;
export type PageCoding = (typeof PAGE_CODINGS)[number];

/** A coding a page is written in, with its compressor's options (plain data: it crosses to the worker with the job). */
export interface PageCodingSpec {
  coding: PageCoding;
  options: zlib.ZlibOptions | zlib.BrotliOptions;
}

const C = zlib.constants;
type Step = 'more' | 'flush' | 'finish';
const FLAGS: Record<PageCoding, Record<Step, number>> = {
  gzip: { more: C.Z_NO_FLUSH, flush: C.Z_SYNC_FLUSH, finish: C.Z_FINISH },
  br: { more: C.BROTLI_OPERATION_PROCESS, flush: C.BROTLI_OPERATION_FLUSH, finish: C.BROTLI_OPERATION_FINISH },
};

interface Native {
  _handle: { writeSync(flag: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void } | null;
  /** After writeSync: [output bytes left free, input bytes left unread]. */
  _writeState: Uint32Array;
}

const native = (z: object): Native => z as unknown as Native;

export const PAGE_CODER_READY: boolean = (() => {
  const z = native(zlib.createGzip());
  const ready = typeof z._handle?.writeSync === 'function' && z._writeState instanceof Uint32Array && z._writeState.length === 2;
  (z as unknown as zlib.Gzip).close();
  return ready;
})();


/** Where output goes past the slot's end: buffers of this size. */
const OVERFLOW = 1024 * 1024;

export class PageCoder {
  private readonly z: zlib.Gzip | zlib.BrotliCompress;
  private readonly flags: Record<Step, number>;
  /** Coded bytes in the slot. */
  inSlot = 0;
  /** Coded bytes past the slot's end, when it filled: full buffers and the one being filled. */
  private readonly over: Uint8Array[] = [];
  private overN = 0;
  private closed = false;

  constructor(spec: PageCodingSpec, private readonly slot: Uint8Array) {
    this.z = spec.coding === 'gzip' ? zlib.createGzip(spec.options as zlib.ZlibOptions) : zlib.createBrotliCompress(spec.options as zlib.BrotliOptions);
    this.flags = FLAGS[spec.coding];
    // A native error destroys the stream (z.destroyed, checked after each write); its 'error' event comes later and is not needed.
    this.z.on('error', () => {});
  }

  get overflowed(): boolean { return this.over.length > 0; }

  /** Codes input: 'more' (output when the coder has it), 'flush' (all of it out now) or 'finish' (the stream's end). */
  push(input: Uint8Array, step: Step): void {
    const { _handle: handle, _writeState: state } = native(this.z);
    if (handle === null || this.z.destroyed) throw new Error('page coder used after it closed');
    const flag = this.flags[step];
    let inOff = 0, inLen = input.byteLength;
    for (;;) {
      const inSlot = this.over.length === 0 && this.inSlot < this.slot.byteLength;
      if (!inSlot && (this.over.length === 0 || this.overN === OVERFLOW)) { this.over.push(Buffer.allocUnsafeSlow(OVERFLOW)); this.overN = 0; }
      const out = inSlot ? this.slot : this.over[this.over.length - 1]!;
      const outOff = inSlot ? this.inSlot : this.overN;
      const outLen = out.byteLength - outOff;
      handle.writeSync(flag, input, inOff, inLen, out, outOff, outLen);
      if (this.z.destroyed) throw new Error(`page coder failed (${this.z.errored?.message ?? 'zlib error'})`);
      const outLeft = state[0]!, inLeft = state[1]!;
      if (inSlot) this.inSlot += outLen - outLeft; else this.overN += outLen - outLeft;
      inOff += inLen - inLeft;
      inLen = inLeft;
      // Room left in the output: the coder took all the input and gave all it had for this step.
      if (outLeft !== 0) return;
    }
  }

  /** The whole coded page in one buffer of its own (the slot's part, then what overflowed it). */
  whole(): Uint8Array {
    const parts = this.over.map((b, k) => (k === this.over.length - 1 ? b.subarray(0, this.overN) : b));
    return Buffer.concat([this.slot.subarray(0, this.inSlot), ...parts]);
  }

  /** The coded bytes so far in one buffer of their own, the coder emptied to code on into the same slot. */
  take(): Uint8Array {
    const b = this.whole();
    this.inSlot = 0;
    this.over.length = 0;
    this.overN = 0;
    return b;
  }

  /** Frees the coder's native state; once, however the page ended. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.z.close();
  }
}

/** Where a file's coded piece is gathered before it is copied out: a 50,000-row slice of CSV codes to about 0.4 MB at level 6. */
const PIECES_OUT = 1024 * 1024;

/**
 * One gzip file coded piece by piece on the calling thread, each piece's coded bytes handed back to be written
 * on (the bulk build's .csv.gz, workers/finance/bulk-table.ts). A zlib stream's own API (createGzip) would code
 * on libuv's pool, whose threads run at the serving threads' priority however low the build thread's
 * (workers/thread-priority.ts): the build's gzip, much of its CPU, would then compete with serving. So this is
 * one PageCoder stream, flushed only at the end. Without the native handle (PAGE_CODER_READY false) each piece
 * is a gzip member of its own (zlib.gzipSync, also on the caller): members one after another make one gzip
 * file (RFC 1952, 2.2), which gzip, zcat, Python's gzip and Node's gunzip read whole.
 */
export class GzipPieces {
  private readonly coder: PageCoder | null;
  private pushed = false;

  constructor(private readonly level: number, ready: boolean = PAGE_CODER_READY) {
    this.coder = ready ? new PageCoder({ coding: 'gzip', options: { level } }, Buffer.allocUnsafeSlow(PIECES_OUT)) : null;
  }

  /** The coded bytes of piece that are ready (possibly none yet): a buffer of their own. */
  push(piece: Uint8Array): Uint8Array {
    this.pushed = true;
    if (this.coder === null) return zlib.gzipSync(piece, { level: this.level });
    this.coder.push(piece, 'more');
    return this.coder.take();
  }

  /** The file's last bytes; the coder is closed after. */
  end(): Uint8Array {
    if (this.coder === null) return this.pushed ? new Uint8Array(0) : zlib.gzipSync(new Uint8Array(0), { level: this.level });
    try {
      this.coder.push(new Uint8Array(0), 'finish');
      return this.coder.take();
    } finally {
      this.coder.close();
    }
  }

  /** Frees the native state when the file is given up before its end (end closes it too). */
  close(): void {
    this.coder?.close();
  }
}
