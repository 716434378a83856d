// The page of a flat money query, written where its rows are computed: CSV,
// an Arrow IPC stream or a Parquet file (issue 19). Formatting 50,000 rows is
// most of a bulk pull's work: here it runs on the pool, beside the
// aggregation, and the page's bytes go into a slot of shared memory leased
// for it that the thread serving the request streams from
// (src/bytes/page-arena.ts); a page too large for its slot, or one whose
// lease was given up meanwhile, comes back in a buffer moved across.

import { claimSlot, unclaimSlot, type PageSlots } from '../../src/bytes/page-arena.js';
import type { MoneyPageArgs, MoneyPageResult } from '../../src/finance/job-io.js';
import { pageFormat } from '../../src/formats/registry.js';
import { moneyTable } from '../../src/finance/money-table.js';
import { countOfSummary } from '../../src/finance/plan.js';
import type { TableCtx } from '../../src/finance/table-ctx.js';
import type { FinanceView } from './corpus.js';
import { money } from './money.js';

/** writer: this thread's id (> 0), marking the slot as being written by it. */
export function moneyPage(c: FinanceView, t: TableCtx, pages: PageSlots, writer: number, a: MoneyPageArgs): MoneyPageResult {
  const res = money(c, t.engine, a.plan);
  const table = moneyTable(t, a.route, a.table, res);
  const f = pageFormat(a.format);
  // A page its library builds whole (Arrow, Parquet) is built first, then copied into the slot when it fits (a memcpy of 1-3 MB).
  const built = f.inPlace ? null : f.write(table, a.metadata, 0);
  // Claimed only now, for the writing alone: a lease the thread serving the request gave up meanwhile is not touched.
  const into = claimSlot(pages, a.lease, writer);
  let bytes: Uint8Array;
  try {
    if (built === null) {
      // Without the slot, a fresh buffer sized for money rows without per-capita columns (85-110 bytes).
      bytes = f.write(table, a.metadata, into ?? 4096 + 120 * table.n);
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
