// The per-government money routes' parameter declarations (money-routes.ts
// lists the routes), and the types defineRoute infers from them: the handler
// of the four (money.ts governmentMoney) and the stages the money routes share
// read these, never a parameter type written by hand. Kept apart from the
// route table so that money.ts may read the types without an import loop.

import { ROW_FORMATS } from '../../server/formats.js';
import { defaulted, formatParam, withExample } from '../../server/params.js';
import type { QueryParams, SharedParams } from '../../server/route-spec.js';
import type { Flow } from '../catalog.js';
import {
  adjustParam, baseYearParam, basisParam, categoryParam, completeParam, expenditureConceptParam, moneyLimitParam,
  perCapitaParam, perGovYearsParam, recipeParam, revenueConceptParam, subtypeParam,
} from './money-params.js';
import { govidPath, pageParam } from './params.js';

// One government's rows as the envelope, or the same page as CSV, Arrow or Parquet (page-formats.ts).
export const MONEY_FORMATS = ROW_FORMATS;

const common = (dAdjust: 'nominal' | 'real', dPerCapita: boolean) => ({
  years: perGovYearsParam, adjust: adjustParam(dAdjust), base_year: defaulted(baseYearParam), per_capita: perCapitaParam(dPerCapita),
  format: formatParam(MONEY_FORMATS), limit: moneyLimitParam, page: pageParam,
});
const basis = defaulted(basisParam);
// recipe and category exclude each other: the docs fill in category, so recipe carries no example.
const recipeOf = (flows: Flow[], path: string) => withExample(recipeParam(flows, path), undefined);

export const GOV_PATH = { govid: govidPath };
export const SPENDING_QUERY = {
  ...common('nominal', false),
  category: categoryParam({ flows: ['expenditure'], route: '/governments/{govid}/spending' }),
  subtype: subtypeParam('expenditure', '/governments/{govid}/spending'),
  basis, recipe: recipeOf(['expenditure'], '/governments/{govid}/spending'),
  expenditure_concept: expenditureConceptParam(true), complete: completeParam,
};
export const REVENUE_QUERY = {
  ...common('nominal', false),
  category: categoryParam({ flows: ['revenue'], route: '/governments/{govid}/revenue' }),
  subtype: subtypeParam('revenue', '/governments/{govid}/revenue'),
  basis, recipe: recipeOf(['revenue'], '/governments/{govid}/revenue'),
  revenue_concept: revenueConceptParam, complete: completeParam,
};
export const BALANCES_QUERY = {
  ...common('nominal', false),
  category: categoryParam({ flows: ['balance'], route: '/governments/{govid}/balances' }),
  subtype: subtypeParam('balance', '/governments/{govid}/balances'),
  basis, recipe: recipeOf(['balance'], '/governments/{govid}/balances'),
};
export const PROFILE_QUERY = {
  ...common('real', true),
  category: categoryParam({ flows: ['expenditure', 'revenue', 'balance'], route: '/governments/{govid}/profile' }),
  basis, recipe: recipeOf(['expenditure', 'revenue', 'balance'], '/governments/{govid}/profile'),
  expenditure_concept: expenditureConceptParam(false), revenue_concept: revenueConceptParam,
};

/** One government's money routes' parameters, as defineRoute infers them: governmentMoney (money.ts) answers all four. */
export type GovernmentMoneyParams =
  | QueryParams<typeof SPENDING_QUERY, typeof GOV_PATH> | QueryParams<typeof REVENUE_QUERY, typeof GOV_PATH>
  | QueryParams<typeof BALANCES_QUERY, typeof GOV_PATH> | QueryParams<typeof PROFILE_QUERY, typeof GOV_PATH>;

/**
 * The money parameters the shared stages read (planOf, answer, the page formats): every money route's keys,
 * derived from the four per-government declarations (the flat routes, rollups and peers give subsets of them).
 */
export type MoneyParams = SharedParams<
  QueryParams<typeof SPENDING_QUERY> | QueryParams<typeof REVENUE_QUERY> | QueryParams<typeof BALANCES_QUERY> | QueryParams<typeof PROFILE_QUERY>
>;
