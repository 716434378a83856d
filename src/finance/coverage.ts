// Reporting coverage: the survey calendar (a complete census only in years
// ending in 2 or 7), the coverage modes, and the per-year coverage table.
// Their parameters are declared in http/coverage-params.ts.

import type { Catalog } from './catalog.js';
import { spanCovers, type MoneyCount } from './plan.js';

export const isCensusYear = (y: number): boolean => y % 10 === 2 || y % 10 === 7;

export const COVERAGE = ['all', 'census', 'consistent'] as const;
export type Coverage = (typeof COVERAGE)[number];

export function censusWindowText(cat: Catalog): string {
  const census: number[] = [];
  for (let y = cat.minYear; y <= cat.maxYear; y++) if (isCensusYear(y)) census.push(y);
  const absent = census.filter((y) => !cat.years.includes(y));
  return `Census years in the published window ${cat.minYear}-${cat.maxYear}: ${census.length ? census.join(', ') : 'none'}` +
    (absent.length ? ` (no source data in this corpus for ${absent.join(', ')})` : '') + '.';
}

export interface CoverageRow {
  year: number;
  n_units_reporting: number;
  n_units_expected: number;
  is_census_year: boolean;
}

/**
 * Units expected in a year, of a layer's governments: those whose registry lifespan (first_year to
 * last_year) covers it, and those that reported that year (a unit that reported is expected by
 * definition; lifespans miss some: issue 22, item 6). yearsPresent is the money job's [gid, years].
 */
export function expectedByRegistry(cat: Catalog, gids: readonly number[], yearsPresent: readonly [number, number[]][]): (year: number) => number {
  const reportedIn = new Map<number, Set<number>>();
  for (const [gid, ys] of yearsPresent) for (const y of ys) (reportedIn.get(y) ?? reportedIn.set(y, new Set()).get(y)!).add(gid);
  return (year) => gids.filter((gid) => lifespanCovers(cat.governments[gid]!, year) || reportedIn.get(year)?.has(gid) === true).length;
}

/** Whether a government's registry lifespan (first_year to last_year) covers the year; no bound where the registry gives none. */
export const lifespanCovers = (g: { first_year: number | null; last_year: number | null }, year: number): boolean =>
  spanCovers(g.first_year, g.last_year, year);

/** A cohort's units whose lifespan covers each year, counted once per cohort (cohort.ts keeps one array per cohort) and year. */
const lifespans = new WeakMap<readonly number[], Map<number, number>>();
function lifespanCount(cat: Catalog, gids: readonly number[], year: number): number {
  let byYear = lifespans.get(gids);
  if (byYear === undefined) lifespans.set(gids, (byYear = new Map()));
  let n = byYear.get(year);
  if (n === undefined) byYear.set(year, (n = gids.filter((gid) => lifespanCovers(cat.governments[gid]!, year)).length));
  return n;
}

/**
 * A cohort's coverage per requested year from a query's count (issue 22, item 7): reporting, and expected as
 * expectedByRegistry counts it (the lifespan count, kept per cohort and year, plus the reporters outside it).
 * The one source of a flat answer's meta and of its bulk pages' X-Units-* headers.
 */
export function cohortCoverage(cat: Catalog, gids: readonly number[], years: number[], count: MoneyCount): CoverageRow[] {
  return coverageRows(years, count.reporting, (year) => {
    const i = years.indexOf(year);
    return lifespanCount(cat, gids, year) + count.outsideLifespan[i]!;
  });
}

/** A bulk page's coverage headers: the latest requested year's figures of cohortCoverage, as meta gives them. */
export function unitsHeaders(cat: Catalog, gids: readonly number[], years: number[], count: MoneyCount): Record<string, string> {
  const last = cohortCoverage(cat, gids, years, count).at(-1);
  return last === undefined ? {} : { 'X-Units-Expected': String(last.n_units_expected), 'X-Units-Reporting': String(last.n_units_reporting) };
}

/** Coverage per year. A unit that reported is expected by definition, so expected is never below reporting. */
export function coverageRows(years: number[], reporting: readonly number[], expected: (year: number) => number): CoverageRow[] {
  return years.map((year, i) => ({ year, n_units_reporting: reporting[i]!, n_units_expected: Math.max(expected(year), reporting[i]!), is_census_year: isCensusYear(year) }));
}

/** The coverage fields of meta: the latest year's figures, and the whole table when several years were asked for. */
export function coverageMeta(rows: CoverageRow[]): Record<string, unknown> {
  const last = rows[rows.length - 1];
  const meta: Record<string, unknown> = {
    n_units_expected: last?.n_units_expected ?? 0,
    n_units_reporting: last?.n_units_reporting ?? 0,
    is_census_year: last?.is_census_year ?? false,
  };
  if (rows.length > 1) meta.coverage_by_year = rows;
  return meta;
}
