// A bulk query's row count and coverage from counts kept at load, so a never-seen page can send its
// headers (X-Total-Count, X-Units-*) before any row is computed (issue 32). Placeholder: the index is
// being built (helper "count"); until then every plan falls back to the count job (run-money.ts).

import type { FinanceCtx } from './context.js';
import type { MoneyCount, MoneyPlan } from './plan.js';

/** The plan's count from the index, or undefined when the index cannot answer this plan's shape. */
export function indexedCount(_ctx: FinanceCtx, _plan: MoneyPlan): MoneyCount | undefined {
  return undefined;
}
