// Writing parquet: Arrow columns (apache-arrow) -> IPC -> parquet-wasm, zstd,
// dictionary-encoded strings. Used by the generators.

import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Bool, Dictionary, Float64, Int32, Table, Utf8, makeVector, tableToIPC, vectorFromArray, type Vector } from 'apache-arrow';
import { Compression, Table as WasmTable, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm';

export type ColumnSpec =
  | { name: string; type: 'utf8'; values: (string | null)[] }
  | { name: string; type: 'dict'; values: string[] }
  | { name: string; type: 'int32'; values: Int32Array }
  | { name: string; type: 'bool'; values: boolean[] }
  | { name: string; type: 'float64'; values: Float64Array | (number | null)[] };

function vector(c: ColumnSpec): Vector {
  switch (c.type) {
    case 'utf8': return vectorFromArray(c.values, new Utf8());
    case 'dict': return vectorFromArray(c.values, new Dictionary(new Utf8(), new Int32()));
    case 'int32': return makeVector(c.values);
    case 'bool': return vectorFromArray(c.values, new Bool());
    case 'float64': return c.values instanceof Float64Array ? makeVector(c.values) : vectorFromArray(c.values, new Float64());
  }
}

export function parquetBytes(columns: ColumnSpec[]): Uint8Array {
  const table = new Table(Object.fromEntries(columns.map((c) => [c.name, vector(c)])));
  const wasm = WasmTable.fromIPCStream(tableToIPC(table, 'stream'));
  const props = new WriterPropertiesBuilder().setCompression(Compression.ZSTD).setDictionaryEnabled(true).setMaxRowGroupSize(1 << 20).build();
  return writeParquet(wasm, props);
}

export function writeParquetFile(file: string, columns: ColumnSpec[]): Uint8Array {
  const bytes = parquetBytes(columns);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  return bytes;
}
