// What every finance route handler can reach: the catalog, the shared corpus
// columns, the job runner (the pool, wired in http/service.ts), and lookups built
// once at load.

import type { PageArena } from '../bytes/page-arena.js';
import type { JobRunner } from '../job-runner.js';
import type { Catalog, Flow } from './catalog.js';
import type { FinanceColumns } from './columns.js';
import type { LoadStats } from './corpus-layout.js';
import type { EngineCatalog } from './engine-catalog.js';
import type { TextMemo } from './table-ctx.js';

import type { MoneyCount } from './plan.js';
import type { CountIndex } from './count-index.js';

export interface FinanceCtx {
  catalog: Catalog;
  engine: EngineCatalog;
  columns: FinanceColumns;
  stats: LoadStats;
  /** Where jobs run: the worker pool, and on a front thread that thread too for small jobs (http/service.ts). */
  pool: JobRunner;
  /** Where provenance SQL reads the mirror: MIRROR_URL, or the data directory's absolute path. */
  mirrorUrl: string;
  /** gov_name lowercased, by gid, for literal case-insensitive search. */
  govNameLower: string[];
  /** Years each government has rows in the loaded corpus, by gid. */
  govYears: number[][];
  /** Per recipe index: the flow its classified components belong to, when they agree. */
  recipeFlow: (Flow | undefined)[];
  /** Each balance subtype's measured [first, last] year in the loaded corpus. */
  balanceWindows: Record<string, [number, number]>;
  /** The series_breaks table indexed once: code-level breaks by fin_code, and the corpus-wide (code ALL) ones. */
  breaks: { byCode: Map<string, { id: string; year: number }[]>; corpus: { id: string; year: number }[] };
  /** read_parquet's file argument for the long partitions, for provenance SQL (sql.ts longFilesSql). */
  longFilesSql: string;
  textMemo: TextMemo;
  /** Shared slots the workers write CSV pages into (src/bytes/page-arena.ts). */
  pages: PageArena;

  /** Governments of a state and/or type (key `fips|type`), sorted by gid, built on first use. */
  cohorts: Map<string, number[]>;
  /** Row counts and coverage of bulk queries already answered once (the corpus is immutable), oldest first. */
  counts: Map<string, MoneyCount>;
  /** Bulk queries' counts and coverage kept at load (count-index.ts indexedCount); absent, every count is the count job's. */
  countIndex?: CountIndex | undefined;
  // routes: the service's route table, added by the HTTP layer (http/routes.ts), the domain knowing no routes.
  startedAt: number;
  workers: number;
  /** Threads serving the API (FRONT_THREADS; 1: the main thread). */
  frontThreads: number;
}
