// Example governments for /examples and the docs, picked from the live corpus.

import type { FinanceCtx } from '../context.js';

/** The nth most populous government of a type (0 = the largest) with rows in the latest loaded year. */
export function exampleGov(ctx: FinanceCtx, type: number, nth = 0): string | undefined {
  const latest = ctx.catalog.maxYear;
  let seen = 0;
  const gid = ctx.catalog.governments.findIndex((g, i) => g.type === type && ctx.govYears[i]!.includes(latest) && seen++ === nth);
  return gid < 0 ? undefined : ctx.catalog.governments[gid]!.canonical_govid;
}
