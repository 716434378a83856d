// One gzip member written piece by piece on the calling thread (the bulk
// build's .csv.gz). A zlib stream (createGzip) compresses on libuv's thread
// pool, whose threads serve the whole process at normal priority: the
// build's gzip, a large share of its CPU, would then compete as an equal
// with the serving threads however low the build thread's own priority
// (thread-priority.ts). Node's synchronous zlib calls run on the caller but
// close their stream after each call, so each piece is compressed alone as
// raw deflate, primed with the last 32 KB before it as its dictionary (its
// matches reach back as a single stream's would) and ended by a sync flush
// (byte-aligned, not final): the pieces concatenate into one deflate stream,
// as pigz writes one. The gzip header, an empty final block, and the CRC-32
// and length trailer make it one ordinary gzip member: every decoder reads
// it as it reads createGzip's, and it decompresses to the same bytes
// (test/bulk-build.test.ts); only the compressed bytes differ (5 bytes of
// flush marker a piece).
//
// Why not src/bytes/page-coder.ts, which also codes on the calling thread: it
// drives a zlib stream's internal native handle (fast, one stream, no
// dictionary to prime, but not public API, checked at load) and writes into
// a page slot. A bulk file is background work at nice 19 whose full-scale
// build took 35.9 s with this coder (bench/results/bulk-build.md): priming
// each piece with its 32 KB of history costs some CPU (not measured apart), and only public
// API is used. Two coders for two trade-offs; folding them into one is left.

import zlib from 'node:zlib';

/** Deflate's window: the history a piece's matches may reach back into. */
const WINDOW = 32 * 1024;
/** The header zlib's gzip writes: magic, deflate, no flags, no time, no extra flags, Unix. */
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]);

export class GzipHere {
  private crc = 0;
  private size = 0;
  private history: Buffer | null = null;
  private started = false;
  constructor(private readonly level: number) {}

  /** The compressed bytes of piece (after the header, for the first). */
  push(piece: Uint8Array): Buffer {
    const chunk = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    const body = zlib.deflateRawSync(chunk, {
      level: this.level, finishFlush: zlib.constants.Z_SYNC_FLUSH, ...(this.history !== null ? { dictionary: this.history } : {}),
    });
    this.crc = zlib.crc32(chunk, this.crc);
    this.size = (this.size + chunk.length) >>> 0;
    // Copied: the piece's buffer may be reused by its writer.
    const tail = chunk.length >= WINDOW ? chunk.subarray(chunk.length - WINDOW) : Buffer.concat([this.history ?? Buffer.alloc(0), chunk]).subarray(-WINDOW);
    this.history = Buffer.from(tail);
    return this.withHeader(body);
  }

  /** The last bytes: the final (empty) block and the trailer. */
  end(): Buffer {
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(this.crc >>> 0, 0);
    trailer.writeUInt32LE(this.size, 4);
    return this.withHeader(Buffer.concat([zlib.deflateRawSync(Buffer.alloc(0), { level: this.level }), trailer]));
  }

  private withHeader(b: Buffer): Buffer {
    if (this.started) return b;
    this.started = true;
    return Buffer.concat([HEADER, b]);
  }
}
