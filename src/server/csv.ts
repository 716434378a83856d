// The one CSV writer. RFC 4180 records (CRLF line ends, fields quoted when
// they hold a quote, a comma or a line break), byte-for-byte what fast-csv's
// formatter writes with rowDelimiter "\r\n" and includeEndRowDelimiter: it
// also drops NUL characters and quotes fields holding "|" (a quirk of its
// escape pattern), so our bytes and a fast-csv consumer's expectations agree.
// Written by hand because it is about five times faster here than fast-csv's
// formatter, and because it streams from result columns without row objects.
// The JSON rows of an envelope are written here too (writeJsonRows), from the
// same columns into the same kind of byte buffer.

const QUOTE_IF = /[,\r\n|]/;

export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'string' ? v : String(v);
  if (s.includes('\0')) s = s.replaceAll('\0', '');
  if (s.includes('"')) return `"${s.replaceAll('"', '""')}"`;
  return QUOTE_IF.test(s) ? `"${s}"` : s;
}

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
const CHUNK = 64 * 1024;

/** Writes one row's cell as CSV: exactly the UTF-8 bytes of what csvField would write. */
export type CsvCell = (i: number, w: ByteWriter) => void;
/** Writes one row's cell as JSON: exactly the UTF-8 bytes of what JSON.stringify would write. */
export type JsonCell = (i: number, w: ByteWriter) => void;
/**
 * A JSON cell that is one of `keys` distinct texts, named by key(i) and
 * escaped once in a memo. Adjacent memo cells are written as one run (see
 * jsonRows), so they are declared as data rather than as a writer.
 */
export interface MemoCell {
  /** The row's key, below keys; -1 for a value too varied to memoize, which fallback writes. */
  key: (i: number) => number;
  keys: number;
  text: (k: number) => string | null;
  memo: ByteMemo;
  fallback?: JsonCell;
}

/** A table as named columns read by row index: what both JSON and CSV are built from. */
export interface ColumnTable {
  names: string[];
  get: ((i: number) => unknown)[];
  n: number;
  /**
   * Optional per column: the cell written straight into the CSV chunk.
   * Columns whose values can never need quoting (numbers, booleans,
   * identifiers) and columns with a cache of escaped bytes use it to skip
   * csvField and string building on the hot path.
   */
  csv?: (CsvCell | undefined)[];
  /** Optional per column: the cell written straight into the JSON rows' bytes. */
  json?: (JsonCell | MemoCell | undefined)[];
}

const encoder = new TextEncoder();
/** A string's UTF-8 bytes, for memoized cells. */
export const utf8 = (s: string): Uint8Array => encoder.encode(s);

/** A csv cell for a column whose values never need quoting: null is empty, anything else its String(). */
export const plainCsv = (get: (i: number) => unknown): CsvCell => (i, w) => {
  const v = get(i);
  if (v === null || v === undefined) return;
  if (typeof v === 'number') w.number(v);
  else if (typeof v === 'boolean') w.bytes(v ? TRUE : FALSE);
  else w.text(String(v));
};
const TRUE = utf8('true'), FALSE = utf8('false');

/**
 * Cells escaped (for CSV, or for JSON) and encoded once per key (a gid, a
 * category id), kept in one growing arena with a start and length per key.
 * One small Uint8Array per government would cost a backing store each: a
 * fleet export touching every government would add about 100 MB of RSS for
 * its names and ids.
 */
export class ByteMemo {
  private arena = new Uint8Array(4096);
  private used = 0;
  /** Per key: the cell's offset in the arena, -1 until first written. */
  private start: Int32Array;
  private len: Int32Array;

  constructor(keys = 64, private readonly escape: (text: string | null) => string = csvField) {
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

  bytes(b: Uint8Array): void {
    if (b.length <= 32) { this.copy(b, 0, b.length); return; }
    if (this.n + b.length > this.buf.length) this.grow(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
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
    let len = 1;
    for (let p = 10; p <= x; p *= 10) len++;
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

const COMMA = 0x2c, CR = 0x0d, LF = 0x0a;
/** "00" to "99" as ASCII pairs. */
const PAIRS = Uint8Array.from({ length: 200 }, (_, k) => 48 + (k % 2 === 0 ? Math.floor(k / 20) : (k >> 1) % 10));

const cellsOf = (t: ColumnTable): CsvCell[] => t.get.map((get, c) => t.csv?.[c] ?? ((row, w) => w.text(csvField(get(row)))));

function writeHeader(t: ColumnTable, w: ByteWriter): void {
  w.text(t.names.map(csvField).join(','));
  w.byte(CR); w.byte(LF);
}

/** Writes rows from i on, until the table ends or the writer holds stopAt bytes; returns the next row. */
function writeRows(t: ColumnTable, cells: CsvCell[], w: ByteWriter, i: number, stopAt = Number.POSITIVE_INFINITY): number {
  const cols = cells.length;
  for (; i < t.n && w.n < stopAt; i++) {
    cells[0]!(i, w);
    for (let c = 1; c < cols; c++) { w.byte(COMMA); cells[c]!(i, w); }
    w.byte(CR); w.byte(LF);
  }
  return i;
}

/**
 * A table's whole CSV (header, then each row) as UTF-8 in one buffer: how a
 * worker writes a page for the main thread to stream (chunksOf). Written
 * into `into` (a page slot, or a capacity for a fresh buffer), growing out
 * of it when full; the result's buffer says where the bytes ended up.
 */
export function csvBytes(t: ColumnTable, into: Uint8Array | number): Uint8Array {
  const w = new ByteWriter(into);
  writeHeader(t, w);
  writeRows(t, cellsOf(t), w, 0);
  return w.written();
}

/** A body already in memory, pulled as views of at most 64 KB (the stream writes one, then waits for the socket to drain). */
export function chunksOf(body: Uint8Array): () => Uint8Array | null {
  let at = 0;
  return () => {
    if (at >= body.length) return null;
    const chunk = body.subarray(at, at + CHUNK);
    at += chunk.length;
    return chunk;
  };
}

/** Pulls a table's CSV formatted as it is pulled, in chunks of about 64 KB: header first, then each row. */
export function csvChunks(t: ColumnTable): () => Uint8Array | null {
  let i = -1;
  const cells = cellsOf(t);
  return () => {
    if (i >= t.n) return null;
    // A buffer per chunk, made when it is pulled: the one handed on is never written again, and
    // a chunk that had to grow for a long row does not make the next ones larger.
    const w = new ByteWriter(CHUNK + 4096);
    if (i < 0) { writeHeader(t, w); i = 0; }
    i = writeRows(t, cells, w, i, CHUNK);
    return w.written();
  };
}

/** A whole chunked body as one string (the CLI and tests, which want text). */
export function drainText(next: () => Uint8Array | null): string {
  // ignoreBOM: a leading U+FEFF is content here, not a marker to drop.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let out = '';
  for (let c = next(); c !== null; c = next()) out += decoder.decode(c, { stream: true });
  return out + decoder.decode();
}

/** The same table as JSON row objects (for the envelope), rows [start, end). */
export function rowObjects(t: ColumnTable, start = 0, end = t.n): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = start; i < Math.min(end, t.n); i++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < t.names.length; c++) row[t.names[c]!] = t.get[c]!(i);
    out.push(row);
  }
  return out;
}

/** A JSON cell for a column of plain values: numbers (null when not finite), booleans, null. */
export const plainJson = (get: (i: number) => unknown): JsonCell => (i, w) => {
  const v = get(i);
  if (v === null || v === undefined) w.bytes(NULL);
  else if (typeof v === 'number') { if (Number.isFinite(v)) w.number(v); else w.bytes(NULL); }
  else if (typeof v === 'boolean') w.bytes(v ? TRUE : FALSE);
  else w.text(typeof v === 'string' ? JSON.stringify(v) : String(v));
};
const NULL = utf8('null');

/** A JSON escape for ByteMemo: a cell's text as JSON.stringify writes it (null as null). */
export const jsonText = (s: string | null): string => JSON.stringify(s);

/** A JSON cell that escapes and encodes each distinct key's text once; keys bounds key(i). */
export function memoJson(key: (i: number) => number, keys: number, text: (k: number) => string | null, memo = new ByteMemo(64, jsonText), fallback?: JsonCell): MemoCell {
  return fallback === undefined ? { key, keys, text, memo } : { key, keys, text, memo, fallback };
}

/** A memo cell's value for row i: its memoized text, or its fallback's for a row it does not key. */
export function writeMemo(m: MemoCell, i: number, w: ByteWriter): void {
  const k = m.key(i);
  if (k >= 0) m.memo.write(w, k, m.text);
  else m.fallback!(i, w);
}

/** A column's JSON key as bytes (`{"name":` first, `,"name":` after), encoded once per name: TextEncoder is slow for a few bytes. */
const firstKeys = new Map<string, Uint8Array>(), laterKeys = new Map<string, Uint8Array>();
const prefixOf = (name: string, first: boolean): Uint8Array => {
  const keys = first ? firstKeys : laterKeys;
  let b = keys.get(name);
  if (b === undefined) keys.set(name, (b = utf8(`${first ? '{' : ','}${JSON.stringify(name)}:`)));
  return b;
};

/**
 * Keys of a run of memo cells combined into one number, below this: a small
 * integer keeps the run's Map lookup on its fast path.
 */
const RUN_KEYS = 2 ** 30;

/** How jsonRows writes a row: cells, and runs of adjacent memo cells written as one memoized piece with the next key. */
type Step =
  | { run: false; prefix: Uint8Array | null; cell: JsonCell }
  | {
    run: true; prefix: Uint8Array | null; cells: MemoCell[]; prefixes: Uint8Array[]; tail: Uint8Array | null;
    /** The run's distinct key functions (cells keyed alike, such as a government's id and name, count once). */
    factors: MemoCell[];
    pieces: Map<number, number>;
  };

function stepsOf(t: ColumnTable): Step[] {
  const cols = t.names.length;
  const prefix = t.names.map((n, c) => prefixOf(n, c === 0));
  const memoAt = (c: number): MemoCell | null => (c < cols && typeof t.json?.[c] === 'object' ? t.json[c] as MemoCell : null);
  const steps: Step[] = [];
  // Whether the next step writes its column's key: not when the run before it wrote it as its tail.
  let ownPrefix = true;
  for (let c = 0; c < cols;) {
    if (memoAt(c) !== null && memoAt(c + 1) !== null) {
      // Rows of one answer repeat the same government, category and subtype: their cells and the
      // keys between them are one piece per distinct combination.
      const cells: MemoCell[] = [], prefixes: Uint8Array[] = [], factors: MemoCell[] = [];
      let span = 1;
      for (let m = memoAt(c); m !== null; m = memoAt(c)) {
        const alike = factors.some((f) => f.key === m!.key);
        // The first cell is always taken, so the loop moves on even past a cell of more keys than a run holds.
        if (!alike && cells.length > 0 && span * m.keys >= RUN_KEYS) break;
        if (!alike) { span *= m.keys; factors.push(m); }
        cells.push(m);
        prefixes.push(prefix[c]!);
        c++;
      }
      // The next column's key goes into the piece, unless that column starts a run of its own.
      const tail = c < cols && !(memoAt(c) !== null && memoAt(c + 1) !== null) ? prefix[c]! : null;
      steps.push({ run: true, prefix: ownPrefix ? prefixes[0]! : null, cells, prefixes, tail, factors, pieces: new Map() });
      ownPrefix = tail === null;
      continue;
    }
    const cell = t.json?.[c], get = t.get[c]!;
    const write: JsonCell = cell === undefined ? (row, w) => w.text(JSON.stringify(get(row) ?? null))
      : typeof cell === 'function' ? cell
        : (row, w) => writeMemo(cell, row, w);
    steps.push({ run: false, prefix: ownPrefix ? prefix[c]! : null, cell: write });
    ownPrefix = true;
    c++;
  }
  return steps;
}

/**
 * A run's cells for row i. A combination seen before in this answer is
 * copied from where it was first written: no piece is allocated, and a
 * fleet page whose every row is a new combination pays only the lookup.
 */
function writeRun(s: Extract<Step, { run: true }>, i: number, w: ByteWriter): void {
  const { cells, factors } = s;
  let k = 0;
  for (let j = 0; j < factors.length && k >= 0; j++) {
    const f = factors[j]!.key(i);
    // A cell this row does not key (its fallback writes it): the row's piece is written, not memoized.
    k = f < 0 ? -1 : k * factors[j]!.keys + f;
  }
  const seen = k < 0 ? undefined : s.pieces.get(k);
  if (seen !== undefined) { w.again(Math.floor(seen / PIECE), seen % PIECE); return; }
  const from = w.n;
  for (let j = 0; j < cells.length; j++) {
    if (j > 0) w.bytes(s.prefixes[j]!);
    writeMemo(cells[j]!, i, w);
  }
  if (s.tail !== null) w.bytes(s.tail);
  if (k >= 0 && w.n - from < PIECE) s.pieces.set(k, from * PIECE + (w.n - from));
}
/** Where a run's piece was written, as offset * PIECE + length. */
const PIECE = 65536;

/**
 * The table's rows as a JSON array in UTF-8, written from the columns
 * without row objects or strings: what the envelope serializer writes as
 * data, into the body it sends (writeJsonRows), so the socket takes bytes
 * and no string is converted again.
 */
export function writeJsonRows(t: ColumnTable, w: ByteWriter): void {
  const steps = stepsOf(t);
  w.byte(0x5b);
  for (let i = 0; i < t.n; i++) {
    if (i > 0) w.byte(COMMA);
    for (let c = 0; c < steps.length; c++) {
      const s = steps[c]!;
      if (s.prefix !== null) w.bytes(s.prefix);
      if (s.run) { writeRun(s, i, w); continue; }
      s.cell(i, w);
    }
    w.byte(0x7d);
  }
  w.byte(0x5d);
}

/** Room for a table's JSON rows that typical rows fit in: growing copies what was written. */
export const jsonRowsSize = (t: ColumnTable): number => 2 + t.n * (32 * t.names.length + 64);

/** The table's JSON rows in a buffer of their own. */
export function jsonRows(t: ColumnTable): Uint8Array {
  const w = new ByteWriter(jsonRowsSize(t));
  writeJsonRows(t, w);
  return w.written();
}
