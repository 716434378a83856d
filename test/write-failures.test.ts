// Files written in pieces that fail partway must fail, never end short and
// look whole. parquet-wasm's streamed writer skips a batch whose pull failed
// and closes its file as if whole (src/bytes/parquet-writer.ts
// writeParquetStream keeps the failure and throws it).
//
// The export's Parquet pages (civicstream export --format parquet): a page
// that fails after others rejects the write with its cause.
//
// The bulk table job (workers/finance/bulk-table.ts) when it fails partway,
// run in-process on the fixture with small slices (many a table). Neither
// failure may seal a short file, which would be served as whole (immutable,
// by its sha256) for a year, nor hang the build:
// - a slice after the first fails: parquet-wasm's stream writer skips a
//   failed pull and closes its file as if whole, so the job must throw it;
// - the .csv.gz's disk fails (a link to /dev/full): a stream that has failed
//   refuses writes and sends no 'drain' or 'error' again, so waiting for a
//   drain would hang.
// In both the job rejects with the cause, promptly, and leaves no file.
// The wait for a drain itself (writeDrained) is held to a stream that failed
// before the write, which a table's test cannot time: its slices are written
// without a turn of the loop between them, so the disk's refusal comes at
// the end.

import { createWriteStream, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeDrained } from '../dist/src/bytes/write-drained.js';
import { bulkTableArgs } from '../dist/src/finance/http/bulk-build.js';
import { writeParquetPages } from '../dist/src/finance/http/parquet-pages.js';
import { tableCtxOf, tableNames } from '../dist/src/finance/table-ctx.js';
import { attachFinance } from '../dist/workers/finance/corpus.js';
import { bulkTable } from '../dist/workers/finance/bulk-table.js';
import { query } from './helpers/duckdb.js';
import { useFixtureService } from './helpers/fixture-ctx.js';

/** The money job's calls, and the call that throws (0: none). */
const injected = vi.hoisted(() => ({ calls: 0, failAt: 0 }));
vi.mock('../dist/workers/finance/money.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../dist/workers/finance/money.js')>();
  return {
    ...m,
    money: (...args: Parameters<typeof m.money>) => {
      injected.calls++;
      if (injected.calls === injected.failAt) throw new Error('injected: this slice failed');
      return m.money(...args);
    },
  };
});

const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-bulk-failures-'));
const fixture = useFixtureService(1);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const ctx = (): any => fixture.ctx(), service = (): any => fixture.service();
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Spending 2020 as the build writes it, in slices of about 2,000 rows, into dir. */
function run(dir: string, csvGz = path.join(dir, 't.csv.gz')): Promise<{ rows: number; slices: number }> {
  const a = { ...bulkTableArgs(service(), 2020, 'spending', { csvGz, parquet: path.join(dir, 't.parquet') }), sliceRows: 2_000 };
  return bulkTable(attachFinance(ctx().columns), tableCtxOf(ctx().engine, tableNames(ctx().catalog)), a);
}

/** The promise's outcome, or 'hung' after ms. */
const within = <T>(p: Promise<T>, ms: number): Promise<T | 'hung'> =>
  Promise.race([p, new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms).unref())]);

describe('a write that waits for the stream (writeDrained: the export\'s CSV, the bulk build\'s .csv.gz)', () => {
  /** A stream taking one chunk at a time, each after ms, failing on the chunk numbered failAt (1-based; 0: never). */
  const slow = (ms: number, failAt = 0): Writable & { got: number } => {
    let n = 0;
    const w = new Writable({
      highWaterMark: 1,
      write(_chunk, _enc, cb) {
        n++;
        setTimeout(() => (n === failAt ? cb(new Error(`chunk ${n} failed`)) : (w.got++, cb())), ms);
      },
    }) as Writable & { got: number };
    w.got = 0;
    return w;
  };

  it('waits for each drain of a slow stream, and every chunk is written', async () => {
    const w = slow(5);
    for (let k = 0; k < 5; k++) await writeDrained(w, 'chunk');
    await new Promise<void>((r) => w.end(r));
    expect(w.got).toBe(5);
  });

  it('rejects with the error when the stream fails while the write waits', async () => {
    const w = slow(5, 2);
    w.on('error', () => {});
    await writeDrained(w, 'one');
    expect(await within(writeDrained(w, 'two').then(() => 'resolved', (e: Error) => e.message), 5_000)).toBe('chunk 2 failed');
  });

  it('rejects at once on a stream that failed before the write (it sends no drain or error again), as a full disk does', async () => {
    const dir = mkdtempSync(path.join(tmp, 'drained-'));
    const link = path.join(dir, 'full');
    symlinkSync('/dev/full', link);
    const s = createWriteStream(link);
    s.on('error', () => {});
    // The first write is taken; the disk's refusal comes a turn later and destroys the stream.
    await writeDrained(s, Buffer.alloc(1000));
    await finished(s).catch(() => {});
    expect(s.destroyed).toBe(true);
    expect(await within(writeDrained(s, Buffer.alloc(1000)).then(() => 'resolved', (e: NodeJS.ErrnoException) => e.code ?? e.message), 5_000)).toBe('ENOSPC');
  });

  it('rejects when the stream is destroyed while the write waits (closed with no drain and no error)', async () => {
    const w = slow(200);
    await writeDrained(w, 'one');
    const waiting = writeDrained(w, 'two').then(() => 'resolved', (e: Error) => e.message);
    setTimeout(() => w.destroy(), 20);
    expect(await within(waiting, 5_000)).toBe('the file stream closed while a write waited');
    expect([w.listenerCount('drain'), w.listenerCount('close')]).toEqual([0, 0]);
  });
});

describe('the export\'s Parquet pages', () => {
  const fields = [{ name: 'year', type: 'integer', description: '' }, { name: 'state', type: 'string', description: '' }];
  const page = (k: number): string => `year,state\n${Array.from({ length: 100 }, (_, i) => `${2000 + ((k + i) % 20)},S${i}`).join('\n')}\n`;

  it('writes every page when none fails (DuckDB counts the rows)', async () => {
    let k = 0;
    const out = path.join(tmp, 'export-whole.parquet');
    const rows = await writeParquetPages(async () => (k < 3 ? page(k++) : null), fields as never, out);
    expect(rows).toBe(300);
    expect(await query(`SELECT count(*)::INTEGER AS n FROM read_parquet('${out}')`)).toEqual([{ n: 300 }]);
  });

  it('rejects with the cause when a page fails after others (it resolved with the rows before it, the file short)', async () => {
    let k = 0;
    const next = async (): Promise<string | null> => {
      if (k === 2) throw new Error('injected: the third page failed');
      return page(k++);
    };
    const outcome = await writeParquetPages(next, fields as never, path.join(tmp, 'export-short.parquet')).then((n) => `resolved with ${n} rows`, (e: Error) => e.message);
    expect(outcome).toBe('injected: the third page failed');
  });

  it('rejects with the cause when the first page fails (not the writer\'s own "Dyn casting error"), and names an empty table', async () => {
    const failing = async (): Promise<string | null> => { throw new Error('injected: the first page failed'); };
    expect(await writeParquetPages(failing, fields as never, path.join(tmp, 'export-first.parquet')).then(() => 'resolved', (e: Error) => e.message)).toBe('injected: the first page failed');
    expect(await writeParquetPages(async () => null, fields as never, path.join(tmp, 'export-empty.parquet')).then(() => 'resolved', (e: Error) => e.message)).toMatch(/^no rows to write/);
  });

  it('rejects when the writer drops a page it cannot write (another schema), which it closes the file without', async () => {
    let k = 0;
    // The second page's columns come in the other order: its batch's schema differs from the first's.
    const swapped = (n: number): string => `state,year\n${Array.from({ length: 100 }, (_, i) => `S${i},${2000 + ((n + i) % 20)}`).join('\n')}\n`;
    const next = async (): Promise<string | null> => (k < 3 ? (k++ === 1 ? swapped(k) : page(k)) : null);
    const out = path.join(tmp, 'export-dropped.parquet');
    const outcome = await writeParquetPages(next, fields as never, out).then((n) => `resolved with ${n} rows`, (e: Error) => e.message);
    expect(outcome).toMatch(/^the Parquet file holds (\d+) of the 300 rows written to it$/);
    // What the file held: DuckDB's count, the figure the message gives.
    const [{ n }] = await query(`SELECT count(*)::INTEGER AS n FROM read_parquet('${out}')`) as [{ n: number }];
    expect(n).toBeLessThan(300);
    expect(outcome).toContain(`holds ${n} of`);
  });
});

describe('a bulk table that fails partway', () => {
  it('writes the table whole when nothing fails, in many slices (what the cases below cut short)', async () => {
    const dir = mkdtempSync(path.join(tmp, 'whole-'));
    injected.calls = 0;
    injected.failAt = 0;
    const r = await run(dir);
    expect(r.slices).toBeGreaterThan(10);
    expect(injected.calls).toBe(r.slices);
    expect(r.rows).toBeGreaterThan(50_000);
    expect(readdirSync(dir).sort()).toEqual(['t.csv.gz', 't.parquet']);
  }, 60_000);

  it.each([1, 5])('rejects with the cause when slice %i fails, and leaves no file', async (failAt) => {
    const dir = mkdtempSync(path.join(tmp, 'slice-'));
    injected.calls = 0;
    injected.failAt = failAt;
    const outcome = await within(run(dir).then(() => 'resolved', (e: Error) => e.message), 30_000);
    expect(outcome).toBe('injected: this slice failed');
    expect(injected.calls).toBe(failAt);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('rejects promptly when the .csv.gz\'s disk is full, and leaves no file (the link, not /dev/full, removed)', async () => {
    const dir = mkdtempSync(path.join(tmp, 'full-'));
    const link = path.join(dir, 't.csv.gz');
    symlinkSync('/dev/full', link);
    injected.calls = 0;
    injected.failAt = 0;
    const outcome = await within(run(dir, link).then(() => 'resolved', (e: NodeJS.ErrnoException) => e.code ?? e.message), 30_000);
    expect(outcome).toBe('ENOSPC');
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync('/dev/full')).toBe(true);
  }, 60_000);
});
