// A table's page as an Arrow IPC stream (issue 19): typed columns built
// straight from the column table's values and memo keys into Arrow buffers,
// serialized by apache-arrow. Written where the page's rows are computed (a
// worker, for flat pages) and streamed from there like the CSV page.
//
// The columns are built by hand rather than with vectorFromArray: it boxes
// each value and rebuilds strings, about 6x slower on a 50,000-row page of
// synthetic columns (56-96 ms against 10-13 ms, measured in a script while
// this was written; the bench's Arrow pulls are in bench/results/bulk.md). Dictionary
// columns take their indices from the CSV memo keys the writers already
// share, so a government's id and name are looked up once a page.

import {
  Bool, Dictionary, Field, Float64, Int32, RecordBatch, Schema, Struct, Table, Utf8, makeData, makeVector, tableToIPC,
  type Data, type DataType,
} from 'apache-arrow';
import type { ArrowType, ColumnTable, MemoCell } from './column-table.js';

/** Rows a record batch: the stream goes out batch by batch, each a few hundred KB. */
export const ARROW_BATCH_ROWS = 8192;

const encoder = new TextEncoder();

/** Validity bits of a column with nulls, or undefined (and nullCount 0) when it has none. */
class Validity {
  bits: Uint8Array;
  nulls = 0;
  constructor(n: number) { this.bits = new Uint8Array((n + 7) >> 3); }
  set(i: number): void { this.bits[i >> 3]! |= 1 << (i & 7); }
  get bitmap(): Uint8Array | undefined { return this.nulls > 0 ? this.bits : undefined; }
}

function utf8Data(n: number, textOf: (i: number) => string | null): Data<Utf8> {
  const offsets = new Int32Array(n + 1);
  const valid = new Validity(n);
  let buf = new Uint8Array(Math.max(64, n * 8));
  let at = 0;
  for (let i = 0; i < n; i++) {
    const s = textOf(i);
    if (s === null) valid.nulls++;
    else {
      valid.set(i);
      if (buf.length - at < s.length * 3) {
        const grown = new Uint8Array(Math.max(buf.length * 2, at + s.length * 3));
        grown.set(buf.subarray(0, at));
        buf = grown;
      }
      at += encoder.encodeInto(s, buf.subarray(at)).written;
    }
    offsets[i + 1] = at;
  }
  return makeData({ type: new Utf8(), length: n, valueOffsets: offsets, data: buf.subarray(0, at), nullBitmap: valid.bitmap, nullCount: valid.nulls });
}

const text = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : String(v));

/**
 * A dictionary column: each distinct text once, rows as int32 indices. Keyed by the memo cell's key where
 * it has one (a number per distinct text), else by the text itself.
 */
function dictData(id: number, n: number, get: (i: number) => unknown, memo: MemoCell | undefined): Data<Dictionary<Utf8, Int32>> {
  const index = new Int32Array(n);
  const valid = new Validity(n);
  const byKey = new Map<number, number>();
  const byText = new Map<string, number>();
  const words: (string | null)[] = [];
  for (let i = 0; i < n; i++) {
    const k = memo === undefined ? -1 : memo.key(i);
    let j = k >= 0 ? byKey.get(k) : undefined;
    if (j === undefined) {
      const s = k >= 0 ? memo!.text(k) : text(get(i));
      if (s === null) { valid.nulls++; continue; }
      j = byText.get(s);
      if (j === undefined) { j = words.length; byText.set(s, j); words.push(s); }
      if (k >= 0) byKey.set(k, j);
    }
    valid.set(i);
    index[i] = j;
  }
  const dictionary = makeVector(utf8Data(words.length, (w) => words[w]!));
  return makeData({ type: new Dictionary(new Utf8(), new Int32(), id), length: n, data: index, dictionary, nullBitmap: valid.bitmap, nullCount: valid.nulls });
}

function numberData(int: boolean, n: number, get: (i: number) => unknown): Data<Int32> | Data<Float64> {
  const values = int ? new Int32Array(n) : new Float64Array(n);
  const valid = new Validity(n);
  for (let i = 0; i < n; i++) {
    const v = get(i);
    if (v === null || v === undefined) { valid.nulls++; continue; }
    valid.set(i);
    values[i] = v as number;
  }
  const nulls = { nullBitmap: valid.bitmap, nullCount: valid.nulls };
  return values instanceof Int32Array
    ? makeData({ type: new Int32(), length: n, data: values, ...nulls })
    : makeData({ type: new Float64(), length: n, data: values, ...nulls });
}

function boolData(n: number, get: (i: number) => unknown): Data<Bool> {
  const bits = new Uint8Array((n + 7) >> 3);
  const valid = new Validity(n);
  for (let i = 0; i < n; i++) {
    const v = get(i);
    if (v === null || v === undefined) { valid.nulls++; continue; }
    valid.set(i);
    if (v === true) bits[i >> 3]! |= 1 << (i & 7);
  }
  return makeData({ type: new Bool(), length: n, data: bits, nullBitmap: valid.bitmap, nullCount: valid.nulls });
}

function columnData(t: ColumnTable, c: number, dictId: number): Data<DataType> {
  const get = t.get[c]!, n = t.n;
  const kind: ArrowType = t.arrow?.[c] ?? 'utf8';
  switch (kind) {
    case 'int32': return numberData(true, n, get);
    case 'float64': return numberData(false, n, get);
    case 'bool': return boolData(n, get);
    case 'dict': {
      const cell = t.csv?.[c];
      return dictData(dictId, n, get, cell !== undefined && 'memo' in cell ? cell : undefined);
    }
    case 'utf8': return utf8Data(n, (i) => text(get(i)));
  }
}

/** The table as Arrow record batches of ARROW_BATCH_ROWS rows, the schema carrying `metadata` (key-value pairs). */
export function arrowTable(t: ColumnTable, metadata: [string, string][]): Table {
  let dictIds = 0;
  const children = t.names.map((_, c) => columnData(t, c, dictIds++));
  // Every field nullable: a page's column may hold a null where another page's has none.
  const fields = t.names.map((name, c) => new Field(name, children[c]!.type, true));
  const schema = new Schema(fields, new Map(metadata));
  const whole = makeData({ type: new Struct(fields), length: t.n, nullCount: 0, children });
  const batches: RecordBatch[] = [];
  for (let s = 0; s < t.n; s += ARROW_BATCH_ROWS) batches.push(new RecordBatch(schema, whole.slice(s, Math.min(ARROW_BATCH_ROWS, t.n - s))));
  return new Table(schema, batches);
}

/** The table as an Arrow IPC stream (application/vnd.apache.arrow.stream). */
export function arrowBytes(t: ColumnTable, metadata: [string, string][]): Uint8Array {
  return tableToIPC(arrowTable(t, metadata), 'stream');
}
