// What the finance jobs take and return: the values that cross between a
// thread serving requests and a worker (workers/finance/*.ts). Only plain
// data and typed arrays; nothing here knows of HTTP or parameters.

import type { PageLease } from '../bytes/page-arena.js';
import type { PageCodingSpec } from '../bytes/page-coder.js';
import type { PageFormat } from '../formats/registry.js';
import type { MoneyRoute, MoneyTableOptions } from './money-table.js';
import type { MoneyCount, MoneyPlan, MoneyResult, PackedMoneyRows } from './plan.js';

/** A money result as it crosses threads: its rows in one buffer (plan.ts rowsOf makes the views again). */
export type PackedMoneyResult = Omit<MoneyResult, 'rows'> & { rows: PackedMoneyRows };

export interface GovernmentYearsArgs { gid: number }
export interface GovernmentYearsResult {
  years: Uint16Array;
  rows: Uint32Array;
  aggregateRows: Uint32Array;
  population: Int32Array;
  popYear: Uint16Array;
}

export interface CodeYearsArgs { nCodes: number }
export interface CodeYearsResult {
  min: Uint16Array;
  max: Uint16Array;
}

export interface PeersArgs {
  target: number;
  year: number;
  n: number;
  /** Population windows, narrowest first, as [lo, hi] multiples of the target's: the first holding n peers is used. */
  windows: (readonly [number, number])[];
}
export interface PeersResult {
  targetPopulation: number;
  gids: Uint32Array;
  population: Int32Array;
  /** The index in windows of the window the peers were taken from (the widest when none holds n). */
  window: number;
}

/** The formats a page job writes (the registry's page formats). */
export type { PageFormat };

export interface MoneyPageArgs {
  plan: MoneyPlan;
  route: MoneyRoute;
  /** What the page's columns show (money-table.ts tableOptions). */
  table: MoneyTableOptions;
  /** The page slot leased for this page. */
  lease: PageLease;
  format: PageFormat;
  /** Key-value metadata of an Arrow or Parquet page (its provenance); ignored for CSV. */
  metadata: [string, string][];
  /** The content coding the page is written in (coded by the worker as it writes it), or none: its plain bytes. */
  coding?: PageCodingSpec;
}
export interface MoneyPageResult {
  /** The plan's row count (only up to the page's end when plan.stopAtPage). */
  total: number;
  /** The query's count and coverage when the job walked it whole (not plan.stopAtPage), else null. */
  count: MoneyCount | null;
  /**
   * The page's bytes (in its coding): the first `length` of the leased slot when inSlot, else all of them in
   * bytes (a page that outgrew its slot, whose first bytes the slot holds too, as they were published).
   */
  inSlot: boolean;
  length: number;
  bytes: Uint8Array | null;
  /** The lease was given up before the page was written whole: there is no page (nobody is left to read it). */
  cut: boolean;
}
