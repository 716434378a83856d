// The money routes' one handler: validated parameters -> plan -> the money
// job on the pool -> rows, meta, provenance and suggestions. What differs
// between /spending, /revenue, /balances and /profile is the MoneyRoute
// record each passes in, not code paths here.

import { JsonRows, okWithMeta, type Envelope, type Meta } from '../../server/envelope.js';
import { moneyTable, tableOptions, type MoneyRoute } from '../money-table.js';
import { jsonRowsSize, writeJsonRows } from '../../bytes/json-rows.js';
import type { ColumnTable } from '../../bytes/column-table.js';
import { envelopeReply, type Reply, type RouteRequest } from '../../server/route-spec.js';
import type { FinanceCtx } from '../context.js';
import { EXPENDITURE_CONCEPTS, REVENUE_CONCEPTS, SUBTYPES } from '../engine-catalog.js';
import type { GovernmentMoneyParams, MoneyParams } from './money-queries.js';
import { moneyProvenance, truncatedFamilies } from '../money-provenance.js';
import { moneySql } from '../money-sql.js';
import { moneyJob } from '../run-money.js';
import type { MoneyPlan, MoneyResult } from '../plan.js';
import { isPageFormat, tablePage } from './page-formats.js';
import { planOf } from '../plan-of.js';

export type { MoneyParams } from './money-queries.js';

/** One government's money route: /governments/{govid}/spending, /revenue, /balances, /profile. */
export function governmentMoney(route: MoneyRoute) {
  return async (req: RouteRequest<FinanceCtx, GovernmentMoneyParams>): Promise<Reply> => {
    const { ctx, params } = req;
    const gid = params.govid;
    const plan = planOf(ctx, route, { gids: [gid], years: params.years, params });
    // The signal as a thunk: a job run on a front thread never makes it (see Pool.runSmall).
    const res = await moneyJob(ctx, plan, () => req.signal, true);
    if (plan.igLeg && plan.allCategories) res.summary.directSuppressed = await directSuppressedByCategory(ctx, plan, req);
    const gov = ctx.catalog.governments[gid]!;
    const env = answer(ctx, route, req, res, plan, { govids: [gov.canonical_govid], govNames: [gov.gov_name], perGovernment: true });
    // A page in CSV, Arrow or Parquet: the same rows, written here (at most 1,000), the envelope's provenance in its metadata.
    if (isPageFormat(params.format)) return tablePage(ctx, route, req.url, params, res, params.format, env.provenance!);
    return envelopeReply(env);
  };
}

/**
 * Whether any (year, category) of an All Categories total has no Direct leg in this corpus (issue 22,
 * item 4). The summed rows cannot say (the check keys on each category's rows), so the same plan runs
 * once more per category, with no rows asked: a second small job, only for expenditure_concept=total
 * with All Categories. The spec types the flag boolean; without this pass it was null.
 */
async function directSuppressedByCategory(ctx: FinanceCtx, plan: MoneyPlan, req: { signal: AbortSignal }): Promise<boolean> {
  const perCategory = await moneyJob(ctx, { ...plan, allCategories: false, categories: null, complete: false, suggest: false, offset: 0, limit: 0 }, () => req.signal, true);
  return perCategory.summary.directSuppressed;
}

/**
 * What a route adds to the money answer, so answer() builds its envelope
 * once, complete. Key order is part of the answer (clients and the golden
 * answers see it): the route's meta keys come after meta.version, its
 * provenance keys after sql_query, and a replaced target keeps its place.
 */
export interface AnswerShape {
  govids: string[];
  govNames: string[];
  perGovernment: boolean;
  govidsMissing?: string[];
  /** A state/type cohort instead of a govid list: the SQL selects it, and scope lists no govids_found. */
  cohort?: { fips_state?: string; type?: number };
  extraColumns?: { name: string; get: (i: number) => unknown }[];
  /** The page's rows, when the route assembles its own (else the result's rows as JSON). */
  rows?: unknown[];
  /** provenance.target, in place of the money target (the governments and their names). */
  target?: Record<string, unknown>;
  /** scope.cohort, after the scope's own keys. */
  scopeCohort?: Record<string, unknown>;
  /** The route's provenance keys, after sql_query. */
  provenance?: Record<string, unknown>;
  /** The route's meta keys, after version. */
  meta?: Record<string, unknown>;
}

export function answer(
  ctx: FinanceCtx, route: MoneyRoute, req: { url: string; params: MoneyParams }, res: MoneyResult, plan: MoneyPlan, o: AnswerShape,
): Envelope {
  const { params } = req;
  const { recipe, category } = params;
  const basisUsed = recipe ? 'recipe' : params.basis;
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
  const expConcept = route.flows.includes('expenditure') ? (params.expenditure_concept ?? 'primary') : null;
  const revConcept = route.flows.includes('revenue') ? (params.revenue_concept ?? 'general') : null;
  const sql = moneySql(ctx, {
    govids: o.cohort ? null : o.govids,
    cohort: o.cohort,
    years: plan.years,
    flows: route.flows,
    harmonized: plan.harmonized,
    scope: {
      expenditure: EXPENDITURE_CONCEPTS[expConcept ?? 'primary'],
      revenue: REVENUE_CONCEPTS[revConcept ?? 'general'],
      balance: SUBTYPES.balance,
    },
    igLeg: plan.igLeg,
    categories: category?.ids ? category.names : null,
    allCategories: plan.allCategories,
    recipe: recipe ? ctx.catalog.recipes[recipe.index]! : null,
    withFlow: route.withFlow,
    // Left out by coverage=consistent (not reporting every year asked): an audit of 2026-11-28 found the SQL kept them.
    excluded: res.summary.inconsistentGovs.length === 0 ? undefined : res.summary.inconsistentGovs.map((g) => ctx.catalog.governments[g]!.canonical_govid),
  });
  const provenance = moneyProvenance(ctx, {
    verb: route.verb, call: req.url, govids: o.govids, govNames: o.govNames, years: plan.years,
    category: recipe ? ctx.catalog.recipes[recipe.index]!.label : category ? (category.names.length === 1 ? category.names[0]! : category.names) : null,
    basis: basisUsed, basisNote, flows: route.flows,
    expenditureConcept: expConcept, revenueConcept: revConcept, igLeg: plan.igLeg, allCategories: plan.allCategories,
    recipeIndex: recipe?.index ?? null, perCapita: params.per_capita, adjust: params.adjust,
    baseYear: params.base_year, complete: plan.complete, sql, perGovernment: o.perGovernment, govidsMissing: o.govidsMissing,
  }, res.summary, suggestions);

  const meta: Record<string, unknown> = {
    total: res.total, limit: params.limit, page: params.page, basis: basisUsed,
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
  const data = o.rows ?? jsonRowsOf(moneyTable(ctx, route, tableOptions(params), res, o.extraColumns));
  // version after the money keys, before the route's (a route's key already among the money keys keeps its place).
  meta.version = 'v1';
  if (o.meta) Object.assign(meta, o.meta);
  return okWithMeta(data, meta as Meta, shapedProvenance(provenance, o), suggestions.length ? suggestions.map(({ years: _years, ...s }) => s) : []);
}

const jsonRowsOf = (table: ColumnTable): JsonRows => new JsonRows((w) => writeJsonRows(table, w), table.n, jsonRowsSize(table));

/** The money provenance with the route's target, cohort and keys: existing keys keep their place, new ones follow. */
function shapedProvenance(p: Record<string, unknown>, o: AnswerShape): Record<string, unknown> {
  if (!o.cohort && !o.target && !o.provenance) return p;
  const scope = isRecord(p.scope) ? p.scope : {};
  const { govids_found: _found, ...cohortScope } = scope;
  return {
    ...p,
    ...(o.target ? { target: o.target } : {}),
    scope: o.cohort ? { ...cohortScope, ...(o.scopeCohort ? { cohort: o.scopeCohort } : {}) } : scope,
    ...o.provenance,
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

