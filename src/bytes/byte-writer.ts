// Text appended as UTF-8 straight into a byte buffer (ByteWriter), and cells
// escaped and encoded once per key (ByteMemo): what the CSV writer
// (csv-writer.ts) and the JSON rows writer (json-rows.ts) both write with.
// Loaded by the workers too, so it imports nothing.

const encoder = new TextEncoder();
/** A string's UTF-8 bytes, for memoized cells. */
export const utf8 = (s: string): Uint8Array => encoder.encode(s);

/** Writes one row's cell: exactly the UTF-8 bytes of what its format's escape (csvField, JSON.stringify) would write. */
export type Cell = (i: number, w: ByteWriter) => void;

let memoIds = 0;

/**
 * Cells escaped (for CSV, or for JSON) and encoded once per key (a gid, a
 * category id), kept in one growing arena with a start and length per key.
 * One small Uint8Array per government would cost a backing store each: a
 * fleet export touching every government would add about 100 MB of RSS for
 * its names and ids.
 */
export class ByteMemo {
  /** Names this memo among others for as long as the process lives: kept-pieces.ts keys the runs' pieces on it. */
  readonly id = ++memoIds;
  private arena = new Uint8Array(4096);
  private used = 0;
  /** Per key: the cell's offset in the arena, -1 until first written. */
  private start: Int32Array;
  private len: Int32Array;

  /** escape: the format's text of a cell (csvField for CSV, jsonText for JSON). */
  constructor(keys: number, private readonly escape: (text: string | null) => string) {
    this.start = new Int32Array(keys).fill(-1);
    this.len = new Int32Array(keys);
  }

  /** Writes key k's cell, escaping and encoding text(k) on first use. */
  write(w: ByteWriter, k: number, text: (k: number) => string | null): void {
    if (k >= this.start.length) this.growKeys(k);
    let at = this.start[k]!;
    if (at < 0) at = this.add(k, utf8(this.escape(text(k))));
    w.copy(this.arena, at, this.len[k]!);
  }

  private add(k: number, b: Uint8Array): number {
    if (this.used + b.length > this.arena.length) {
      const a = new Uint8Array(Math.max(2 * this.arena.length, this.used + b.length));
      a.set(this.arena.subarray(0, this.used));
      this.arena = a;
    }
    this.arena.set(b, this.used);
    this.start[k] = this.used;
    this.len[k] = b.length;
    this.used += b.length;
    return this.start[k]!;
  }

  private growKeys(k: number): void {
    const start = new Int32Array(Math.max(2 * this.start.length, k + 1)).fill(-1), len = new Int32Array(start.length);
    start.set(this.start);
    len.set(this.len);
    this.start = start;
    this.len = len;
  }
}

/**
 * Text appended as UTF-8 straight into a byte buffer. A body built as one
 * string is a rope of thousands of pieces that the socket write must flatten
 * and encode again, and every piece is garbage; here memoized cells are
 * copied as bytes and integers written as digits, with no string made for
 * either.
 */
export class ByteWriter {
  buf: Uint8Array;
  n = 0;

  /** A fresh buffer of the given capacity, or memory to write into first (it grows out into a fresh buffer when full). */
  constructor(capacity: number | Uint8Array) {
    // Not zeroed (a body's 30 KB memset is a microsecond or two): only the bytes written are ever read. Never
    // from the shared pool either: a worker transfers what it wrote (workers/jobs.ts), which would detach the pool.
    this.buf = typeof capacity === 'number' ? Buffer.allocUnsafeSlow(capacity) : capacity;
  }

  text(s: string): void {
    const len = s.length;
    // A long text (an envelope's provenance) goes faster through the encoder; a cell's loop saves its call.
    if (len > 64 || this.n + len > this.buf.length) { this.encode(s, 0); return; }
    const buf = this.buf;
    let n = this.n;
    for (let k = 0; k < len; k++) {
      const c = s.charCodeAt(k);
      if (c >= 0x80) {
        // Anything past ASCII (rare here) goes through the encoder, which also pairs surrogates.
        this.n = n;
        this.encode(s, k);
        return;
      }
      buf[n++] = c;
    }
    this.n = n;
  }

  /** s from UTF-16 unit `from` on, growing only when the encoder runs out of room (an exactly sized buffer stays so). */
  private encode(s: string, from: number): void {
    let read = from;
    for (;;) {
      const r = encoder.encodeInto(read === 0 ? s : s.slice(read), this.buf.subarray(this.n));
      this.n += r.written;
      read += r.read;
      if (read >= s.length) return;
      this.grow(3 * (s.length - read));
    }
  }

  /** Room for at least `more` bytes past what is written, for a caller that writes buf itself. */
  reserve(more: number): void {
    if (this.n + more > this.buf.length) this.grow(more);
  }

  /** s encoded into buf from offset at, in the room there is: the bytes written, or -1 when not all of s fitted. */
  encodeAt(s: string, at: number): number {
    const r = encoder.encodeInto(s, this.buf.subarray(at));
    return r.read === s.length ? r.written : -1;
  }

  bytes(b: Uint8Array): void {
    if (b.length <= 32) { this.copy(b, 0, b.length); return; }
    if (this.n + b.length > this.buf.length) this.grow(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
  }

  /**
   * A piece's bytes whole (a view made once and copied on every use): one set() for anything past a few
   * bytes, where a JavaScript loop costs about a nanosecond a byte on this machine and a subarray made per
   * copy costs more than the copy (bench/results/profile-issue32.md).
   */
  piece(v: Uint8Array): void {
    const len = v.length;
    if (this.n + len > this.buf.length) this.grow(len);
    if (len > 12) { this.buf.set(v, this.n); this.n += len; return; }
    const buf = this.buf;
    let n = this.n;
    for (let k = 0; k < len; k++) buf[n++] = v[k]!;
    this.n = n;
  }

  /** len bytes of src from offset at. */
  copy(src: Uint8Array, at: number, len: number): void {
    if (this.n + len > this.buf.length) this.grow(len);
    // A loop beats set() for the short cells that are nearly all of them.
    if (len > 32) { this.buf.set(src.subarray(at, at + len), this.n); this.n += len; return; }
    const buf = this.buf;
    let n = this.n;
    for (let k = at; k < at + len; k++) buf[n++] = src[k]!;
    this.n = n;
  }

  /** A number as String() writes it: digits for safe integers, String() itself for the rest. */
  number(v: number): void {
    if (!Number.isSafeInteger(v)) { this.text(String(v)); return; }
    if (this.n + 17 > this.buf.length) this.grow(17);
    if (v < 0) { this.buf[this.n++] = 0x2d; v = -v; }
    // In int32 pieces of nine digits: a double's % is a library call, an int32's is one instruction.
    if (v < 1e9) { this.digits(v, 1); return; }
    const hi = Math.floor(v / 1e9);
    this.digits(hi, 1);
    this.digits(v - hi * 1e9, 9);
  }

  /** x (an integer below 1e9) in at least width digits, zero-padded. */
  private digits(x: number, width: number): void {
    // The count of digits by comparisons, not a loop of multiplications: most cells are 4 (a year) or 9 (an amount's low part).
    let len = x < 1e4 ? (x < 100 ? (x < 10 ? 1 : 2) : x < 1e3 ? 3 : 4) : x < 1e6 ? (x < 1e5 ? 5 : 6) : x < 1e8 ? (x < 1e7 ? 7 : 8) : 9;
    if (len < width) len = width;
    const buf = this.buf;
    let at = (this.n += len);
    // Two digits a step, from a table: half the divisions.
    while (len >= 2) {
      const q = (x / 100) | 0, r = 2 * (x - q * 100);
      buf[--at] = PAIRS[r + 1]!;
      buf[--at] = PAIRS[r]!;
      x = q;
      len -= 2;
    }
    if (len === 1) buf[--at] = 48 + x;
  }

  /** len bytes this writer wrote before, from offset at (still in buf: growing keeps what was written). */
  again(at: number, len: number): void {
    if (this.n + len > this.buf.length) this.grow(len);
    const buf = this.buf;
    if (len > 32) { buf.copyWithin(this.n, at, at + len); this.n += len; return; }
    let n = this.n;
    for (let k = at; k < at + len; k++) buf[n++] = buf[k]!;
    this.n = n;
  }

  /** One ASCII character by its code. */
  byte(c: number): void {
    if (this.n === this.buf.length) this.grow(1);
    this.buf[this.n++] = c;
  }

  /** The bytes written so far. */
  written(): Uint8Array {
    return this.buf.subarray(0, this.n);
  }

  private grow(more: number): void {
    const b = Buffer.allocUnsafeSlow(Math.max(2 * this.buf.length, this.n + more));
    b.set(this.buf.subarray(0, this.n));
    this.buf = b;
  }
}

/** "00" to "99" as ASCII pairs. */
const PAIRS = Uint8Array.from({ length: 200 }, (_, k) => 48 + (k % 2 === 0 ? Math.floor(k / 20) : (k >> 1) % 10));
