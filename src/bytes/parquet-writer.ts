// A table's page as a Parquet file (issue 19): the Arrow table of
// arrow-writer.ts handed to parquet-wasm's writer, which keeps the schema's
// key-value metadata in the file's footer. One row group a page.
//
// parquet-wasm is loaded on the first Parquet page, synchronously (its Node
// build is CommonJS and reads its .wasm with readFileSync): a worker that
// never writes Parquet never instantiates the module (about 5 MB).

import { createRequire } from 'node:module';
import { tableToIPC } from 'apache-arrow';
import type * as ParquetWasm from 'parquet-wasm';
import { arrowTable } from './arrow-writer.js';
import type { ColumnTable } from './column-table.js';

let wasm: typeof ParquetWasm | undefined;

function parquetWasm(): typeof ParquetWasm {
  wasm ??= createRequire(import.meta.url)('parquet-wasm') as typeof ParquetWasm;
  return wasm;
}

/**
 * Snappy, dictionary pages, one row group: what the bench measured (bench/results/bulk.md). On one real
 * 50,000-row page, zstd (parquet-wasm's default level) wrote 344 KB in 41.9 ms against Snappy's 431 KB in
 * 45.5 ms (medians of 7, measured beside a test run): a lead to measure in the bench before switching.
 */
function writerProperties(metadata: [string, string][]): ParquetWasm.WriterProperties {
  const p = parquetWasm();
  // Built per write: writeParquet takes the properties by value (the wasm object is consumed). The metadata
  // goes in the footer's own key-value list, which every reader shows (DuckDB's parquet_kv_metadata); in the
  // Arrow schema alone it would sit inside ARROW:schema, where only Arrow readers look.
  return new p.WriterPropertiesBuilder().setCompression(p.Compression.SNAPPY).setDictionaryEnabled(true).setMaxRowGroupSize(1 << 20)
    .setKeyValueMetadata(new Map(metadata)).build();
}

/** The table as one Parquet file (application/vnd.apache.parquet), `metadata` in its footer. */
export function parquetBytes(t: ColumnTable, metadata: [string, string][]): Uint8Array {
  const p = parquetWasm();
  const ipc = tableToIPC(arrowTable(t, metadata), 'stream');
  return p.writeParquet(p.Table.fromIPCStream(ipc), writerProperties(metadata));
}
