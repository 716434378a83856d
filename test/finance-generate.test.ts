// The full-scale finance generator (npm run generate:finance-full), at a small
// size: the real layout, deterministic whatever the thread count, grown from
// the fixture's own tables, and loadable by the server's loader.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL_YEARS } from '../dist/src/finance/generate.js';
import { ROOT } from './helpers/server.js';
import { query as duck } from './helpers/duckdb.js';

const FIXTURE = path.join(ROOT, 'fixtures/finance/v6');
const ROWS = 1_000_000;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-gen-'));
const one = path.join(tmp, 'one-worker'), two = path.join(tmp, 'two-workers');

const generate = (out: string, workers: number, rows = ROWS): string =>
  execFileSync(process.execPath, [path.join(ROOT, 'dist/scripts/generate-finance-full.js'), '--out', out, '--rows', String(rows), '--seed', '11', '--workers', String(workers)], { encoding: 'utf8', stdio: 'pipe', timeout: 240_000 });

interface Part { year: number; path: string; sha256: string; row_count: number; size_bytes: number }
const manifest = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { files: { long_partitions: Part[]; metadata: { path: string; sha256: string }[] } };
const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');
const long = (dir: string, year: number): string => `read_parquet('${path.join(dir, `data/long/year=${year}/part-0.parquet`)}')`;

beforeAll(() => {
  generate(one, 1);
  generate(two, 2);
}, 480_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('generate:finance-full (a 1,000,000-row mirror)', () => {
  it('writes the real layout: a partition for each of the 56 fiscal years with its sha256 and row count, and the fixture\'s metadata tables', async () => {
    const m = manifest(two);
    expect(m.files.long_partitions.map((p) => p.year)).toEqual(FULL_YEARS);
    expect(FULL_YEARS).toHaveLength(56);
    expect(FULL_YEARS).not.toContain(1968);
    let rows = 0;
    for (const p of m.files.long_partitions) {
      expect(sha(path.join(two, p.path))).toBe(p.sha256);
      rows += p.row_count;
    }
    const counted = Number((await duck(`SELECT count(*) AS n FROM read_parquet('${path.join(two, 'data/long/*/part-0.parquet')}')`))[0]!.n);
    expect(counted).toBe(rows);
    // --rows picks the scale whose expected size is N: the draw lands within a few percent.
    expect(Math.abs(rows / ROWS - 1)).toBeLessThan(0.05);
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
    expect(await totals(2019)).toBe(0);
    // FY1990 (dense era, the wide files): an X-- family total is the sum of its family's rows.
    expect(await totals(1990)).toBeGreaterThan(0);
    const families = await duck(`
      WITH l AS (SELECT canonical_govid, item_code, amt, is_aggregate FROM ${long(two, 1990)})
      SELECT t.canonical_govid, t.item_code, any_value(t.amt) AS total, any_value(t.is_aggregate) AS agg, sum(m.amt) AS members
      FROM l t JOIN l m ON m.canonical_govid = t.canonical_govid AND m.item_code NOT LIKE '_--' AND left(m.item_code, 1) = left(t.item_code, 1)
      WHERE t.item_code LIKE '_--'
      GROUP BY ALL`);
    expect(families.length).toBeGreaterThan(0);
    for (const f of families) {
      expect(f.agg).toBe(true);
      expect(Number(f.total)).toBe(Math.min(2_000_000_000, Number(f.members)));
    }
  });

  it('refuses a size below what the 50 states alone give, naming that floor', () => {
    let err = '';
    try { generate(path.join(tmp, 'too-small'), 1, 100_000); } catch (e) { err = String((e as { stderr?: string }).stderr); }
    expect(err).toMatch(/--rows 100000: the 50 states alone give about [\d,]+ rows/);
  });

  it('loads as the server loads a mirror (civicstream verify)', () => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'dist/src/cli/main.js'), 'verify', two], { encoding: 'utf8', stdio: 'pipe', timeout: 120_000 });
    expect(out).toMatch(/56/);
  });
});
