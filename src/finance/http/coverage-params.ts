// The coverage parameters (coverage=, and years defaulting by it) and the
// census rule refusing a coverage=census query without a census year; the
// coverage rules themselves are the domain's (../coverage.ts).

import { apiError, type ApiError } from '../../server/errors.js';
import { enumParam } from '../../server/params.js';
import type { Catalog } from '../catalog.js';
import { censusWindowText, COVERAGE, isCensusYear, type Coverage } from '../coverage.js';
import { yearsParam } from './params.js';

export const coverageParam = enumParam({
  description: 'all: every unit that reported; census: census years only (years ending in 2 or 7); consistent: only units reporting in every requested year.',
  values: COVERAGE,
  default: 'all',
});

/**
 * years defaults by the coverage mode asked for: the latest published year, or
 * with coverage=census the latest published census year (none: an empty list,
 * which censusYearsRule refuses with the census window).
 */
export const coverageYearsParam = yearsParam({
  description: 'Fiscal years: a year, a list, an inclusive range, or a mix.',
  defaultText: 'the latest published year; with coverage=census, the latest published census year',
  default: (ctx, given) => {
    if (given.coverage !== 'census') return [ctx.catalog.maxYear];
    const census = ctx.catalog.years.filter(isCensusYear);
    return census.length ? [census[census.length - 1]!] : [];
  },
});

/** coverage=census needs a census year among the years (given, or its default). */
export const censusYearsRule = (p: { years: number[]; coverage: Coverage }, ctx: { catalog: Catalog }): ApiError | undefined => {
  const cat = ctx.catalog;
  if (p.coverage !== 'census' || p.years.some(isCensusYear)) return undefined;
  return p.years.length === 0
    ? apiError('E_BAD_VALUE', 'censusNonePublished', { window: censusWindowText(cat) })
    : apiError('E_BAD_VALUE', 'censusNoneRequested', { years: p.years.join(', '), window: censusWindowText(cat) });
};
