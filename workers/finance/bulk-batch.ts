// A slice of a bulk table as one Arrow record batch for parquet-wasm's
// writer, typed as `export --format parquet` types the API's CSV: each column
// int32, float64, bool or utf8 by the route's row fields, every field
// nullable (BulkColumn). The values are the ones the CSV page holds, read as
// that export reads its cells back: a null cell and an empty text are one
// empty field in CSV, so an empty text is null in a nullable text column and
// '' in another, and a number is what its shortest text reads back as (-0 is
// written "0"). The buffers are built by hand (arrow-writer.ts says why:
// vectorFromArray boxes every value) and handed to parquet-wasm as IPC.

import { createRequire } from 'node:module';
import {
  Bool, Field, Float64, Int32, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableToIPC, type Data, type DataType,
} from 'apache-arrow';
import type * as ParquetWasm from 'parquet-wasm';
import type { ColumnTable, MemoCell } from '../../src/bytes/column-table.js';
import type { BulkColumn, BulkKind } from '../../src/finance/bulk-job.js';

const encoder = new TextEncoder();
const TYPES: Record<BulkKind, () => DataType> = { int32: () => new Int32(), float64: () => new Float64(), bool: () => new Bool(), utf8: () => new Utf8() };

/** A cell as the CSV holds it (csv-writer.ts): null and undefined empty, a text without NUL characters, anything else its String(). */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : String(v);
  return s.includes('\0') ? s.replaceAll('\0', '') : s;
}

/** A number column's value of a cell: what Number() reads back of its CSV text ('' is null). */
function numberOf(v: unknown): number | null {
  // String() of a double is its shortest round-trip text, so Number() gives it back, but for -0 (written "0").
  if (typeof v === 'number') return v + 0;
  const t = cellText(v);
  return t === '' ? null : Number(t);
}

function boolOf(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  const t = cellText(v);
  return t === '' ? null : t === 'true';
}

/** Validity bits, set per value present; none when every value is. */
function validity(n: number, present: (i: number) => boolean): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  const bits = new Uint8Array((n + 7) >> 3);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (present(i)) bits[i >> 3]! |= 1 << (i & 7);
    else nulls++;
  }
  return { nullBitmap: nulls > 0 ? bits : undefined, nullCount: nulls };
}

function numberData(kind: 'int32' | 'float64', n: number, get: (i: number) => unknown): Data {
  const values = kind === 'int32' ? new Int32Array(n) : new Float64Array(n);
  const present = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const x = numberOf(get(i));
    if (x !== null) { values[i] = x; present[i] = 1; }
  }
  const type = kind === 'int32' ? new Int32() : new Float64();
  return makeData({ type, length: n, data: values, ...validity(n, (i) => present[i] === 1) } as never);
}

function boolData(n: number, get: (i: number) => unknown): Data {
  const bits = new Uint8Array((n + 7) >> 3);
  const present = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const b = boolOf(get(i));
    if (b === null) continue;
    present[i] = 1;
    if (b) bits[i >> 3]! |= 1 << (i & 7);
  }
  return makeData({ type: new Bool(), length: n, data: bits, ...validity(n, (i) => present[i] === 1) });
}

/**
 * Each memo key's text as UTF-8, per column memo (keys name the same text for a thread's life, as the CSV
 * memo has them): a government's name is encoded once, not once a row.
 */
const encodedKeys = new WeakMap<object, (Uint8Array | undefined)[]>();

function utf8Data(n: number, nullable: boolean, get: (i: number) => unknown, memo: MemoCell | undefined): Data {
  const offsets = new Int32Array(n + 1);
  const present = new Uint8Array(n);
  let buf = new Uint8Array(Math.max(64, n * 16));
  let at = 0;
  let keyed: (Uint8Array | undefined)[] = [];
  if (memo !== undefined) {
    keyed = encodedKeys.get(memo.memo) ?? [];
    encodedKeys.set(memo.memo, keyed);
  }
  for (let i = 0; i < n; i++) {
    const k = memo === undefined ? -1 : memo.key(i);
    let bytes: Uint8Array | undefined, s = '';
    if (k >= 0) bytes = keyed[k] ??= encoder.encode(cellText(memo!.text(k)));
    else {
      const v = get(i);
      s = typeof v === 'string' && !v.includes('\0') ? v : cellText(v);
    }
    const size = bytes === undefined ? s.length * 3 : bytes.length;
    if ((bytes === undefined ? s !== '' : size > 0) || !nullable) {
      present[i] = 1;
      if (buf.length - at < size) {
        const grown = new Uint8Array(Math.max(buf.length * 2, at + size));
        grown.set(buf.subarray(0, at));
        buf = grown;
      }
      if (bytes === undefined) at += encoder.encodeInto(s, buf.subarray(at)).written;
      else if (size < 16) for (let j = 0; j < size; j++) buf[at++] = bytes[j]!;
      else { buf.set(bytes, at); at += size; }
    }
    offsets[i + 1] = at;
  }
  return makeData({ type: new Utf8(), length: n, valueOffsets: offsets, data: buf.subarray(0, at), ...validity(n, (i) => present[i] === 1) });
}

let wasm: typeof ParquetWasm | undefined;
const parquetWasm = (): typeof ParquetWasm => (wasm ??= createRequire(import.meta.url)('parquet-wasm') as typeof ParquetWasm);

/** The table's rows as one record batch of parquet-wasm, its columns typed by `columns` (by name; others nullable utf8). */
export function bulkBatch(t: ColumnTable, columns: BulkColumn[]): ParquetWasm.RecordBatch {
  const byName = new Map(columns.map((c) => [c.name, c]));
  const fields: Field[] = [];
  const children: Data[] = [];
  t.names.forEach((name, c) => {
    const col = byName.get(name) ?? { name, kind: 'utf8', nullable: true };
    const get = t.get[c]!;
    const cell = t.csv?.[c];
    fields.push(new Field(name, TYPES[col.kind](), true));
    children.push(col.kind === 'utf8' ? utf8Data(t.n, col.nullable, get, typeof cell === 'object' ? cell : undefined) : col.kind === 'bool' ? boolData(t.n, get) : numberData(col.kind, t.n, get));
  });
  const schema = new Schema(fields);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length: t.n, children }));
  return parquetWasm().Table.fromIPCStream(tableToIPC(new Table([batch]), 'stream')).recordBatch(0)!;
}
