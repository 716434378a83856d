// An independent engine for checking our numbers: DuckDB over the same parquet.
// Shared by bench/ and test/ (see server.ts for why it lives here).

import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import path from 'node:path';
import { ROOT } from './server.js';

export const V6 = path.join(ROOT, 'fixtures/finance/v6');

let con: Promise<DuckDBConnection> | undefined;

export function duck(): Promise<DuckDBConnection> {
  con ??= DuckDBInstance.create(':memory:').then((db) => db.connect());
  return con;
}

/** Rows as plain objects, bigint turned into number. */
export async function query(sql: string): Promise<Record<string, any>[]> {
  const r = await (await duck()).runAndReadAll(sql);
  const names = r.columnNames();
  return r.getRowsJS().map((row) => Object.fromEntries(row.map((v, i) => [names[i], typeof v === 'bigint' ? Number(v) : v])));
}

export const table = (name: string, dir = V6): string => `read_parquet('${path.join(dir, 'data', `${name}.parquet`)}')`;
export const long = (dir = V6): string => `read_parquet('${path.join(dir, 'data/long/*/*.parquet')}', hive_partitioning = false)`;
