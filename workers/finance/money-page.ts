// The page of a flat money query, written where its rows are computed: CSV,
// an Arrow IPC stream or a Parquet file (issue 19). Formatting 50,000 rows is
// most of a bulk pull's work: here it runs on the pool, beside the
// aggregation, and the page's bytes go into a slot of shared memory leased
// for it that the thread serving the request streams from
// (src/bytes/page-arena.ts); a page too large for its slot, or one whose
// lease was given up meanwhile, comes back in a buffer moved across.

import { arrowBytes } from '../../src/bytes/arrow-writer.js';
import { csvBytes } from '../../src/bytes/csv-writer.js';
import { claimSlot, unclaimSlot, type PageSlots } from '../../src/bytes/page-arena.js';
import { parquetBytes } from '../../src/bytes/parquet-writer.js';
import type { ColumnTable } from '../../src/bytes/column-table.js';
import type { MoneyPageArgs, MoneyPageResult } from '../../src/finance/job-io.js';
import { moneyTable } from '../../src/finance/money-table.js';
import { countOfSummary } from '../../src/finance/plan.js';
import type { TableCtx } from '../../src/finance/table-ctx.js';
import type { FinanceView } from './corpus.js';
import { money } from './money.js';

/** A binary page, built whole by its library, then copied into the slot when it fits (a memcpy of 1-3 MB). */
function binaryPage(table: ColumnTable, a: MoneyPageArgs): Uint8Array {
  return a.format === 'arrow' ? arrowBytes(table, a.metadata) : parquetBytes(table, a.metadata);
}

/** writer: this thread's id (> 0), marking the slot as being written by it. */
export function moneyPage(c: FinanceView, t: TableCtx, pages: PageSlots, writer: number, a: MoneyPageArgs): MoneyPageResult {
  const res = money(c, t.engine, a.plan);
  const table = moneyTable(t, a.route, a.table, res);
  const built = a.format === 'csv' ? null : binaryPage(table, a);
  // Claimed only now, for the writing alone: a lease the thread serving the request gave up meanwhile is not touched.
  const into = claimSlot(pages, a.lease, writer);
  let bytes: Uint8Array;
  try {
    if (built === null) {
      // Without the slot, a fresh buffer sized for money rows without per-capita columns (85-110 bytes).
      bytes = csvBytes(table, into ?? 4096 + 120 * table.n);
    } else if (into !== null && built.byteLength <= into.byteLength) {
      into.set(built);
      bytes = into.subarray(0, built.byteLength);
    } else bytes = built;
  } finally {
    if (into !== null) unclaimSlot(pages, a.lease, writer);
  }
  // A page too large for the slot grew out of it into a buffer of its own.
  const inSlot = into !== null && bytes.buffer === into.buffer;
  const count = a.plan.stopAtPage ? null : countOfSummary(t.engine, a.plan.years, res.total, res.summary);
  return { total: res.total, count, inSlot, length: bytes.length, bytes: inSlot ? null : ownBuffer(bytes) };
}

/** A view that is all of its buffer, so moving the buffer moves nothing else (parquet-wasm's bytes are a copy out of wasm memory already). */
const ownBuffer = (b: Uint8Array): Uint8Array => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());
