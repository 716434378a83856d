// Reporting coverage: the survey calendar (a complete census only in years
// ending in 2 or 7), the coverage modes, and the per-year coverage table.

import { apiError } from '../server/errors.js';
import { enumParam } from '../server/params.js';
import type { Catalog } from './catalog.js';
import type { Rule } from './money-params.js';
import { yearsParam } from './params.js';

export const isCensusYear = (y: number): boolean => y % 10 === 2 || y % 10 === 7;

export const coverageParam = enumParam({
  description: 'all: every unit that reported; census: census years only (years ending in 2 or 7); consistent: only units reporting in every requested year.',
  values: ['all', 'census', 'consistent'] as const,
  default: 'all',
});

/** years without a default: the coverage rule resolves it, because census mode changes the default. */
export const coverageYearsParam = yearsParam({
  description: 'Fiscal years: a year, a list, an inclusive range, or a mix.',
  defaultText: 'the latest published year; with coverage=census, the latest published census year',
});

export function censusWindowText(cat: Catalog): string {
  const census: number[] = [];
  for (let y = cat.minYear; y <= cat.maxYear; y++) if (isCensusYear(y)) census.push(y);
  const absent = census.filter((y) => !cat.years.includes(y));
  return `Census years in the published window ${cat.minYear}-${cat.maxYear}: ${census.length ? census.join(', ') : 'none'}` +
    (absent.length ? ` (no source data in this corpus for ${absent.join(', ')})` : '') + '.';
}

/** Resolves params.years under the coverage mode (it sets the default), or refuses a census request with no census year. */
export const resolveCoverageYears: Rule = (p, ctx) => {
  const cat = ctx.catalog;
  const census = cat.years.filter(isCensusYear);
  if (p.years === undefined) {
    if (p.coverage !== 'census') p.years = [cat.maxYear];
    else if (census.length) p.years = [census[census.length - 1]!];
    else return apiError('E_BAD_VALUE', `coverage=census found no published census year (a year ending in 2 or 7). ${censusWindowText(cat)}`);
    return undefined;
  }
  const years = p.years as number[];
  if (p.coverage === 'census' && !years.some(isCensusYear)) {
    return apiError('E_BAD_VALUE', `coverage=census needs a census year (a year ending in 2 or 7); the requested years ${years.join(', ')} hold none. ${censusWindowText(cat)}`);
  }
  return undefined;
};

export interface CoverageRow {
  year: number;
  n_units_reporting: number;
  n_units_expected: number;
  is_census_year: boolean;
}

export function coverageRows(years: number[], reporting: readonly number[], expected: (year: number) => number): CoverageRow[] {
  return years.map((year, i) => ({ year, n_units_reporting: reporting[i]!, n_units_expected: expected(year), is_census_year: isCensusYear(year) }));
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
