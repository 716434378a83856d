// The page of a flat money query, written where its rows are computed: CSV,
// an Arrow IPC stream or a Parquet file (issue 19). Formatting 50,000 rows is
// most of a bulk pull's work: here it runs on the pool, beside the
// aggregation, and the page's bytes go into a slot of shared memory leased
// for it that the thread serving the request streams from
// (src/bytes/page-arena.ts). A CSV page is written a piece at a time and each
// piece published as it is written, so the stream sends the page's first
// rows while the worker writes the rest (issue 32); in a coding (gzip, br)
// it is coded here as it is written (src/bytes/slot-writer.ts). Arrow and
// Parquet are built whole by their libraries, then put in the slot. A page
// too large for its slot comes back whole in a buffer moved across; one
// whose lease was given up (its client left) is not written, or stops.

import { claimSlot, unclaimSlot, type PageSlots } from '../../src/bytes/page-arena.js';
import { csvPieces } from '../../src/bytes/csv-writer.js';
import { SlotWriter } from '../../src/bytes/slot-writer.js';
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
  // A page its library builds whole (Arrow, Parquet) is built first, then put into the slot (a memcpy of 1-3 MB, or coded).
  const built = a.format === 'csv' ? null : f.write(table, a.metadata, 0);
  const count = a.plan.stopAtPage ? null : countOfSummary(t.engine, a.plan.years, res.total, res.summary);
  // Claimed only now, for the writing alone: a lease the thread serving the request gave up meanwhile is not touched, nor the page written.
  const into = claimSlot(pages, a.lease, writer);
  if (into === null) return { total: res.total, count, inSlot: false, length: 0, bytes: null, cut: true };
  const out = new SlotWriter(pages, a.lease, into, a.coding);
  let page;
  try {
    if (built !== null) out.whole(built);
    else {
      const write = csvPieces(table);
      // A piece, then its publication; stopped early when the lease is given up (end() then says cut).
      for (let ended = false; !ended;) {
        ended = write(out.w, out.until);
        if (!out.piece()) break;
      }
    }
    page = out.end();
  } finally {
    out.close();
    unclaimSlot(pages, a.lease, writer);
  }
  return { total: res.total, count, ...page, bytes: page.bytes === null ? null : ownBuffer(page.bytes) };
}

/** A view that is all of its buffer, so moving the buffer moves nothing else (parquet-wasm's bytes are a copy out of wasm memory already). */
const ownBuffer = (b: Uint8Array): Uint8Array => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());
