// An answer's rows as a JSON array, written as UTF-8 bytes from the result
// columns (no row object, no string), with runs of memo cells written once
// per distinct combination and copied whole for every later row: kept for
// the server's life when a run's combinations are few (kept-pieces.ts), for
// the answer otherwise.
// Property-tested byte for byte against JSON.stringify of the row objects.

import { ByteMemo, ByteWriter, utf8, type Cell } from './byte-writer.js';
import { writeMemo, type ColumnTable, type MemoCell } from './column-table.js';
import { KEPT_KEYS, keptPieces, runKey, takeRun, type KeptPieces } from './kept-pieces.js';
import { compiledRows, type RowHelpers } from './json-rows-compiled.js';

const COMMA = 0x2c;
const TRUE = utf8('true'), FALSE = utf8('false');

/** A JSON cell for a column of plain values: numbers (null when not finite), booleans, null. */
export const plainJson = (get: (i: number) => unknown): Cell => {
  const cell: PlainCell = (i, w) => {
    const v = get(i);
    if (v === null || v === undefined) w.bytes(NULL);
    else if (typeof v === 'number') { if (Number.isFinite(v)) w.number(v); else w.bytes(NULL); }
    else if (typeof v === 'boolean') w.bytes(v ? TRUE : FALSE);
    else w.text(typeof v === 'string' ? JSON.stringify(v) : String(v));
  };
  // The compiled rows (json-rows-compiled.ts) call the getter at a site of their own and write the same bytes.
  // A property, not a WeakMap: a WeakMap entry per column of every answer grew the collector's work by half.
  cell.plainGet = get;
  return cell;
};
const NULL = utf8('null');
/** plainJson's cell, carrying its getter. */
type PlainCell = Cell & { plainGet?: (i: number) => unknown };

/** A JSON escape for ByteMemo: a cell's text as JSON.stringify writes it (null as null). */
export const jsonText = (s: string | null): string => JSON.stringify(s);

/** A JSON cell that escapes and encodes each distinct key's text once; keys bounds key(i). */
export function memoJson(key: (i: number) => number, keys: number, text: (k: number) => string | null, memo = new ByteMemo(64, jsonText), fallback?: Cell): MemoCell {
  return fallback === undefined ? { key, keys, text, memo } : { key, keys, text, memo, fallback };
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

/** How jsonRows writes a row: cells, and runs of adjacent memo cells written as one piece with the next key. */
export type Step =
  | { kind: 'cell'; prefix: Uint8Array | null; cell: Cell }
  | {
    kind: 'run'; prefix: Uint8Array | null; cells: MemoCell[]; prefixes: Uint8Array[]; tail: Uint8Array | null;
    /** The run's distinct key functions (cells keyed alike, such as a government's id and name, count once). */
    factors: MemoCell[];
    pieces: Map<number, number>;
  }
  | {
    /** A run whose pieces (its own key first, when it writes it) are kept across answers. */
    kind: 'kept'; head: Uint8Array | null; cells: MemoCell[]; prefixes: Uint8Array[]; tail: Uint8Array | null;
    factors: MemoCell[];
    kept: KeptPieces;
  };

export function stepsOf(t: ColumnTable): Step[] {
  const cols = t.names.length;
  const prefix = t.names.map((n, c) => prefixOf(n, c === 0));
  const json = t.json?.map((cell, c) => (typeof cell === 'object' ? withFallback(cell, t.get[c]!) : cell));
  const memoAt = (c: number): MemoCell | null => (c < cols && typeof json?.[c] === 'object' ? json[c] as MemoCell : null);
  // A run starts at two memo cells, or at one whose pieces can be kept: the key before it then goes with it.
  const runAt = (c: number): boolean => memoAt(c) !== null && (memoAt(c + 1) !== null || memoAt(c)!.keys <= KEPT_KEYS);
  const steps: Step[] = [];
  // Whether the next step writes its column's key: not when the run before it wrote it as its tail.
  let ownPrefix = true;
  for (let c = 0; c < cols;) {
    if (runAt(c)) {
      // Rows of one answer repeat the same government, category and subtype: their cells and the
      // keys between them are one piece per distinct combination.
      // A cell with more keys than KEPT_KEYS alone starts a run whose pieces last one answer.
      const { cells, factors, span, columns } = takeRun(memoAt, c, memoAt(c)!.keys <= KEPT_KEYS ? KEPT_KEYS : RUN_KEYS);
      const prefixes = columns.map((col) => prefix[col]!);
      c += cells.length;
      // The next column's key goes into the piece, unless that column starts a run of its own.
      const tail = c < cols && !runAt(c) ? prefix[c]! : null;
      const head = ownPrefix ? prefixes[0]! : null;
      if (span <= KEPT_KEYS) {
        steps.push({ kind: 'kept', head, cells, prefixes, tail, factors, kept: keptPieces(cells, factors, span, head, prefixes, tail) });
      } else {
        steps.push({ kind: 'run', prefix: head, cells, prefixes, tail, factors, pieces: new Map() });
      }
      ownPrefix = tail === null;
      continue;
    }
    const cell = json?.[c], get = t.get[c]!;
    const write: Cell = cell === undefined ? (row, w) => w.text(JSON.stringify(get(row) ?? null))
      : typeof cell === 'function' ? cell
        : (row, w) => writeMemo(cell, row, w);
    steps.push({ kind: 'cell', prefix: ownPrefix ? prefix[c]! : null, cell: write });
    ownPrefix = true;
    c++;
  }
  return steps;
}

/** A memo cell whose rows without a key are written from the column's value, unless it says how. */
const withFallback = (m: MemoCell, get: (i: number) => unknown): MemoCell => ({
  key: m.key, keys: m.keys, text: m.text, memo: m.memo,
  fallback: m.fallback ?? ((row, w) => w.text(JSON.stringify(get(row) ?? null))),
});

/** A run's cells for row i as they are (the key before the first is the caller's), and its tail. */
function writeCells(s: { cells: MemoCell[]; prefixes: Uint8Array[]; tail: Uint8Array | null }, i: number, w: ByteWriter): void {
  const { cells } = s;
  for (let j = 0; j < cells.length; j++) {
    if (j > 0) w.bytes(s.prefixes[j]!);
    writeMemo(cells[j]!, i, w);
  }
  if (s.tail !== null) w.bytes(s.tail);
}

/**
 * A run's cells for row i. A combination seen before in this answer is
 * copied from where it was first written: no piece is allocated, and a
 * fleet page whose every row is a new combination pays only the lookup.
 */
function writeRun(s: Extract<Step, { kind: 'run' }>, i: number, w: ByteWriter): void {
  const k = runKey(s.factors, i);
  const seen = k < 0 ? undefined : s.pieces.get(k);
  if (seen !== undefined) { w.again(Math.floor(seen / PIECE), seen % PIECE); return; }
  runMiss(s, k, i, w);
}

/** A run's cells for row i, not seen in this answer (k its key, -1 for none): written, and remembered under k. */
function runMiss(s: Extract<Step, { kind: 'run' }>, k: number, i: number, w: ByteWriter): void {
  const from = w.n;
  writeCells(s, i, w);
  if (k >= 0 && w.n - from < PIECE) s.pieces.set(k, from * PIECE + (w.n - from));
}
/** Where a run's piece was written, as offset * PIECE + length. */
const PIECE = 65536;

/** A kept run's bytes for row i as written when not kept yet: its own key first (when it writes it), its cells, its tail. */
function keptCells(s: Extract<Step, { kind: 'kept' }>, i: number, w: ByteWriter): void {
  if (s.head !== null) w.bytes(s.head);
  writeCells(s, i, w);
}

/** A kept run's piece for row i that no answer kept yet (k its key, -1 for none): written, and kept under k. */
function keptMiss(s: Extract<Step, { kind: 'kept' }>, k: number, i: number, w: ByteWriter): void {
  s.kept.miss(k, i, w, s, keptCells);
}

/** What compiled rows call back into (exported for the tests that set them against genericRows). */
export const rowHelpers: RowHelpers = {
  keptMiss: keptMiss as RowHelpers['keptMiss'], runMiss: runMiss as RowHelpers['runMiss'],
  plainGet: (cell) => (cell as PlainCell).plainGet, NULL, TRUE, FALSE, PIECE,
};

/**
 * The table's rows as a JSON array in UTF-8, written from the columns
 * without row objects or strings: what the envelope serializer writes as
 * data, into the body it sends (writeJsonRows), so the socket takes bytes
 * and no string is converted again.
 */
export function writeJsonRows(t: ColumnTable, w: ByteWriter): void {
  const steps = stepsOf(t);
  const compiled = compiledRows(steps, rowHelpers);
  if (compiled !== null) { compiled(steps, t.n, w); return; }
  genericRows(steps, t.n, w);
}

/** The rows by the generic loop: what every compiled writer is tested against, and what writes past their bound. */
export function genericRows(steps: Step[], n: number, w: ByteWriter): void {
  w.byte(0x5b);
  for (let i = 0; i < n; i++) {
    if (i > 0) w.byte(COMMA);
    for (let c = 0; c < steps.length; c++) {
      const s = steps[c]!;
      if (s.kind === 'kept') { s.kept.write(s.factors, i, w, s, keptCells); continue; }
      if (s.prefix !== null) w.bytes(s.prefix);
      if (s.kind === 'run') { writeRun(s, i, w); continue; }
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
