// DuckDB beside our figures in the same run (issue 32): its threads, and the
// wall and CPU time of a statement run in this process (scripts/lib/duckdb.ts,
// one in-memory database over the same parquet). DuckDB runs its statements on
// threads of its own, so its CPU is read from process.cpuUsage(), which counts
// every thread of this process: the scripts time it while nothing else of
// theirs runs (no server job in flight, no load).

import { query } from '../../scripts/lib/duckdb.js';
import { median } from './timing.js';

/** DuckDB's thread setting as it stands (its default is the core count). */
export async function duckThreads(): Promise<number> {
  return Number((await query(`SELECT current_setting('threads') AS t`))[0]!.t);
}

/** Sets DuckDB's threads for the statements that follow; 'default' restores the count it started with. */
export async function setDuckThreads(n: number | 'default'): Promise<void> {
  await query(n === 'default' ? 'RESET threads' : `SET threads = ${n}`);
}

export interface DuckCost {
  /** Median wall milliseconds of one run. */
  wallMs: number;
  /** Mean CPU milliseconds of one run, all of DuckDB's threads. */
  cpuMs: number;
}

/** One unmeasured run of `sql` (DuckDB warm: the parquet's metadata read, the statement planned once), then `runs` timed. */
export async function duckCost(sql: string, runs: number): Promise<DuckCost> {
  await query(sql);
  const wall: number[] = [];
  const c0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await query(sql);
    wall.push(performance.now() - t0);
  }
  const c = process.cpuUsage(c0);
  return { wallMs: median(wall), cpuMs: (c.user + c.system) / 1000 / runs };
}
