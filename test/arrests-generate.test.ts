// The synthetic school mirror's generator: the real layout, deterministic
// whatever the thread count, and the CRDC-style suppression.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { ROOT } from './helpers/server.js';
import { query } from './helpers/duckdb.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
/** The real command, as a user runs it (built by npm test first). */
function generate(o: { out: string; states: string[]; districts: number; seed: number; models: string[] }, workers: number): void {
  execFileSync(process.execPath, [path.join(ROOT, 'dist/scripts/generate-arrests.js'), '--out', o.out, '--states', o.states.join(','), '--districts', String(o.districts), '--seed', String(o.seed), '--models', o.models.join(','), '--workers', String(workers)], { stdio: 'pipe' });
}
const tmp = (): string => { const d = mkdtempSync(path.join(os.tmpdir(), 'civicstream-gen-')); dirs.push(d); return d; };

describe('generate:arrests', () => {
  it('is deterministic: one thread and two write the same bytes', async () => {
    const a = tmp(), b = tmp();
    const opts = { states: ['DE', 'RI'], districts: 6, seed: 7, models: ['unified_m2', 'stratified_m3'] };
    generate({ ...opts, out: a }, 1);
    generate({ ...opts, out: b }, 2);
    const ma = JSON.parse(readFileSync(path.join(a, 'manifest.json'), 'utf8')), mb = JSON.parse(readFileSync(path.join(b, 'manifest.json'), 'utf8'));
    expect(ma.shards.length).toBe(2 * 1 + 2 * 3);
    expect(mb.shards.map((s: any) => s.sha256)).toEqual(ma.shards.map((s: any) => s.sha256));
    expect(mb.districts.sha256).toBe(ma.districts.sha256);
  }, 120_000);

  it('writes the real layout: hive partitions, 500 draws a group, sorted by LEAID, RACE, SEX, draw_id; subgroup ids by family', async () => {
    const a = tmp();
    generate({ out: a, states: ['VT'], districts: 5, seed: 3, models: ['unified_m1', 'stratified_m1'] }, 1);
    const cols = await query(`DESCRIBE SELECT * FROM read_parquet('${a}/parquet/*/*/*/*.parquet', hive_partitioning = true)`);
    expect(cols.map((c) => c.column_name)).toEqual(['LEAID', 'RACE', 'SEX', 'pred', 'draw_id', 'subgroup_id', 'batch_num', 'LEA_STATE', 'YEAR', 'model_id']);
    const groups = await query(`SELECT model_id, LEAID, RACE, SEX, count(*) AS n, min(draw_id) AS lo, max(draw_id) AS hi, any_value(subgroup_id) AS sg FROM read_parquet('${a}/parquet/*/*/*/*.parquet', hive_partitioning = true) GROUP BY ALL`);
    for (const g of groups) {
      expect([g.n, g.lo, g.hi]).toEqual([500, 1, 500]);
      expect(g.sg).toBe(g.model_id === 'unified_m1_mod' ? 'unified_m1_mod' : `${g.RACE}_${g.SEX}`);
      expect(g.LEAID).toMatch(/^50\d{5}$/);
    }
    const rows = await query(`SELECT LEAID, RACE, SEX, draw_id FROM read_parquet('${a}/parquet/model_id=stratified_m1_mod/YEAR=21-22/LEA_STATE=VT/part-0.parquet')`);
    const key = (r: any) => `${r.LEAID}|${r.RACE}|${r.SEX}|${String(r.draw_id).padStart(3, '0')}`;
    expect(rows.map(key)).toEqual([...rows.map(key)].sort());
  }, 120_000);

  it('suppresses observed arrests as the CRDC does: fewer than 10 students, or 1-2 arrests', async () => {
    const e = await query(`SELECT stu_enroll, observed_arrests FROM read_parquet('fixtures/arrests/enrollment.parquet')`);
    expect(e.some((r) => r.observed_arrests === null)).toBe(true);
    for (const r of e) {
      if (r.observed_arrests !== null) {
        expect(r.stu_enroll).toBeGreaterThanOrEqual(10);
        expect([1, 2]).not.toContain(r.observed_arrests);
        expect(r.observed_arrests).toBeLessThanOrEqual(r.stu_enroll);
      }
    }
  });
});
