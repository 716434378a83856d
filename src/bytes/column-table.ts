// A table as named columns read by row index: what both the CSV writer
// (csv-writer.ts) and the JSON rows writer (json-rows.ts) are fed from, so
// the two formats of one answer cannot disagree.

import type { ByteMemo, ByteWriter, Cell } from './byte-writer.js';

/**
 * A cell that is one of `keys` distinct texts, named by key(i) and escaped
 * once in a memo (the memo's escape is the format's). Declared as data
 * rather than as a writer: the writers read the key themselves, and JSON
 * rows write adjacent memo cells as one run (json-rows.ts).
 */
export interface MemoCell {
  /** The row's key, below keys; -1 for a value too varied to memoize, written from the column's value (or by fallback). */
  key: (i: number) => number;
  keys: number;
  text: (k: number) => string | null;
  memo: ByteMemo;
  fallback?: Cell;
}

export interface ColumnTable {
  names: string[];
  get: ((i: number) => unknown)[];
  n: number;
  /**
   * Optional per column: how its CSV cell is written. Columns whose values
   * can never need quoting (numbers, booleans, identifiers) write them
   * without csvField or a string; a memo cell copies its escaped bytes.
   * Without one, and for a memo cell's rows it does not key, the value goes
   * through csvField.
   */
  csv?: (Cell | MemoCell | undefined)[];
  /** Optional per column: the cell written straight into the JSON rows' bytes. */
  json?: (Cell | MemoCell | undefined)[];
  /**
   * Optional per column: its type in an Arrow or Parquet answer (arrow-writer.ts); utf8 when absent.
   * A dict column whose CSV cell is a memo cell is encoded from the memo's keys, else from its values.
   */
  arrow?: ArrowType[];
}

/** A column's typed form in the binary formats: integers as integers, amounts as float64, repeated words dictionary-encoded. */
export type ArrowType = 'int32' | 'float64' | 'bool' | 'utf8' | 'dict';

/** A memo cell's value for row i: its memoized text, or its fallback's for a row it does not key. */
export function writeMemo(m: MemoCell, i: number, w: ByteWriter): void {
  const k = m.key(i);
  if (k >= 0) m.memo.write(w, k, m.text);
  else m.fallback!(i, w);
}

/** The same table as row objects (for an envelope built from values), rows [start, end). */
export function rowObjects(t: ColumnTable, start = 0, end = t.n): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = start; i < Math.min(end, t.n); i++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < t.names.length; c++) row[t.names[c]!] = t.get[c]!(i);
    out.push(row);
  }
  return out;
}
