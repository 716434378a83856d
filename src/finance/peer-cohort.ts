// A government's peers (issue 30: the domain half of /peers and /peer-comparison): the cohort year under the
// coverage mode, the governments of its type closest in population within the narrowest window that holds
// enough of them (the reference rule's 0.7-1.3 first), and the SQL that says the same for provenance. What
// stops it is a PeerRefusal (src/domain-errors.ts), which the HTTP layer answers as the catalog's 400.

import type { FinanceCtx } from './context.js';
import { censusWindowText, isCensusYear } from './coverage.js';
import { lit } from './sql.js';
import { PeerRefusal } from '../domain-errors.js';

export const POP_RANGE = [0.7, 1.3] as const;
/** The windows tried in turn, narrowest (the reference rule's) first; the last takes every population. */
export const POP_WINDOWS: readonly (readonly [number, number])[] = [POP_RANGE, [0.5, 2], [1 / 3, 3], [0.2, 5], [0.1, 10], [0, Infinity]];

export interface Cohort {
  year: number;
  targetPopulation: number;
  gids: number[];
  population: number[];
  /** The population window the peers were found in (POP_WINDOWS), and its step (0: the reference rule's). */
  window: readonly [number, number];
  step: number;
}

/** The cohort year under the coverage mode, then the peers in it. */
export async function peerCohort(ctx: FinanceCtx, gid: number, year: number | undefined, coverage: string, n: number, signal: AbortSignal): Promise<Cohort> {
  const g = ctx.catalog.governments[gid]!;
  let y = year;
  if (y !== undefined && coverage === 'census' && !isCensusYear(y)) {
    throw new PeerRefusal(['censusYear', { year: y, window: censusWindowText(ctx.catalog) }]);
  }
  if (y === undefined) {
    const hist = await ctx.pool.run('governmentYears', { gid }, signal);
    const withPop = Array.from(hist.years).filter((_, k) => hist.population[k]! > 0 && (coverage !== 'census' || isCensusYear(hist.years[k]!)));
    if (withPop.length === 0) {
      throw coverage === 'census'
        ? new PeerRefusal(['censusNoPopulation', { govid: g.canonical_govid, window: censusWindowText(ctx.catalog) }])
        : new PeerRefusal(['noPopulation', { govid: g.canonical_govid }]);
    }
    y = withPop[withPop.length - 1]!;
  }
  const r = await ctx.pool.run('peers', { target: gid, year: y, n, windows: [...POP_WINDOWS] }, signal);
  if (r.targetPopulation <= 0) {
    throw new PeerRefusal(['noPopulationIn', { govid: g.canonical_govid, year: y, years: ctx.govYears[gid]!.join(', ') || 'none loaded' }]);
  }
  return { year: y, targetPopulation: r.targetPopulation, gids: Array.from(r.gids), population: Array.from(r.population), window: POP_WINDOWS[r.window]!, step: r.window };
}

export function peersSql(ctx: FinanceCtx, gid: number, c: Cohort, n: number): string {
  const g = ctx.catalog.governments[gid]!;
  const files = ctx.longFilesSql;
  return (
    `WITH p AS (SELECT canonical_govid, max(population) AS population FROM read_parquet(${files}, hive_partitioning = false) ` +
    `WHERE year = ${c.year} AND type = ${g.type} AND population > 0 GROUP BY canonical_govid) ` +
    `SELECT canonical_govid, population FROM p WHERE canonical_govid <> ${lit(g.canonical_govid)} ` +
    (Number.isFinite(c.window[1]) ? `AND population BETWEEN ${c.targetPopulation * c.window[0]} AND ${c.targetPopulation * c.window[1]} ` : '') +
    `ORDER BY abs(ln(population / ${c.targetPopulation})), canonical_govid LIMIT ${n}`
  );
}
