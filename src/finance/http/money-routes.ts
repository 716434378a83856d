// The per-government money routes, declared. Each lists the keys it takes,
// the keys it refuses with a reason, and the spec's cross-parameter rules.

import { defineRoute, type FieldDoc, type RouteSpec } from '../../server/route-spec.js';
import type { FinanceCtx } from '../context.js';
import { governmentMoney } from './money.js';
import type { MoneyRoute } from '../money-table.js';
import { REJECT, RULES } from './money-params.js';
import { BALANCES_QUERY, GOV_PATH, MONEY_FORMATS, PROFILE_QUERY, REVENUE_QUERY, SPENDING_QUERY } from './money-queries.js';
import { exampleGov } from './examples.js';

type Route = RouteSpec<FinanceCtx>;
const route = defineRoute<FinanceCtx>();
const V1 = '/api/v1';

/** Row fields of a money route; a condition that is the route's default is dropped from `when`. */
export const moneyFields = (
  subtypeField: string, extra: FieldDoc[] = [], complete = true, defaults: { real?: boolean; perCapita?: boolean; identity?: boolean } = {},
): FieldDoc[] =>
  fieldsBase(subtypeField, extra, complete, defaults.identity === true).map((f) => {
    if (!f.when) return f;
    const left = f.when.split('&').filter((c) => !(c === 'adjust=real' && defaults.real) && !(c === 'per_capita=true' && defaults.perCapita));
    return { ...f, when: left.length ? left.join('&') : undefined };
  });

const fieldsBase = (subtypeField: string, extra: FieldDoc[], complete: boolean, identity: boolean): FieldDoc[] => [
  { name: 'year', type: 'integer', description: 'Fiscal year.' },
  { name: 'canonical_govid', type: 'string', description: '12-digit canonical government id.' },
  { name: 'gov_name', type: 'string', description: 'Government name (registry spelling).' },
  ...(identity ? IDENTITY_FIELDS : []),
  { name: 'category', type: 'string', description: "Category (function); for a recipe, the recipe's label; 'All Categories' when summed." },
  { name: subtypeField, type: 'string', description: 'Economic character of the row (recipe for recipe rows).' },
  ...extra,
  { name: 'amt_nominal', type: 'number|null', description: 'Nominal US dollars (the corpus stores $1,000s; multiplied by 1000). Null only for not_reported cells.' },
  { name: 'amt_real', type: 'number|null', description: 'Dollars of base_year by the bundled CPI.', when: 'adjust=real' },
  { name: 'amt_per_capita_nominal', type: 'number|null', description: 'amt_nominal per resident; null when no population.', when: 'per_capita=true' },
  { name: 'amt_per_capita_real', type: 'number|null', description: 'amt_real per resident.', when: 'per_capita=true&adjust=real' },
  { name: 'pop_source', type: 'string', description: 'census_f33, or unavailable.', when: 'per_capita=true' },
  { name: 'codes_included', type: 'string|null', description: 'Item codes summed into the row, comma-separated (null on filled cells).' },
  { name: 'aggregate_fallback', type: 'boolean|null', description: 'True when the row includes aggregate-published codes (legacy intergovernmental families).' },
  { name: 'notes', type: 'string', description: 'Per-row warnings, ";"-separated; empty when none.' },
  ...(complete ? [{ name: 'value_source', type: 'string', description: 'reported, census_zero (dense year, absent: $0), not_reported (sparse year, no report, or a dense-year cell published but not summed on this basis: amount null).', when: 'complete=true' }] : []),
];

/** The flat routes' identity columns (identity=true). */
const IDENTITY_FIELDS: FieldDoc[] = [
  { name: 'state', type: 'string|null', description: 'Two-letter USPS code of the government\'s state.', when: 'identity=true' },
  { name: 'type', type: 'string', description: 'state, county, city or township.', when: 'identity=true' },
  { name: 'population', type: 'integer|null', description: "Census F-33 population of the row's year, as the corpus carries it (the per-capita denominator); null when it has none.", when: 'identity=true' },
];

const GOV = '{govid}';

const spending: MoneyRoute = { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false };
const revenue: MoneyRoute = { verb: 'revenue', flows: ['revenue'], subtypeField: 'revenue_subtype', withFlow: false };
const balances: MoneyRoute = { verb: 'balances', flows: ['balance'], subtypeField: 'balance_subtype', withFlow: false };
const profile: MoneyRoute = { verb: 'profile', flows: ['expenditure', 'revenue'], subtypeField: 'subtype', withFlow: true };

export const moneyRoutes: Route[] = [
  route({
    id: 'government_spending', cacheable: true, path: `${V1}/governments/${GOV}/spending`, tags: ['money'], produces: 'envelope', formats: MONEY_FORMATS,
    summary: "One government's spending", description: 'Single-flow spending time series. The only route where expenditure_concept=total (Direct + intergovernmental payments) is available.',
    pathParams: GOV_PATH,
    query: SPENDING_QUERY,
    rejects: { revenue_concept: REJECT.revenue_concept, year: REJECT.year },
    rules: [RULES.recipeVsCategory, RULES.recipeVsSubtype, RULES.recipeVsComplete, RULES.recipeVsTotal, RULES.completeVsTotal, RULES.completeNeedsRepresentation, RULES.subtypeInExpenditureConcept],
    rowFields: moneyFields('spend_subtype'),
    examples: (ctx) => [
      { description: 'Police spending per resident in real dollars, the largest city', path: `${V1}/governments/${exampleGov(ctx, 2)}/spending?category=Police&per_capita=true&adjust=real` },
      { description: 'Total spending (Direct + intergovernmental), all categories summed, the largest county', path: `${V1}/governments/${exampleGov(ctx, 1)}/spending?expenditure_concept=total&category=All%20Categories&years=${ctx.catalog.maxYear}` },
    ],
    handle: governmentMoney(spending),
  }),
  route({
    id: 'government_revenue', cacheable: true, path: `${V1}/governments/${GOV}/revenue`, tags: ['money'], produces: 'envelope', formats: MONEY_FORMATS,
    summary: "One government's revenue", description: 'Single-flow revenue series; revenue_concept general (default) or total.',
    pathParams: GOV_PATH,
    query: REVENUE_QUERY,
    rejects: { expenditure_concept: REJECT.expenditure_concept, year: REJECT.year },
    rules: [RULES.recipeVsCategory, RULES.recipeVsSubtype, RULES.recipeVsComplete, RULES.completeNeedsRepresentation, RULES.subtypeInRevenueConcept],
    rowFields: moneyFields('revenue_subtype'),
    examples: (ctx) => [
      { description: 'Property tax, the largest city', path: `${V1}/governments/${exampleGov(ctx, 2)}/revenue?category=Property%20Tax` },
      { description: 'State aid to the largest township as one series across item-code vintages', path: `${V1}/governments/${exampleGov(ctx, 3)}/revenue?recipe=ig_state_total_wide` },
    ],
    handle: governmentMoney(revenue),
  }),
  route({
    id: 'government_balances', cacheable: true, path: `${V1}/governments/${GOV}/balances`, tags: ['money'], produces: 'envelope', formats: MONEY_FORMATS,
    summary: "One government's cash and security holdings", description: 'Gross holdings at a point in time (stocks, not flows; not GAAP fund balance).',
    pathParams: GOV_PATH,
    query: BALANCES_QUERY,
    rejects: { expenditure_concept: REJECT.expenditure_concept, revenue_concept: REJECT.revenue_concept, complete: REJECT.complete, year: REJECT.year },
    rules: [RULES.recipeVsCategory, RULES.recipeVsSubtype, RULES.balancePair],
    rowFields: moneyFields('balance_subtype', [], false),
    examples: (ctx) => [{ description: 'Holdings of the largest state', path: `${V1}/governments/${exampleGov(ctx, 0)}/balances` }],
    handle: governmentMoney(balances),
  }),
  route({
    id: 'government_profile', cacheable: true, path: `${V1}/governments/${GOV}/profile`, tags: ['money'], produces: 'envelope', formats: MONEY_FORMATS,
    summary: "One government's spending and revenue in one table", description: 'Spending and revenue history with subtype and flow; real dollars per resident by default.',
    pathParams: GOV_PATH,
    query: PROFILE_QUERY,
    rejects: { complete: REJECT.complete, year: REJECT.year },
    rules: [RULES.recipeVsCategory],
    rowFields: moneyFields('subtype', [{ name: 'flow', type: 'string', description: 'expenditure, revenue or recipe.' }], false, { real: true, perCapita: true }),
    examples: (ctx) => [{ description: 'The largest county: spending and revenue per resident, real dollars', path: `${V1}/governments/${exampleGov(ctx, 1)}/profile` }],
    handle: governmentMoney(profile),
  }),
];
