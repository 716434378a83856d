// A cohort of the registry: the governments of a state, of a type, or both
// (flat /spending and /revenue, /rollups). A scan of the registry the first
// time, a lookup after: the corpus is immutable.

import type { FinanceCtx } from './context.js';

/**
 * The ids of the governments in state `fips` (any when undefined) of type `typeNo` (any when negative), in
 * the order answers list them (the engine's govRank), so a job takes them as they come (workers/finance/money.ts).
 */
export function cohortOf(ctx: FinanceCtx, fips: string | undefined, typeNo: number): number[] {
  const key = `${fips ?? ''}|${typeNo}`;
  let gids = ctx.cohorts.get(key);
  if (gids === undefined) {
    gids = [];
    ctx.catalog.governments.forEach((g, gid) => {
      if ((fips === undefined || g.fips_state === fips) && (typeNo < 0 || g.type === typeNo)) gids!.push(gid);
    });
    const rank = ctx.engine.govRank;
    gids.sort((a, b) => rank[a]! - rank[b]!);
    ctx.cohorts.set(key, gids);
  }
  return gids;
}
