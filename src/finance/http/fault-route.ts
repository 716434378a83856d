// The worker-fault test hook: GET /__faults__/worker?kind=throw|exit|hang
// sends a job that throws, kills its worker thread, or blocks it, so a test
// can watch the 500 envelope, the pool replace the worker, and a cancelled
// job end; GET /__faults__/streams says what the stream pumps wrote, so a
// test can watch a pump stop while its client does not read; GET
// /__faults__/pages says what the page writers hold (coders open, slots being
// written) and, with hold=true, keeps every writer between its pieces until
// hold=false, and with fail=true makes them throw at their next piece, so a
// test can watch a page stream before its page is whole, a client leave while
// its page is being written, and a page fail after its first bytes went. Registered only when
// CIVICSTREAM_FAULTS=1; start-up refuses that combination with NODE_ENV=production.

import { boolParam, enumParam } from '../../server/params.js';
import { defineRoute, envelopeReply, type RouteSpec } from '../../server/route-spec.js';
import { ok } from '../../server/envelope.js';
import { openStreams, streamBytesWritten } from '../../server/lifecycle.js';
import type { FinanceCtx } from '../context.js';

export const faultRoute: RouteSpec<FinanceCtx> = defineRoute<FinanceCtx>()({
  id: 'test_fault', path: '/__faults__/worker', tags: ['test-only'], produces: 'envelope',
  summary: 'Test-only: inject a worker fault', description: 'Present only when CIVICSTREAM_FAULTS=1 (never in production).',
  query: {
    kind: enumParam({ description: 'throw: the job throws; exit: the worker thread exits mid-task; hang: the job blocks its worker for 10 s (for cancellation tests).', values: ['throw', 'exit', 'hang'] as const, default: 'throw' }),
    batched: boolParam({ description: 'Send the job the way small jobs go: batched with the others of its event-loop turn.', default: false }),
  },
  handle: async (req) => {
    const args = { kind: req.params.kind };
    await (req.params.batched ? req.ctx.pool.runSmall('fault', args, req.signal) : req.ctx.pool.run('fault', args, req.signal));
    throw new Error('unreachable: the fault job never returns');
  },
});

export const streamsRoute: RouteSpec<FinanceCtx> = defineRoute<FinanceCtx>()({
  id: 'test_streams', path: '/__faults__/streams', tags: ['test-only'], produces: 'envelope', query: {},
  summary: 'Test-only: what the stream pumps wrote', description: 'Present only when CIVICSTREAM_FAULTS=1 (never in production). This thread\'s open streams, and the body bytes its pumps handed to the socket layer since start.',
  handle: () => envelopeReply(ok([{ open_streams: openStreams(), stream_bytes_written: streamBytesWritten() }], { total: 1 })),
});

export const pagesRoute: RouteSpec<FinanceCtx> = defineRoute<FinanceCtx>()({
  id: 'test_pages', path: '/__faults__/pages', tags: ['test-only'], produces: 'envelope',
  summary: 'Test-only: the page writers', description: 'Present only when CIVICSTREAM_FAULTS=1 (never in production). This thread\'s page slots: the coders its workers hold open, the pages whose writers stopped when their lease was given up, the slots being written and free; hold=true keeps every page writer between its pieces until hold=false; fail=true makes them throw at their next piece until fail=false.',
  query: {
    hold: boolParam({ description: 'Set (true) or lift (false) the hold on page writers; absent: leave it.' }),
    fail: boolParam({ description: 'Set (true) or lift (false) the fault of page writers; absent: leave it.' }),
  },
  handle: (req) => {
    const pages = req.ctx.pages;
    if (req.params.hold !== undefined) pages.hold(req.params.hold);
    if (req.params.fail !== undefined) pages.failWriters(req.params.fail);
    return envelopeReply(ok([{ coders_open: pages.openCoders, pages_cut: pages.pagesCut, slots_writing: pages.slotsWriting, slots_free: pages.available, slots_total: pages.total }], { total: 1 }));
  },
});

/** The routes to serve: the table, plus the test hooks when the configuration asks for them. */
export const withFaultHook = (routes: RouteSpec<FinanceCtx>[], enabled: boolean): RouteSpec<FinanceCtx>[] => (enabled ? [...routes, faultRoute, streamsRoute, pagesRoute] : routes);
