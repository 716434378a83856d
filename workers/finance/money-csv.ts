// The CSV page of a flat money query, written where its rows are computed.
// Formatting 50,000 rows is most of a bulk pull's work: here it runs on the
// pool, beside the aggregation, and the page's bytes go into a slot of
// shared memory leased for it that the thread serving the request streams
// from (src/bytes/page-arena.ts); a page too large for its slot, or one whose
// lease was given up meanwhile, comes back in a buffer moved across.

import { csvBytes } from '../../src/bytes/csv-writer.js';
import { claimSlot, unclaimSlot, type PageSlots } from '../../src/bytes/page-arena.js';
import type { MoneyCsvArgs, MoneyCsvResult } from '../../src/finance/job-io.js';
import { moneyTable } from '../../src/finance/money-table.js';
import type { TableCtx } from '../../src/finance/table-ctx.js';
import type { FinanceView } from './corpus.js';
import { money } from './money.js';

/** writer: this thread's id (> 0), marking the slot as being written by it. */
export function moneyCsv(c: FinanceView, t: TableCtx, pages: PageSlots, writer: number, a: MoneyCsvArgs): MoneyCsvResult {
  const res = money(c, t.engine, a.plan);
  const table = moneyTable(t, a.route, a.table, res);
  // Claimed only now, for the writing alone: a lease the thread serving the request gave up meanwhile is not touched.
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
