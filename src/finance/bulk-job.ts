// What the bulk-table job takes and returns (workers/finance/bulk-table.ts):
// one year of one flat table written by a worker as the two bulk files, a
// gzip CSV and a Parquet file, from the rows it computes (no CSV parsed back).
// Only plain data crosses; the thread that asks seals the files (bulk-store.ts).

import type { MoneyRoute, MoneyTableOptions } from './money-table.js';
import type { MoneyPlan } from './plan.js';

/** A Parquet column's type, as `export --format parquet` types it from the route's row fields (http/parquet-pages.ts). */
export type BulkKind = 'int32' | 'float64' | 'bool' | 'utf8';

/** A column of the Parquet file: its kind, and whether an empty text is null in it (the CSV cannot tell the two apart). */
export interface BulkColumn {
  name: string;
  kind: BulkKind;
  nullable: boolean;
}

export interface BulkTableArgs {
  /** The year's plan (offset, limit and govs replaced per slice). */
  plan: MoneyPlan;
  route: MoneyRoute;
  table: MoneyTableOptions;
  /** The governments of each selection in turn (each government type, in GOV_TYPES order): the walk's order. */
  selections: number[][];
  /** The Parquet columns by name; a column not listed is a nullable utf8 (as parquet-pages.ts has it). */
  columns: BulkColumn[];
  /** Where to write: temp names the asking thread seals or removes. */
  csvGz: string;
  parquet: string;
  /** Rows a slice aims at (one money job, one CSV chunk and one Arrow batch). */
  sliceRows: number;
  /** gzip level of the .csv.gz (its decompressed bytes do not depend on it). */
  gzipLevel: number;
  /** Parquet compression (bench/parquet-codecs.ts compares them); zstd when absent. */
  codec?: 'zstd' | 'snappy';
}

export interface BulkTableResult {
  /** Rows written to each file. */
  rows: number;
  /** Money jobs (slices) the rows took. */
  slices: number;
  /** Milliseconds its thread spent computing the slices and writing their CSV bytes and batches (not gzip, the Parquet encoding or waits). */
  cpuMs: number;
}
