// A money query's job plan, from its choices: what the workers run (plan.ts). Domain: the HTTP layer's
// money, flat, rollup and peer routes build their plans here from their parsed parameters.

import type { FinanceCtx } from './context.js';
import { EXPENDITURE_CONCEPTS, FLOW_ID, REVENUE_CONCEPTS, SUBTYPES, type ExpenditureConcept, type RevenueConcept } from './engine-catalog.js';
import type { CategoryChoice, RecipeChoice } from './money-choices.js';
import type { MoneyRoute } from './money-table.js';
import { planDefaults, type MoneyPlan } from './plan.js';

/** The routes that take no basis (/rollups, /peer-comparison) use the corpus's default one. */
export const corpusBasis = (ctx: FinanceCtx): 'harmonized' | 'raw' => (ctx.catalog.rules.harmonized ? 'harmonized' : 'raw');

/**
 * What a plan reads of a money query's choices (the rest shape the answer, not the job), in the domain's own
 * terms: the HTTP layer's parsed parameters (http/money-queries.ts) fit it, and nothing here knows of them.
 */
export interface PlanParams {
  basis: 'harmonized' | 'raw';
  limit: number;
  page: number;
  category?: CategoryChoice | undefined;
  subtype?: string | undefined;
  recipe?: RecipeChoice | undefined;
  expenditure_concept?: ExpenditureConcept | undefined;
  revenue_concept?: RevenueConcept | undefined;
  complete?: boolean | undefined;
}

export interface MoneyQuery {
  gids: number[];
  years: number[];
  params: PlanParams;
}

export function planOf(ctx: FinanceCtx, route: MoneyRoute, q: MoneyQuery): MoneyPlan {
  const p = q.params;
  const e = ctx.engine;
  const { recipe, category, basis, limit } = p;
  const concept = p.expenditure_concept ?? 'primary';
  const revConcept = p.revenue_concept ?? 'general';
  const ids = (names: readonly string[]): number[] => names.map((n) => e.subtypes.indexOf(n));
  // Indexed by flow id (expenditure 1, revenue 2, balance 3): an array, as an object with number keys crosses threads slowly.
  const scope: number[][] = [[], ids(EXPENDITURE_CONCEPTS[concept]), ids(REVENUE_CONCEPTS[revConcept]), ids(SUBTYPES.balance)];
  return {
    govs: q.gids,
    years: q.years,
    flows: route.flows.map((f) => FLOW_ID[f]),
    harmonized: recipe === undefined && basis === 'harmonized',
    scope,
    igLeg: route.flows.includes('expenditure') && concept === 'total',
    categories: category?.ids ?? null,
    allCategories: category?.all === true,
    recipe: recipe?.index ?? null,
    subtype: p.subtype === undefined ? null : e.subtypes.indexOf(p.subtype),
    complete: p.complete === true,
    suggest: recipe === undefined && basis === 'harmonized' && category !== undefined && !category.all,
    offset: p.page * limit,
    limit,
    ...planDefaults,
  };
}
