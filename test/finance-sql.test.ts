// The long partitions in provenance SQL: a pattern over the years when the
// mirror keeps the schema's layout, the manifest's paths otherwise; both read
// the same rows.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { longFilesSql } from '../dist/src/finance/sql.js';
import { query } from './helpers/duckdb.js';

const V6 = path.resolve('fixtures/finance/v6');
const parts = [2011, 2019, 2020].map((year) => ({ year, path: `data/long/year=${year}/part-0.parquet` }));

describe('longFilesSql', () => {
  it('spells a regular layout as the years and one path pattern, which DuckDB reads as the listed files', async () => {
    const compact = longFilesSql({ mirrorUrl: `${V6}/` }, parts);
    expect(compact).toBe(`list_transform([2011, 2019, 2020], y -> format('${V6}/data/long/year={}/part-0.parquet', y))`);
    const listed = `[${parts.map((p) => `'${V6}/${p.path}'`).join(', ')}]`;
    const count = (files: string) => query(`SELECT year, count(*) AS n, sum(amt) AS amt FROM read_parquet(${files}, hive_partitioning = false) GROUP BY year ORDER BY year`);
    const a = await count(compact), b = await count(listed);
    expect(a.length).toBe(3);
    expect(a).toEqual(b);
  });

  it('lists the paths when a partition is elsewhere or the mirror address holds braces (format would read them)', () => {
    const odd = [...parts.slice(0, 2), { year: 2020, path: 'data/long/year=2020/part-1.parquet' }];
    expect(longFilesSql({ mirrorUrl: V6 }, odd)).toBe(`[${odd.map((p) => `'${V6}/${p.path}'`).join(', ')}]`);
    expect(longFilesSql({ mirrorUrl: 'https://mirror.example/{v6}' }, parts)).toMatch(/^\['https:\/\/mirror\.example\/\{v6\}\/data\/long\/year=2011\/part-0\.parquet', /);
    expect(longFilesSql({ mirrorUrl: "https://o'brien.example" }, parts)).toContain("format('https://o''brien.example/data/long/year={}/part-0.parquet', y)");
  });
});
