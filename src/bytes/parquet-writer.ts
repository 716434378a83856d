// Parquet from this server's tables. A table's page as one file (issue 19):
// the Arrow table of arrow-writer.ts handed to parquet-wasm's writer, which
// keeps the schema's key-value metadata in the file's footer, one row group a
// page. And a file of many batches written as they are made
// (writeParquetStream: the bulk files, civicstream export), held to the rows
// handed to it.
//
// parquet-wasm is loaded on first use, synchronously (its Node build is
// CommonJS and reads its .wasm with readFileSync): a worker that never writes
// Parquet never instantiates the module (about 5 MB).

import { createWriteStream, openAsBlob } from 'node:fs';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { tableToIPC } from 'apache-arrow';
import type * as ParquetWasm from 'parquet-wasm';
import { arrowTable } from './arrow-writer.js';
import type { ColumnTable } from './column-table.js';

let wasm: typeof ParquetWasm | undefined;

/** parquet-wasm, loaded once per thread on first use (the writers here). */
export function parquetWasm(): typeof ParquetWasm {
  wasm ??= createRequire(import.meta.url)('parquet-wasm') as typeof ParquetWasm;
  return wasm;
}

/**
 * zstd, dictionary pages, one row group. bench/results/parquet-codecs.md (full scale, 2026-11-27): on 50,000-row
 * answer pages zstd wrote 5.6 bytes a row against Snappy's 6.9 (19% fewer on the wire) at about the same speed
 * (1.08 M rows/s against 1.01 M); reading it back is slower (DuckDB 1.4 M rows/s against 2.0 M), on the client,
 * still many times what a network delivers. The bulk files use zstd too (workers/finance/bulk-table.ts).
 */
export function writerProperties(metadata: [string, string][], codec: 'zstd' | 'snappy' = 'zstd'): ParquetWasm.WriterProperties {
  const p = parquetWasm();
  // Built per write: writeParquet takes the properties by value (the wasm object is consumed). The metadata
  // goes in the footer's own key-value list, which every reader shows (DuckDB's parquet_kv_metadata); in the
  // Arrow schema alone it would sit inside ARROW:schema, where only Arrow readers look.
  return new p.WriterPropertiesBuilder().setCompression(codec === 'snappy' ? p.Compression.SNAPPY : p.Compression.ZSTD).setDictionaryEnabled(true).setMaxRowGroupSize(1 << 20)
    .setKeyValueMetadata(new Map(metadata)).build();
}

/** The table as one Parquet file (application/vnd.apache.parquet), `metadata` in its footer. */
export function parquetBytes(t: ColumnTable, metadata: [string, string][]): Uint8Array {
  const p = parquetWasm();
  const ipc = tableToIPC(arrowTable(t, metadata), 'stream');
  return p.writeParquet(p.Table.fromIPCStream(ipc), writerProperties(metadata));
}

/**
 * Record batches, pulled one at a time from next (null: no more), written by parquet-wasm's streamed writer into
 * the file at out; rejects unless the file holds every row pulled. The writer is lenient where a file must not be
 * (parquet-wasm 0.8, src/writer_async.rs): it skips a batch whose pull failed, drops one it cannot write (a schema
 * that differs) and closes the file as if whole, which would make a short file look like a good one (the bulk
 * files, civicstream export). So a failed pull is kept and thrown once the writer is done, and the footer's row
 * count is held to the rows pulled. The caller removes the file.
 */
export async function writeParquetStream(next: () => Promise<ParquetWasm.RecordBatch | null>, properties: ParquetWasm.WriterProperties, out: string): Promise<void> {
  let failure: { error: unknown } | null = null;
  let pulled = 0;
  const batches = new ReadableStream<ParquetWasm.RecordBatch>({
    async pull(controller) {
      let batch: ParquetWasm.RecordBatch | null;
      try {
        batch = await next();
      } catch (error) {
        failure = { error };
        throw error;
      }
      if (batch === null) controller.close();
      else {
        pulled += batch.numRows;
        controller.enqueue(batch);
      }
    },
  });
  const kept = (): { error: unknown } | null => failure;
  try {
    const bytes = await parquetWasm().transformParquetStream(batches, properties);
    await bytes.pipeTo(Writable.toWeb(createWriteStream(out, { mode: 0o644 })) as WritableStream<Uint8Array>);
  } catch (e) {
    // With no first batch (its pull failed, or there were no rows) the writer rejects with its own "Dyn casting error".
    const f = kept();
    if (f !== null) throw f.error;
    throw pulled === 0 ? new Error('no rows to write: a Parquet file is not written for an empty table') : e;
  }
  const f = kept();
  if (f !== null) throw f.error;
  const file = await parquetWasm().ParquetFile.fromFile(await openAsBlob(out));
  let written: number;
  try {
    written = file.metadata().fileMetadata().numRows();
  } finally {
    file.free();
  }
  if (written !== pulled) throw new Error(`the Parquet file holds ${written} of the ${pulled} rows written to it`);
}
