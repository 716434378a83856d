// The page of a flat money query, written where its rows are computed: CSV,
// an Arrow IPC stream or a Parquet file (issue 19). Formatting 50,000 rows is
// most of a bulk pull's work: here it runs on the pool, beside the
// aggregation, and the page's bytes go into a slot of shared memory leased
// for it that the thread serving the request streams from
// (src/bytes/page-arena.ts). A CSV page is written a piece at a time and each
// piece published as it is written, so the stream sends the page's first
// rows while the worker writes the rest (issue 32); in a coding (gzip, br)
// it is coded here as it is written (src/bytes/slot-writer.ts). A CSV page
// that stops at its end is also summed in steps, each step's rows written
// before the next groups are summed, so its first rows wait for a few
// hundred rows' aggregation, not the page's. Arrow and Parquet are built
// whole by their libraries, then put in the slot. A page too large for its
// slot comes back whole in a buffer moved across; one whose lease was given
// up (its client left) is not written, or stops.

import { claimSlot, unclaimSlot, type PageSlots } from '../../src/bytes/page-arena.js';
import { csvPieces } from '../../src/bytes/csv-writer.js';
import { SlotWriter } from '../../src/bytes/slot-writer.js';
import type { MoneyPageArgs, MoneyPageResult } from '../../src/finance/job-io.js';
import { pageFormat } from '../../src/formats/registry.js';
import { moneyTable } from '../../src/finance/money-table.js';
import { countOfSummary, fastPath } from '../../src/finance/plan.js';
import type { TableCtx } from '../../src/finance/table-ctx.js';
import type { FinanceView } from './corpus.js';
import { money, moneySteps } from './money.js';

/** writer: this thread's id (> 0), marking the slot as being written by it. */
export function moneyPage(c: FinanceView, t: TableCtx, pages: PageSlots, writer: number, a: MoneyPageArgs): MoneyPageResult {
  // (The serving thread asks a page to stop at its end only on the fast path; a plan off it is written whole as before.)
  if (a.format === 'csv' && a.plan.stopAtPage && fastPath(a.plan)) return csvInSteps(c, t, pages, writer, a);
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
    // Stopped early when the lease is given up (end() then says cut).
    if (built !== null) out.whole(built);
    else out.writeAll(csvPieces(table));
    page = out.end();
  } finally {
    out.close();
    unclaimSlot(pages, a.lease, writer);
  }
  return { total: res.total, count, ...page, bytes: page.bytes === null ? null : ownBuffer(page.bytes) };
}

/**
 * A step's page rows: the first few hundred, so the first bytes go out after a few hundred rows' aggregation,
 * then twice as many each step up to the last size, so a 50,000-row page takes about ten steps and as many
 * tables (about 0.1 ms each, against about 25 ms to sum its groups on the fixture).
 */
const FIRST_STEP = 256, LAST_STEP = 16_384;
/** The fast path flags no suppressed Direct leg, so a step's table needs no summary (moneyTable's notes). */
const NO_SUMMARY = { suppressedRecipes: {} };

/**
 * A CSV page that stops at its end, summed and written in steps (moneySteps): each step's rows are made a
 * table and written into the slot, its last piece waking the serving thread, before the next groups are summed.
 * The bytes are those of the page written whole (test/money-page.test.ts). The slot is claimed first: a lease
 * given up before the job starts is not walked at all.
 */
function csvInSteps(c: FinanceView, t: TableCtx, pages: PageSlots, writer: number, a: MoneyPageArgs): MoneyPageResult {
  const into = claimSlot(pages, a.lease, writer);
  if (into === null) return { total: 0, count: null, inSlot: false, length: 0, bytes: null, cut: true };
  const out = new SlotWriter(pages, a.lease, into, a.coding);
  let page, total = 0;
  try {
    // Set up inside the try: a walk that fails to start still hands the claimed slot back (else it stays held until the thread ends).
    const steps = moneySteps(c, t.engine, a.plan);
    // Stopped early when the lease is given up (end() then says cut); a step's last piece wakes the serving thread.
    let header = true, going = true;
    for (let want = FIRST_STEP; going; want = Math.min(2 * want, LAST_STEP)) {
      const rows = steps.next(want);
      if (rows === null) break;
      going = out.writeAll(csvPieces(moneyTable(t, a.route, a.table, { rows, summary: NO_SUMMARY }), header), true);
      header = false;
    }
    page = out.end();
    total = steps.total();
  } finally {
    out.close();
    unclaimSlot(pages, a.lease, writer);
  }
  return { total, count: null, ...page, bytes: page.bytes === null ? null : ownBuffer(page.bytes) };
}

/** A view that is all of its buffer, so moving the buffer moves nothing else (parquet-wasm's bytes are a copy out of wasm memory already). */
const ownBuffer = (b: Uint8Array): Uint8Array => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());
