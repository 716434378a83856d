// Example governments for /examples and the docs, picked from the live corpus.

import type { FinanceCtx } from './context.js';

/** The most populous government of a type with rows in the latest loaded year. */
export function exampleGov(ctx: FinanceCtx, type: number): string | undefined {
  const latest = ctx.catalog.maxYear;
  const gid = ctx.catalog.governments.findIndex((g, i) => g.type === type && ctx.govYears[i]!.includes(latest));
  return gid < 0 ? undefined : ctx.catalog.governments[gid]!.canonical_govid;
}
