// The serving thread's side of a page streamed as its worker writes it
// (issue 32): each pull sends what the worker has published in the page's
// slot since the last (page-arena.ts, the slot's written word), waits with
// Atomics.waitAsync when it has caught up, and ends with the job's result,
// which says where the page's end is. A page that outgrew its slot comes
// back whole in the result: what the slot had published went already, the
// rest is sent from there. A job that fails once bytes have gone makes the
// pull throw, so the connection is cut (uws-outgoing.ts Pump.fail) and the
// body never looks complete.

import type { PageArena, PageLease } from '../bytes/page-arena.js';
import type { MoneyPageResult } from './job-io.js';

/** Bytes a pull sends at most: the socket takes one, then says when it can take more. */
const CHUNK = 64 * 1024;

export function slotStream(arena: PageArena, lease: PageLease, job: Promise<MoneyPageResult>): () => Uint8Array | null | Promise<Uint8Array | null> {
  let sent = 0;
  let result: MoneyPageResult | undefined;
  let failure: { err: unknown } | undefined;
  const settled = job.then((r) => { result = r; }, (err: unknown) => { failure = { err }; });
  const chunk = (from: Uint8Array, end: number): Uint8Array => {
    const c = from.subarray(sent, Math.min(end, sent + CHUNK));
    sent += c.byteLength;
    return c;
  };
  const next = (): Uint8Array | null | Promise<Uint8Array | null> => {
    if (result !== undefined) {
      if (result.cut) throw new Error('the page job stopped before its page was whole');
      if (sent >= result.length) return null;
      return chunk(result.inSlot ? arena.view(lease.slot, result.length) : result.bytes!, result.length);
    }
    if (failure !== undefined) throw failure.err;
    const written = arena.written(lease);
    if (written > sent) return chunk(arena.view(lease.slot, written), written);
    // Caught up with the writer: on when it publishes more, or when the job ends (its result, or its failure).
    return Promise.race([arena.moreWritten(lease, sent), settled]).then(next);
  };
  return next;
}
