// The full-scale finance generator (npm run generate:finance-full), at a small
// size: the real layout, deterministic whatever the thread count, grown from
// the fixture's own tables, and loadable by the server's loader.

import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL_YEARS } from '../dist/src/finance/generate.js';
import { ROOT } from './helpers/server.js';
import { query as duck } from './helpers/duckdb.js';

const FIXTURE = path.join(ROOT, 'fixtures/finance/v6');
const ROWS = 1_000_000;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-gen-'));
const one = path.join(tmp, 'one-worker'), two = path.join(tmp, 'two-workers');

// Run without blocking this process (vitest's worker waits at most 60 s for its loop to answer the runner).
const generate = async (out: string, workers: number): Promise<string> =>
  (await promisify(execFile)(process.execPath, [path.join(ROOT, 'dist/scripts/generate-finance-full.js'), '--out', out, '--rows', String(ROWS), '--seed', '11', '--workers', String(workers)], { encoding: 'utf8', timeout: 240_000 })).stdout;

interface Part { year: number; path: string; sha256: string; row_count: number; size_bytes: number }
const manifest = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { files: { long_partitions: Part[]; metadata: { path: string; sha256: string }[] } };
const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const long = (dir: string, year: number): string => `read_parquet('${path.join(dir, `data/long/year=${year}/part-0.parquet`)}')`;

beforeAll(async () => {
  await generate(one, 1);
  await generate(two, 2);
}, 480_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('generate:finance-full (a 1,000,000-row mirror)', () => {
  it('writes the real layout: a partition for each of the 56 fiscal years with its sha256 and row count, and the fixture\'s metadata tables', async () => {
    const m = manifest(two);
    expect(m.files.long_partitions.map((p) => p.year)).toEqual(FULL_YEARS);
    expect(FULL_YEARS).toHaveLength(56);
    expect([FULL_YEARS[0], FULL_YEARS[55]]).toEqual([1967, 2024]);
    expect(FULL_YEARS).not.toContain(1968);
    expect(FULL_YEARS).not.toContain(1969);
    let rows = 0;
    for (const p of m.files.long_partitions) {
      expect(sha(path.join(two, p.path))).toBe(p.sha256);
      expect(p.row_count).toBeGreaterThan(0);
      expect(Number((await duck(`SELECT count(*) AS n FROM ${long(two, p.year)}`))[0]!.n)).toBe(p.row_count);
      rows += p.row_count;
    }
    // --rows picks the scale whose expected size is N: independent per-code draws land within a percent of it.
    expect(Math.abs(rows / ROWS - 1)).toBeLessThan(0.01);
    const fixture = manifest(FIXTURE);
    expect(m.files.metadata).toEqual(fixture.files.metadata);
    for (const t of m.files.metadata) expect(sha(path.join(two, t.path))).toBe(sha(path.join(FIXTURE, t.path)));
  });

  it('is deterministic: the same seed gives the same bytes with one worker or two', () => {
    expect(manifest(one).files.long_partitions).toEqual(manifest(two).files.long_partitions);
  });

  it('draws each sparse year\'s codes from that year\'s code_set, and writes family totals only in the dense era, as the sum of the family', async () => {
    const codeSet = `read_parquet('${path.join(FIXTURE, 'data/code_set.parquet')}')`;
    // FY2019 (sparse era): every (type, code) reported is in that year's code set for the type.
    const stray = await duck(`SELECT count(*) AS n FROM ${long(two, 2019)} l ANTI JOIN ${codeSet} c ON c.year = 2019 AND c.type = l.type AND c.item_code = l.item_code`);
    expect(Number(stray[0]!.n)).toBe(0);
    const totals = async (year: number) => Number((await duck(`SELECT count(*) AS n FROM ${long(two, year)} WHERE item_code LIKE '_--'`))[0]!.n);
    // Family totals end with the wide files: FY2011 has them, FY2012 none.
    expect(await totals(2011)).toBeGreaterThan(0);
    expect(await totals(2012)).toBe(0);
    // FY1990 (dense era): an X-- family total is the sum of its family's rows, and every total has a family.
    expect(await totals(1990)).toBeGreaterThan(0);
    const families = await duck(`
      WITH l AS (SELECT canonical_govid, item_code, amt, is_aggregate FROM ${long(two, 1990)})
      SELECT t.canonical_govid, t.item_code, any_value(t.amt) AS total, any_value(t.is_aggregate) AS agg, sum(m.amt) AS members
      FROM l t JOIN l m ON m.canonical_govid = t.canonical_govid AND m.item_code NOT LIKE '_--' AND left(m.item_code, 1) = left(t.item_code, 1)
      WHERE t.item_code LIKE '_--'
      GROUP BY ALL`);
    expect(families.length).toBe(await totals(1990));
    for (const f of families) {
      expect(f.agg).toBe(true);
      expect(Number(f.total)).toBe(Math.min(2_000_000_000, Number(f.members)));
    }
  });

  it('refuses a size below what the states alone give (naming that floor), a bad --rows or --scale, and both at once', () => {
    const refused = (args: string[]): { status: number | null; stderr: string } => {
      try {
        execFileSync(process.execPath, [path.join(ROOT, 'dist/scripts/generate-finance-full.js'), '--out', path.join(tmp, 'refused'), ...args], { encoding: 'utf8', stdio: 'pipe' });
        return { status: 0, stderr: '' };
      } catch (e) {
        const x = e as { status: number | null; stderr: string };
        return { status: x.status, stderr: x.stderr };
      }
    };
    const small = refused(['--rows', '100000']);
    expect(small.status).toBe(2);
    expect(small.stderr).toMatch(/--rows 100000: the states alone give about [\d,]+ rows/);
    expect(refused(['--rows', 'many']).stderr).toMatch(/--rows must be a positive number/);
    expect(refused(['--scale', '5']).status).toBe(2);
    expect(refused(['--rows', '1000000', '--scale', '0.1']).stderr).toMatch(/not both/);
    expect(existsSync(path.join(tmp, 'refused'))).toBe(false);
  });

  it('loads as the server loads a mirror (civicstream verify)', () => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'dist/src/cli/main.js'), 'verify', two], { encoding: 'utf8', stdio: 'pipe', timeout: 120_000 });
    const ok = /finance mirror OK: schema_version \d+, 56 partitions \(1967-2024\), ([\d,]+) rows/.exec(out);
    expect(ok).not.toBeNull();
    expect(Number(ok![1]!.replaceAll(',', ''))).toBe(manifest(two).files.long_partitions.reduce((n, p) => n + p.row_count, 0));
  });
});
