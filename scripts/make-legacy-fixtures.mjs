#!/usr/bin/env node
// Writes fixtures/finance/v5 and fixtures/finance/v4 from fixtures/finance/v6:
// the same rows with the long-table columns and metadata tables those schema
// versions had (see fixtures/finance/README.md), and manifests with fresh
// sha256 and row counts. Deterministic; run again after changing v6.
//   node scripts/make-legacy-fixtures.mjs

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const src = path.join(root, 'fixtures/finance/v6');
const manifest = JSON.parse(readFileSync(path.join(src, 'manifest.json'), 'utf8'));

const VERSIONS = {
  5: {
    select: 'SELECT * EXCLUDE (cog_legacy_state, cog_legacy_county) RENAME (fips_state_asof AS fips_state_code, fips_county_asof AS fips_county_code)',
    dropTables: ['representation', 'code_set'],
    note: 'schema_version 5: as-of-year geography under fips_state_code/fips_county_code, no cog_legacy_* columns, no representation/code_set tables.',
  },
  4: {
    select: 'SELECT * EXCLUDE (cog_legacy_state, cog_legacy_county, harmonized_code) RENAME (fips_state_asof AS fips_state_code, fips_county_asof AS fips_county_code)',
    dropTables: ['representation', 'code_set', 'harmonization_map', 'harmonization_recipes', 'series_breaks'],
    note: 'schema_version 4: v5 without harmonized_code and without the harmonization tables (harmonization_map, harmonization_recipes, series_breaks).',
  },
};

const sha = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();

for (const [version, spec] of Object.entries(VERSIONS)) {
  const out = path.join(root, `fixtures/finance/v${version}`);
  rmSync(out, { recursive: true, force: true });
  const partitions = [];
  let columns = null;
  for (const p of manifest.files.long_partitions) {
    const from = path.join(src, p.path), to = path.join(out, p.path);
    mkdirSync(path.dirname(to), { recursive: true });
    const q = `${spec.select} FROM read_parquet('${from}', hive_partitioning = false)`;
    await con.run(`COPY (${q}) TO '${to}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)`);
    const n = Number((await con.runAndReadAll(`SELECT count(*) FROM read_parquet('${to}', hive_partitioning = false)`)).getRows()[0][0]);
    if (n !== p.row_count) throw new Error(`${to}: ${n} rows, expected ${p.row_count}`);
    columns ??= (await con.runAndReadAll(`DESCRIBE ${q}`)).getRows().map((r) => r[0]).filter((c) => c !== 'year');
    partitions.push({ year: p.year, path: p.path, sha256: sha(to), row_count: n, size_bytes: statSync(to).size });
  }
  const metadata = [];
  for (const m of manifest.files.metadata) {
    if (spec.dropTables.includes(path.basename(m.path, '.parquet'))) continue;
    const to = path.join(out, m.path);
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(path.join(src, m.path), to);
    metadata.push({ ...m, sha256: sha(to) });
  }
  const next = {
    ...manifest,
    schema_version: Number(version),
    fixture_note: `${spec.note} Derived by scripts/make-legacy-fixtures.mjs from the schema_version 6 fixture (same rows). ${manifest.fixture_note}`,
    schema: { ...manifest.schema, long_column_count: columns.length, long_columns: columns },
    files: { long_partitions: partitions, metadata },
  };
  writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(next, null, 2)}\n`);
  console.log(`v${version}: ${partitions.length} partitions, ${columns.length} long columns, ${metadata.length} metadata tables -> ${path.relative(root, out)}`);
}
