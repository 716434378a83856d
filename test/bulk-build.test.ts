// The bulk files built on the pool (issue 32) against the build they
// replace: for a year of each table, the worker's .csv.gz decompresses to
// exactly the bytes of the flat route's CSV pages walked by Link (one header
// line), and its .parquet has the schema, column types and rows, in order,
// that parsing those pages back wrote (test/helpers/bulk-reference.ts).
// Types are read by parquet-wasm into Arrow and by DuckDB's parquet_schema;
// rows by DuckDB, row by row.

import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../dist/src/config.js';
import { financeService, loadFinance } from '../dist/src/finance/http/service.js';
import { BuildStopped, buildTable } from '../dist/src/finance/http/bulk-build.js';
import { drain } from '../dist/src/server/lifecycle.js';
import { newWork, takePart } from '../dist/src/finance/http/bulk-work.js';
import { referenceBuild } from './helpers/bulk-reference.js';
import { query } from './helpers/duckdb.js';
import { ROOT } from './helpers/server.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-bulk-build-'));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let ctx: any, service: any;

beforeAll(async () => {
  const config = readConfig({ ...process.env, FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v6'), WORKERS: '2' });
  ctx = await loadFinance(config);
  service = { ...financeService(ctx, config), cache: undefined, timeoutMs: undefined, accessLog: false };
}, 60_000);

afterAll(async () => {
  await ctx?.pool.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The Arrow schema parquet-wasm reads from a Parquet file: each field's name, type and nullability. */
function arrowSchema(file: string): string[] {
  const t = tableFromIPC(readParquet(new Uint8Array(readFileSync(file))).intoIPCStream());
  return t.schema.fields.map((f) => `${f.name}:${String(f.type)}:${f.nullable}`);
}

const parquetSchema = (file: string): Promise<Record<string, unknown>[]> =>
  query(`SELECT name, type, repetition_type, logical_type, converted_type FROM parquet_schema('${file}')`);
const parquetRows = (file: string): Promise<Record<string, unknown>[]> => query(`SELECT * FROM read_parquet('${file}')`);

/** Builds the year both ways with this service and holds the two pairs of files to each other. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function compareYear(svc: any, label: string, year: number, table: 'spending' | 'revenue'): Promise<void> {
  const dir = mkdtempSync(path.join(tmp, `${label}-${table}-${year}-`));
  const files = await buildTable(svc, dir, year, table);
  const csv = files.find((f: { format: string }) => f.format === 'csv.gz'), pq = files.find((f: { format: string }) => f.format === 'parquet');
  // Only the two sealed files are left: no temp file.
  expect(readdirSync(dir).sort()).toEqual([csv.name, pq.name].sort());

  const refCsv = path.join(tmp, `ref-${label}-${table}-${year}.csv.gz`), refPq = path.join(tmp, `ref-${label}-${table}-${year}.parquet`);
  const ref = await referenceBuild(svc, year, table, refCsv, refPq);
  expect(ref.csvRows).toBeGreaterThan(0);
  expect([csv.rows, pq.rows]).toEqual([ref.csvRows, ref.parquetRows]);

  const got = gunzipSync(readFileSync(path.join(dir, csv.name))), want = gunzipSync(readFileSync(refCsv));
  expect(got.length).toBe(want.length);
  expect(got.equals(want)).toBe(true);

  const file = path.join(dir, pq.name);
  expect(arrowSchema(file)).toEqual(arrowSchema(refPq));
  expect(await parquetSchema(file)).toEqual(await parquetSchema(refPq));
  const [a, b] = [await parquetRows(file), await parquetRows(refPq)];
  expect(a.length).toBe(ref.parquetRows);
  for (let i = 0; i < b.length; i++) if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) expect({ row: i, ...a[i] }).toEqual({ row: i, ...b[i] });
  expect(a).toEqual(b);
}

describe('a year built on the pool', () => {
  for (const table of ['spending', 'revenue'] as const) {
    for (const which of ['latest', 'earliest'] as const) {
      it(`${table}, ${which} year: the same CSV bytes, and the same Parquet schema, types and rows, as the walk over the CSV pages`, async () => {
        const years: number[] = ctx.catalog.years;
        await compareYear(service, 'v6', which === 'latest' ? Math.max(...years) : Math.min(...years), table);
      }, 120_000);
    }
  }

  it('on a schema-4 corpus (the raw basis by default): the same files as the walk, spending of its latest year', async () => {
    const config = readConfig({ ...process.env, FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v4'), WORKERS: '1' });
    const v4 = await loadFinance(config);
    try {
      expect(v4.catalog.rules.harmonized).toBe(false);
      await compareYear({ ...financeService(v4, config), cache: undefined, timeoutMs: undefined, accessLog: false }, 'v4', Math.max(...(v4.catalog.years as number[])), 'spending');
    } finally {
      await v4.pool.close();
    }
  }, 120_000);
});

describe('the shared work of a build', () => {
  /** takePart on one thread's service, the pool's bulk jobs counted: each table done once, and the most at once. */
  async function take(builders: number | undefined): Promise<{ done: number[]; most: number }> {
    const dir = mkdtempSync(path.join(tmp, 'work-'));
    const year = Math.max(...(ctx.catalog.years as number[]));
    const work = newWork(dir, [{ year, table: 'revenue' }, { year: year - 1, table: 'revenue' }, { year, table: 'spending' }]);
    let now = 0, most = 0;
    const pool = { ...ctx.pool, run: async (...a: unknown[]) => { most = Math.max(most, ++now); try { return await ctx.pool.run(...a); } finally { now--; } } };
    const done: number[] = [];
    await takePart({ ...service, ctx: { ...ctx, pool } }, work, builders === undefined ? {} : { builders }, (i: number, files: unknown[] | null) => { expect(files).toHaveLength(2); done.push(i); });
    return { done: done.sort(), most };
  }

  it('is taken a table a worker at once, each table once; a thread keeping a worker for requests (builders) takes fewer at once', async () => {
    expect(ctx.workers).toBe(2);
    expect(await take(undefined)).toEqual({ done: [0, 1, 2], most: 2 });
    expect(await take(1)).toEqual({ done: [0, 1, 2], most: 1 });
  }, 120_000);
});

// Last: a drain cannot be undone in this process.
describe('a build when the server drains', () => {
  it('stops the job under way and leaves no temp file behind', async () => {
    const dir = mkdtempSync(path.join(tmp, 'drain-'));
    const year = Math.max(...(ctx.catalog.years as number[]));
    const build = buildTable(service, dir, year, 'spending');
    // Once the job has begun writing its temp files.
    for (let t = 0; t < 200 && readdirSync(dir).length === 0; t++) await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(dir).some((f) => f.endsWith('.tmp'))).toBe(true);
    await drain(0);
    await expect(build).rejects.toBeInstanceOf(BuildStopped);
    expect(readdirSync(dir)).toEqual([]);
    // The next table is not started at all.
    await expect(buildTable(service, dir, year, 'revenue')).rejects.toBeInstanceOf(BuildStopped);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);
});
