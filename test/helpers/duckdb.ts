export * from '../../bench/lib/duckdb.js';
