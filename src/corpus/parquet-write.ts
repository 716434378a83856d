// Writing parquet: Arrow columns (apache-arrow) -> IPC -> parquet-wasm, zstd,
// dictionary-encoded strings. Used by the generators and the CLI's parquet export.

import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Bool, Dictionary, Float64, Int32, Table, Utf8, makeVector, tableToIPC, vectorFromArray, type Vector } from 'apache-arrow';
import { Table as WasmTable, writeParquet, type RecordBatch, type WriterProperties } from 'parquet-wasm';
import { writerProperties as pageWriterProperties } from '../bytes/parquet-writer.js';

export type ColumnSpec =
  | { name: string; type: 'utf8'; values: (string | null)[] }
  | { name: string; type: 'dict'; values: string[] }
  | { name: string; type: 'int32'; values: Int32Array | (number | null)[] }
  | { name: string; type: 'bool'; values: (boolean | null)[] }
  | { name: string; type: 'float64'; values: Float64Array | (number | null)[] };

function vector(c: ColumnSpec): Vector {
  switch (c.type) {
    case 'utf8': return vectorFromArray(c.values, new Utf8());
    case 'dict': return vectorFromArray(c.values, new Dictionary(new Utf8(), new Int32()));
    case 'int32': return c.values instanceof Int32Array ? makeVector(c.values) : vectorFromArray(c.values, new Int32());
    case 'bool': return vectorFromArray(c.values, new Bool());
    case 'float64': return c.values instanceof Float64Array ? makeVector(c.values) : vectorFromArray(c.values, new Float64());
  }
}

/** zstd, dictionary-encoded, row groups of up to 2^20 rows: the answer pages' and bulk files' settings, with no footer metadata (the same bytes as before they were shared). */
export const writerProperties = (): WriterProperties => pageWriterProperties([]);

const wasmTable = (columns: ColumnSpec[]): WasmTable =>
  WasmTable.fromIPCStream(tableToIPC(new Table(Object.fromEntries(columns.map((c) => [c.name, vector(c)]))), 'stream'));

export function parquetBytes(columns: ColumnSpec[]): Uint8Array {
  return writeParquet(wasmTable(columns), writerProperties());
}

/** The columns as one record batch, for a streamed writer (src/bytes/parquet-writer.ts writeParquetStream). */
export const recordBatch = (columns: ColumnSpec[]): RecordBatch => wasmTable(columns).recordBatch(0)!;

export function writeParquetFile(file: string, columns: ColumnSpec[]): Uint8Array {
  const bytes = parquetBytes(columns);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  return bytes;
}
