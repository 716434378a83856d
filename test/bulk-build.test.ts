// The bulk files built on the build threads (issue 32) against the build
// they replace: for a year of each table, the thread's .csv.gz (one gzip
// member) decompresses to exactly the bytes of the flat route's CSV pages
// walked by Link (one header line), and its .parquet has the schema, column
// types and rows, in order, that parsing those pages back wrote
// (test/helpers/bulk-reference.ts). Types are read by parquet-wasm into
// Arrow and by DuckDB's parquet_schema; rows by DuckDB, row by row. The
// build threads are seen from outside, in /proc: as many as asked, at nice
// 19 while the build runs, none left after it.

import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32, gunzipSync } from 'node:zlib';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BuildThreads } from '../dist/src/finance/build-threads.js';
import { BuildStopped, buildTable } from '../dist/src/finance/http/bulk-build.js';
import { drain } from '../dist/src/server/lifecycle.js';
import { buildTasks } from '../dist/src/finance/http/bulk-work.js';
import { lowerThisThread } from '../dist/workers/thread-priority.js';
import { referenceBuild } from './helpers/bulk-reference.js';
import { query } from './helpers/duckdb.js';
import { readConfig } from '../dist/src/config.js';
import { financeService, loadFinance } from '../dist/src/finance/http/service.js';
import { useFixtureService } from './helpers/fixture-ctx.js';
import { ROOT } from './helpers/server.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-bulk-build-'));
const fixture = useFixtureService(2);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ctx = (): any => fixture.ctx(), service = (): any => fixture.service();
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

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
  const threads = new BuildThreads(svc.ctx, 1, () => {});
  const files = await buildTable(svc, threads, dir, year, table).finally(() => threads.close());
  const csv = files.find((f: { format: string }) => f.format === 'csv.gz'), pq = files.find((f: { format: string }) => f.format === 'parquet');
  // Only the two sealed files are left: no temp file.
  expect(readdirSync(dir).sort()).toEqual([csv.name, pq.name].sort());

  const refCsv = path.join(tmp, `ref-${label}-${table}-${year}.csv.gz`), refPq = path.join(tmp, `ref-${label}-${table}-${year}.parquet`);
  const ref = await referenceBuild(svc, year, table, refCsv, refPq);
  expect(ref.csvRows).toBeGreaterThan(0);
  expect([csv.rows, pq.rows]).toEqual([ref.csvRows, ref.parquetRows]);

  const gz = readFileSync(path.join(dir, csv.name));
  const got = gunzipSync(gz), want = gunzipSync(readFileSync(refCsv));
  expect(got.length).toBe(want.length);
  expect(got.equals(want)).toBe(true);
  // One gzip member, its trailer over the whole CSV (gunzip would read a file of several members just the same).
  expect([gz.readUInt32LE(gz.length - 8), gz.readUInt32LE(gz.length - 4)]).toEqual([crc32(want), want.length]);

  const file = path.join(dir, pq.name);
  expect(arrowSchema(file)).toEqual(arrowSchema(refPq));
  expect(await parquetSchema(file)).toEqual(await parquetSchema(refPq));
  const [a, b] = [await parquetRows(file), await parquetRows(refPq)];
  expect(a.length).toBe(ref.parquetRows);
  for (let i = 0; i < b.length; i++) if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) expect({ row: i, ...a[i] }).toEqual({ row: i, ...b[i] });
  expect(a).toEqual(b);
}

describe('a year built on a build thread', () => {
  for (const table of ['spending', 'revenue'] as const) {
    for (const which of ['latest', 'earliest'] as const) {
      it(`${table}, ${which} year: the same CSV bytes, and the same Parquet schema, types and rows, as the walk over the CSV pages`, async () => {
        const years: number[] = ctx().catalog.years;
        await compareYear(service(), 'v6', which === 'latest' ? Math.max(...years) : Math.min(...years), table);
      }, 300_000);
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
  }, 300_000);
});

/** The niceness (field 19 of /proc/<pid>/task/<tid>/stat) of each thread of this process now, by thread id. */
function niceness(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    let stat: string;
    try { stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'); } catch { continue; }
    // After the name in parentheses, the fields from the third on: the 19th is the 17th of these.
    out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return out;
}

const atNice19 = (): number[] => [...niceness()].filter(([, n]) => n === 19).map(([tid]) => tid);

/** The threads at nice 19 once none is left, or after 20 s (other test files may share the cores): a thread ended (terminated, or its pool closed) may take a moment to exit. */
async function atNice19Soon(): Promise<number[]> {
  let left = atNice19();
  for (let t = 0; t < 2000 && left.length > 0; t++) { await new Promise((r) => setTimeout(r, 10)); left = atNice19(); }
  return left;
}

describe.runIf(process.platform === 'linux')('the build threads', () => {
  /** Builds three tables on `threads` build threads, watching /proc meanwhile: the threads seen at nice 19, the most at once. */
  async function build(threads: number): Promise<{ done: number[]; run: { threads: number; nice: number[] }; most: number; seen: number; after: number[] }> {
    const dir = mkdtempSync(path.join(tmp, 'threads-'));
    const year = Math.max(...(ctx().catalog.years as number[]));
    const tasks = [{ year, table: 'revenue' }, { year: year - 1, table: 'revenue' }, { year, table: 'spending' }];
    const done: number[] = [];
    const seen = new Set<number>();
    let most = 0, building = true;
    const watch = (async () => {
      while (building) {
        const niced = atNice19();
        for (const tid of niced) seen.add(tid);
        most = Math.max(most, niced.length);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const run = await buildTasks(service(), dir, tasks, { threads }, (i: number, files: unknown[] | null) => { expect(files).toHaveLength(2); done.push(i); });
    building = false;
    await watch;
    // The threads end with the build: none is left at nice 19.
    return { done: done.sort(), run, most, seen: seen.size, after: await atNice19Soon() };
  }

  // Threads at nice 19 get the cores only when other processes leave them: with other test files beside it, this
  // test took 40 s (three files at once) and past 120 s (four), so each test of this file is allowed minutes.
  it('run at nice 19 while the build runs, as many as asked, the serving threads at 0; none is left after it', async () => {
    expect(niceness().get(process.pid)).toBe(0);
    expect(atNice19()).toEqual([]);
    expect(await build(2)).toEqual({ done: [0, 1, 2], run: { threads: 2, nice: [19] }, most: 2, seen: 2, after: [] });
    expect(await build(1)).toEqual({ done: [0, 1, 2], run: { threads: 1, nice: [19] }, most: 1, seen: 1, after: [] });
    // This thread, and the serving pool's workers, kept their priority.
    expect(niceness().get(process.pid)).toBe(0);
  }, 300_000);

  it('a thread that cannot lower its priority says why and goes on at its own (no throw)', () => {
    const refuse = vi.spyOn(os, 'setPriority').mockImplementation(() => { throw new Error('EPERM: operation not permitted'); });
    try {
      expect(lowerThisThread(19)).toEqual({ why: 'EPERM: operation not permitted' });
    } finally {
      refuse.mockRestore();
    }
    expect(niceness().get(process.pid)).toBe(0);
  });
});

// Last: a drain cannot be undone in this process.
describe('a build when the server drains', () => {
  it('stops the table under way and leaves no temp file behind; the next table is not started, the build threads end', async () => {
    const dir = mkdtempSync(path.join(tmp, 'drain-'));
    const year = Math.max(...(ctx().catalog.years as number[]));
    const done: number[] = [];
    const build = buildTasks(service(), dir, [{ year, table: 'spending' }, { year, table: 'revenue' }], { threads: 1 }, (i: number) => done.push(i));
    build.catch(() => {});
    // Once the job has begun writing its temp files (up to 30 s: with other test files beside it, a start can take seconds).
    for (let t = 0; t < 3000 && readdirSync(dir).length === 0; t++) await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(dir).some((f) => f.endsWith('.tmp'))).toBe(true);
    await drain(0);
    await expect(build).rejects.toBeInstanceOf(BuildStopped);
    expect(readdirSync(dir)).toEqual([]);
    expect(done).toEqual([]);
    // The thread whose job was stopped is terminated, not waited for, so it may take a moment to go.
    if (process.platform === 'linux') expect(await atNice19Soon()).toEqual([]);
    // A table asked for after the drain is not started at all.
    const threads = new BuildThreads(ctx(), 1, () => {});
    try {
      await expect(buildTable(service(), threads, dir, year, 'revenue')).rejects.toBeInstanceOf(BuildStopped);
    } finally {
      await threads.close();
    }
    expect(readdirSync(dir)).toEqual([]);
  }, 180_000);
});
