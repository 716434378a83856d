// The CSV page of a flat money query, written where its rows are computed.
// Formatting 50,000 rows is most of a bulk pull's work: here it runs on the
// pool, beside the aggregation, and the page's bytes go into a slot of
// shared memory leased for it that the main thread streams from
// (src/server/page-arena.ts); a page too large for its slot, or one whose
// lease was given up meanwhile, comes back in a buffer moved across.

import { moneyTable, type MoneyRoute } from '../../src/finance/money-table.js';
import type { MoneyPlan } from '../../src/finance/plan.js';
import type { TableCtx } from '../../src/finance/table-ctx.js';
import { csvBytes } from '../../src/server/csv.js';
import { claimSlot, unclaimSlot, type PageLease, type PageSlots } from '../../src/server/page-arena.js';
import type { FinanceView } from './corpus.js';
import { money } from './money.js';

export interface MoneyCsvArgs {
  plan: MoneyPlan;
  route: MoneyRoute;
  /** moneyTable's parameters (tableParams). */
  params: Record<string, unknown>;
  /** The page slot leased for this page. */
  lease: PageLease;
}

export interface MoneyCsvResult {
  /** The plan's row count (only up to the page's end when plan.stopAtPage). */
  total: number;
  /** The page's bytes: the first `length` of the leased slot when inSlot, else csv. */
  inSlot: boolean;
  length: number;
  csv: Uint8Array | null;
}

/** writer: this thread's id (> 0), marking the slot as being written by it. */
export function moneyCsv(c: FinanceView, t: TableCtx, pages: PageSlots, writer: number, a: MoneyCsvArgs): MoneyCsvResult {
  const res = money(c, t.engine, a.plan);
  const table = moneyTable(t, a.route, a.params, res);
  // Claimed only now, for the writing alone: a lease the main thread gave up meanwhile is not touched.
  const into = claimSlot(pages, a.lease, writer);
  let csv: Uint8Array;
  try {
    // Without the slot, a fresh buffer sized for money rows without per-capita columns (85-110 bytes).
    csv = csvBytes(table, into ?? 4096 + 120 * table.n);
  } finally {
    if (into !== null) unclaimSlot(pages, a.lease, writer);
  }
  // A page too large for the slot grew out of it into a buffer of its own.
  const inSlot = into !== null && csv.buffer === into.buffer;
  return { total: res.total, inSlot, length: csv.length, csv: inSlot ? null : csv };
}
