// The one CSV writer. RFC 4180 records (CRLF line ends, fields quoted when
// they hold a quote, a comma or a line break), byte-for-byte what fast-csv's
// formatter writes with rowDelimiter "\r\n" and includeEndRowDelimiter: it
// also drops NUL characters and quotes fields holding "|" (a quirk of its
// escape pattern), so our bytes and a fast-csv consumer's expectations agree.
// Written by hand because it is about five times faster here than fast-csv's
// formatter, and because it streams from result columns without row objects.

import { ByteWriter, utf8, type Cell } from './byte-writer.js';
import type { ColumnTable, MemoCell } from './column-table.js';
import { KEPT_KEYS, keptPieces, takeRun, type KeptPieces } from './kept-pieces.js';

const QUOTE_IF = /[,\r\n|]/;

export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'string' ? v : String(v);
  if (s.includes('\0')) s = s.replaceAll('\0', '');
  if (s.includes('"')) return `"${s.replaceAll('"', '""')}"`;
  return QUOTE_IF.test(s) ? `"${s}"` : s;
}

const CHUNK = 64 * 1024;

/** A csv cell for a column whose values never need quoting: null is empty, anything else its String(). */
export const plainCsv = (get: (i: number) => unknown): Cell => (i, w) => {
  const v = get(i);
  if (v === null || v === undefined) return;
  if (typeof v === 'number') w.number(v);
  else if (typeof v === 'boolean') w.bytes(v ? TRUE : FALSE);
  else w.text(String(v));
};
const TRUE = utf8('true'), FALSE = utf8('false');

const COMMA = 0x2c, CR = 0x0d, LF = 0x0a;

/**
 * How writeRows writes a row, column by column: a memo cell's key and memo
 * (the row's cell copied from its escaped bytes), else a cell; and runs of
 * two or more adjacent memo cells (a government's id and name, a category
 * and subtype, a row's codes and flags) as one piece with the commas between
 * them, kept across pages (kept-pieces.ts) and copied whole. A memo cell's
 * rows it does not key are written by its fallback; those rows without one,
 * and a column with no cell, are the column's value through csvField.
 */
type Step =
  | { run: null; comma: boolean; memo: MemoCell | null; cell: Cell }
  | { run: KeptPieces; comma: boolean; memos: MemoCell[]; cells: Cell[]; factors: MemoCell[] };

/** The separators of a kept run's trie path (kept-pieces.ts keys pieces by objects made once): a run at the row's start has none before it. */
const SEP = utf8(','), START = utf8('');

function cellsOf(t: ColumnTable): Step[] {
  const cols = t.get.length;
  const memoAt = (c: number): MemoCell | null => (c < cols && typeof t.csv?.[c] === 'object' ? t.csv[c] as MemoCell : null);
  const cellAt = (c: number): Cell => {
    const cell = t.csv?.[c], get = t.get[c]!;
    return typeof cell === 'function' ? cell : cell?.fallback ?? ((row, w) => w.text(csvField(get(row))));
  };
  const steps: Step[] = [];
  for (let c = 0; c < cols;) {
    const run = memoAt(c) !== null && memoAt(c + 1) !== null ? takeRun(memoAt, c, KEPT_KEYS) : null;
    if (run !== null && run.cells.length > 1 && run.span <= KEPT_KEYS) {
      const seps = run.columns.map((col) => (col === 0 ? START : SEP));
      steps.push({ run: keptPieces(run.cells, run.factors, run.span, seps[0]!, seps, null), comma: c > 0, memos: run.cells, cells: run.columns.map(cellAt), factors: run.factors });
      c += run.cells.length;
      continue;
    }
    steps.push({ run: null, comma: c > 0, memo: memoAt(c), cell: cellAt(c) });
    c++;
  }
  return steps;
}

function writeHeader(t: ColumnTable, w: ByteWriter): void {
  w.text(t.names.map(csvField).join(','));
  w.byte(CR); w.byte(LF);
}

/** Writes rows from i on, until the table ends or the writer holds stopAt bytes; returns the next row. */
function writeRows(t: ColumnTable, steps: Step[], w: ByteWriter, i: number, stopAt = Number.POSITIVE_INFINITY): number {
  const n = steps.length;
  for (; i < t.n && w.n < stopAt; i++) {
    for (let c = 0; c < n; c++) {
      const s = steps[c]!;
      if (s.run !== null) { s.run.write(s.factors, i, w, s, keptCells); continue; }
      if (s.comma) w.byte(COMMA);
      writeCell(s.memo, s.cell, i, w);
    }
    w.byte(CR); w.byte(LF);
  }
  return i;
}

/** A kept run's bytes for row i as written when not kept yet: its cells, a comma before each but a row's first. */
function keptCells(s: Extract<Step, { run: KeptPieces }>, i: number, w: ByteWriter): void {
  for (let j = 0; j < s.memos.length; j++) {
    if (j > 0 || s.comma) w.byte(COMMA);
    writeCell(s.memos[j]!, s.cells[j]!, i, w);
  }
}

/** One cell: a memo cell's key is read here, not in a cell that calls it, so it costs one call as a plain cell does. */
function writeCell(m: MemoCell | null, cell: Cell, i: number, w: ByteWriter): void {
  if (m === null) { cell(i, w); return; }
  const k = m.key(i);
  if (k >= 0) m.memo.write(w, k, m.text);
  else cell(i, w);
}

/**
 * A table's whole CSV (header, then each row) as UTF-8 in one buffer: how a
 * worker writes a page for the thread serving the request to stream (chunksOf). Written
 * into `into` (a page slot, or a capacity for a fresh buffer), growing out
 * of it when full; the result's buffer says where the bytes ended up.
 */
export function csvBytes(t: ColumnTable, into: Uint8Array | number): Uint8Array {
  const w = new ByteWriter(into);
  writeHeader(t, w);
  writeRows(t, cellsOf(t), w, 0);
  return w.written();
}

/**
 * A table's CSV written a piece at a time, the same bytes as csvBytes: each call writes on into w (the
 * header first) until w holds `until` bytes or the table ends, at a row's end; true once it has ended.
 * How a worker writes a page into its slot while the thread serving it streams what is written so far.
 * Without the header: a later part of a page whose first part wrote it (a page written in steps).
 */
export function csvPieces(t: ColumnTable, header = true): (w: ByteWriter, until: number) => boolean {
  const cells = cellsOf(t);
  let i = header ? -1 : 0;
  return (w, until) => {
    if (i < 0) { writeHeader(t, w); i = 0; }
    i = writeRows(t, cells, w, i, until);
    return i >= t.n;
  };
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
