// DuckDB over the fixture parquet, shared with the benches (scripts/lib/duckdb.ts).
export * from '../../dist/scripts/lib/duckdb.js';
