// One year of one flat table as its two bulk files, written on the pool
// (issue 32): the rows the flat route's CSV pages hold (/<table>?type=<each
// type>&years=<year>&format=csv), computed here slice by slice (a block of
// governments of one type, about sliceRows rows: one money job), and each
// slice written twice from the same columns: its CSV bytes (csv-writer.ts,
// the pages' writer) through gzip on this thread (page-coder.ts GzipPieces) into the
// .csv.gz, one header line, and its
// columns as an Arrow record batch into parquet-wasm's streamed writer, which
// gathers batches into row groups of up to 2^20 rows. Nothing is parsed back.
//
// Rows come out of a money job in (year, government rank, cell) order, so the
// slices of one type's governments, taken in rank order, concatenate to the
// type's pages; the types follow in the walk's order. At most a slice's rows,
// their CSV bytes and a row group are held at a time. The files are written
// under the temp names given; the thread that asked seals or removes them.

import { createWriteStream, rmSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { csvBytes } from '../../src/bytes/csv-writer.js';
import type * as ParquetWasm from 'parquet-wasm';
import { GzipPieces } from '../../src/bytes/page-coder.js';
import { writeParquetStream, writerProperties } from '../../src/bytes/parquet-writer.js';
import { writeDrained } from '../../src/bytes/write-drained.js';
import type { BulkTableArgs, BulkTableResult } from '../../src/finance/bulk-job.js';
import { moneyTable } from '../../src/finance/money-table.js';
import type { TableCtx } from '../../src/finance/table-ctx.js';
import { bulkBatch } from './bulk-batch.js';
import type { FinanceView } from './corpus.js';
import { money } from './money.js';

/** Governments in the first slice of a type, before the rows per government are known. */
const FIRST_SLICE_GOVS = 64;

/** The slices' governments: each selection's in rank order (the money job's), in blocks sized to about sliceRows rows. */
function* slices(t: TableCtx, a: BulkTableArgs, rowsSeen: () => { rows: number; govs: number }): Generator<number[]> {
  const rank = t.engine.govRank;
  for (const selection of a.selections) {
    const govs = [...selection].sort((p, q) => rank[p]! - rank[q]!);
    let size = FIRST_SLICE_GOVS;
    for (let at = 0; at < govs.length; at += size) {
      const seen = rowsSeen();
      // Sized from the rows per government so far: a slice of a type with many rows each stays near sliceRows.
      if (seen.govs > 0) size = Math.max(8, Math.min(16_384, Math.round(a.sliceRows / Math.max(1, seen.rows / seen.govs))));
      yield govs.slice(at, at + size);
    }
  }
}

/** Writes the year's .csv.gz and .parquet of the table at a.csvGz and a.parquet; their row count. */
export async function bulkTable(c: FinanceView, t: TableCtx, a: BulkTableArgs): Promise<BulkTableResult> {
  const gzip = new GzipPieces(a.gzipLevel);
  const csvFile = createWriteStream(a.csvGz, { mode: 0o644 });
  const csvDone = finished(csvFile);
  csvDone.catch(() => {});
  let rows = 0, govs = 0, count = 0, cpu = 0, header = true;
  const blocks = slices(t, a, () => ({ rows, govs }));
  /** The next slice's record batch, its CSV written on to gzip first; null once every selection is walked. */
  const next = async (): Promise<ParquetWasm.RecordBatch | null> => {
    for (let b = blocks.next(); !b.done; b = blocks.next()) {
      const t0 = performance.now();
      const res = money(c, t.engine, { ...a.plan, govs: b.value, offset: 0, limit: Number.MAX_SAFE_INTEGER, stopAtPage: false });
      const table = moneyTable(t, a.route, a.table, res);
      govs += b.value.length;
      count++;
      if (table.n === 0) { cpu += performance.now() - t0; continue; }
      let csv = csvBytes(table, 4096 + 120 * table.n);
      // The file keeps the first slice's header line only (the CSV's names never hold a line break).
      if (!header) csv = csv.subarray(csv.indexOf(0x0a) + 1);
      header = false;
      const batch = bulkBatch(table, a.columns);
      rows += table.n;
      cpu += performance.now() - t0;
      await writeDrained(csvFile, gzip.push(csv));
      return batch;
    }
    return null;
  };
  try {
    // A slice that fails rejects this (else both files would be sealed short and served as whole, immutable:
    // test/write-failures.test.ts), and the catch removes them.
    await writeParquetStream(next, writerProperties([], a.codec), a.parquet);
    csvFile.end(gzip.end());
    await csvDone;
    return { rows, slices: count, cpuMs: Math.round(cpu) };
  } catch (err) {
    gzip.close();
    csvFile.destroy();
    rmSync(a.csvGz, { force: true });
    rmSync(a.parquet, { force: true });
    throw err;
  }
}
