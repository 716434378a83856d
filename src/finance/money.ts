// The money routes' one handler: validated parameters -> plan -> the money
// job on the pool -> rows, meta, provenance and suggestions. What differs
// between /spending, /revenue, /balances and /profile is the MoneyRoute
// record each passes in, not code paths here.

import { JsonRows, ok } from '../server/envelope.js';
import { moneyTable, type MoneyRoute } from './money-table.js';
import { jsonRowsSize, writeJsonRows } from '../server/csv.js';
import { envelopeReply, type Reply, type RouteRequest } from '../server/route-spec.js';
import type { Flow } from './catalog.js';
import type { FinanceCtx } from './context.js';
import { EXPENDITURE_CONCEPTS, FLOW_ID, REVENUE_CONCEPTS, SUBTYPES, type ExpenditureConcept, type RevenueConcept } from './engine-catalog.js';
import type { CategoryChoice, RecipeChoice } from './money-params.js';
import { moneyProvenance, subtypeColumn, truncatedFamilies } from './money-provenance.js';
import { moneySql } from './money-sql.js';
import { moneyJob } from './run-money.js';
import { planDefaults, type MoneyPlan, type MoneyResult } from './plan.js';

export interface MoneyQuery {
  gids: number[];
  years: number[];
  params: Record<string, unknown>;
}

export function planOf(ctx: FinanceCtx, route: MoneyRoute, q: MoneyQuery): MoneyPlan {
  const p = q.params;
  const e = ctx.engine;
  const recipe = p.recipe as RecipeChoice | undefined;
  const category = p.category as CategoryChoice | undefined;
  const concept = (p.expenditure_concept as ExpenditureConcept | undefined) ?? 'primary';
  const revConcept = (p.revenue_concept as RevenueConcept | undefined) ?? 'general';
  const ids = (names: readonly string[]): number[] => names.map((n) => e.subtypes.indexOf(n));
  // Indexed by flow id (expenditure 1, revenue 2, balance 3): an array, as an object with number keys crosses threads slowly.
  const scope: number[][] = [[], ids(EXPENDITURE_CONCEPTS[concept]), ids(REVENUE_CONCEPTS[revConcept]), ids(SUBTYPES.balance)];
  const basis = p.basis as 'raw' | 'harmonized';
  const limit = p.limit as number;
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
    subtype: p.subtype === undefined ? null : e.subtypes.indexOf(p.subtype as string),
    complete: p.complete === true,
    suggest: recipe === undefined && basis === 'harmonized' && category !== undefined && !category.all,
    offset: (p.page as number) * limit,
    limit,
    ...planDefaults,
  };
}

/** One government's money route: /governments/{govid}/spending, /revenue, /balances, /profile. */
export function governmentMoney(route: MoneyRoute) {
  return async (req: RouteRequest<FinanceCtx>): Promise<Reply> => {
    const { ctx, params } = req;
    const gid = params.govid as number;
    const years = params.years as number[];
    const plan = planOf(ctx, route, { gids: [gid], years, params });
    // The signal as a thunk: a job run on a front thread never makes it (see Pool.runSmall).
    const res = await moneyJob(ctx, plan, () => req.signal, true);
    const gov = ctx.catalog.governments[gid]!;
    return envelopeReply(answer(ctx, route, req, res, plan, { govids: [gov.canonical_govid], govNames: [gov.gov_name], perGovernment: true }));
  };
}

export function answer(
  ctx: FinanceCtx, route: MoneyRoute, req: RouteRequest<FinanceCtx>, res: MoneyResult, plan: MoneyPlan,
  o: { govids: string[]; govNames: string[]; perGovernment: boolean; govidsMissing?: string[]; cohort?: { fips_state?: string; type?: number }; extraColumns?: { name: string; get: (i: number) => unknown }[] },
) {
  const { params } = req;
  const recipe = params.recipe as RecipeChoice | undefined;
  const category = params.category as CategoryChoice | undefined;
  const basisUsed = recipe ? 'recipe' : (params.basis as 'raw' | 'harmonized');
  const schemaNote = !ctx.catalog.rules.harmonized && params.basis === 'raw'
    ? `basis resolved to raw: corpus schema_version ${ctx.catalog.manifest.schemaVersion} < 5 has no harmonization tables.`
    : null;
  const basisNote = route.flows.length === 1 && route.flows[0] === 'balance'
    ? 'basis has no effect on holdings: the harmonization map carries no balance codes, so harmonized and raw are the same rows.'
    : schemaNote;
  const suggestions = res.summary.suggestions.map(([ri, years]) => {
    const r = ctx.catalog.recipes[ri]!;
    return {
      recipe_id: r.recipe_id,
      label: r.label,
      available_years: [r.year_min, r.year_max],
      hint: `No ${category?.names.join(', ')} rows for ${years.join(', ')} on basis=harmonized; re-run with recipe=${r.recipe_id} (and without category) for a series continuous across item-code vintages.`,
      years,
    };
  });
  const expConcept = route.flows.includes('expenditure') ? ((params.expenditure_concept as string | undefined) ?? 'primary') : null;
  const revConcept = route.flows.includes('revenue') ? ((params.revenue_concept as string | undefined) ?? 'general') : null;
  const sql = moneySql(ctx, {
    govids: o.cohort ? null : o.govids,
    cohort: o.cohort,
    years: plan.years,
    flows: route.flows,
    harmonized: plan.harmonized,
    scope: {
      expenditure: EXPENDITURE_CONCEPTS[(expConcept ?? 'primary') as ExpenditureConcept],
      revenue: REVENUE_CONCEPTS[(revConcept ?? 'general') as RevenueConcept],
      balance: SUBTYPES.balance,
    },
    igLeg: plan.igLeg,
    categories: category?.ids ? category.names : null,
    allCategories: plan.allCategories,
    recipe: recipe ? ctx.catalog.recipes[recipe.index]! : null,
    withFlow: route.withFlow,
  });
  const provenance = moneyProvenance(ctx, {
    verb: route.verb, call: req.url, govids: o.govids, govNames: o.govNames, years: plan.years,
    category: recipe ? ctx.catalog.recipes[recipe.index]!.label : category ? (category.names.length === 1 ? category.names[0]! : category.names) : null,
    basis: basisUsed, basisNote, flows: route.flows,
    expenditureConcept: expConcept, revenueConcept: revConcept, igLeg: plan.igLeg, allCategories: plan.allCategories,
    recipeIndex: recipe?.index ?? null, perCapita: params.per_capita === true, adjust: params.adjust as 'nominal' | 'real',
    baseYear: params.base_year as number, complete: plan.complete, sql, perGovernment: o.perGovernment, govidsMissing: o.govidsMissing,
  }, res.summary, suggestions);

  const meta: Record<string, unknown> = {
    total: res.total, limit: plan.limit, page: params.page, basis: basisUsed,
    adjust: params.adjust, per_capita: params.per_capita,
  };
  if (params.adjust === 'real') meta.base_year = params.base_year;
  if (params.subtype !== undefined) meta.subtype = params.subtype;
  if (params.complete !== undefined) meta.complete = params.complete;
  if (expConcept !== null) meta.expenditure_concept = expConcept;
  if (route.flows.length === 1 && route.flows[0] === 'expenditure' && o.perGovernment) {
    meta.expenditure_concept_direct_suppressed = provenance.expenditure_concept_direct_suppressed;
  }
  if (revConcept !== null) meta.revenue_concept = revConcept;
  if (route.flows.includes('balance')) {
    meta.not_gaap = true;
    meta.coverage_truncated = truncatedFamilies(ctx, res.summary, plan.years);
  }
  const table = moneyTable(ctx, route, params, res, o.extraColumns);
  return ok(new JsonRows((w) => writeJsonRows(table, w), table.n, jsonRowsSize(table)), meta, provenance, suggestions.map(({ years: _years, ...s }) => s));
}

export const subtypeFieldOf = (flow: Flow): string => subtypeColumn(flow);
