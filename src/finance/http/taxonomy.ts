// /categories and /recipes: the corpus's category crosswalk and recipe
// catalog (plus the service's three whole-leg IG recipes), filtered literally.

import { ok } from '../../server/envelope.js';
import { enumParam } from '../../server/params.js';
import { envelopeReply, type QueryParams, type Reply, type RouteRequest } from '../../server/route-spec.js';
import type { Flow } from '../catalog.js';
import type { FinanceCtx } from '../context.js';
import { metadataProvenance } from '../provenance.js';
import { lit, metadataTable } from '../sql.js';

export const categoryTypeParam = enumParam({
  description: 'Which flow: spending (expenditure categories), revenue, or balance.',
  values: ['spending', 'revenue', 'balance'] as const,
  aliases: { expenditure: 'spending', balances: 'balance' },
});

import { patternParam } from './params.js';

// The routes' declarations (routes.ts lists them), beside the handlers that take their QueryParams.
export const CATEGORIES_QUERY = { type: categoryTypeParam, pattern: patternParam('category') };
export const RECIPES_QUERY = { pattern: patternParam('recipe_id or label') };

const FLOW_OF = { spending: 'expenditure', revenue: 'revenue', balance: 'balance' } as const satisfies Record<string, Flow>;

export function listCategories(req: RouteRequest<FinanceCtx, QueryParams<typeof CATEGORIES_QUERY>>): Reply {
  const { ctx, params } = req;
  const { type, pattern } = params;
  const needle = pattern?.toLowerCase();
  const flow = type === undefined ? undefined : FLOW_OF[type];
  const rows = ctx.catalog.categories.filter((c) => (flow === undefined || c.category_type === flow) && (needle === undefined || c.category.toLowerCase().includes(needle)));
  const where = [flow ? `category_type = ${lit(flow)}` : null, pattern !== undefined ? `strpos(lower(category), lower(${lit(pattern)})) > 0` : null].filter(Boolean);
  const sql =
    `SELECT category, category_type, COALESCE(spend_subtype, revenue_subtype, balance_subtype) AS subtype, ` +
    `COUNT(DISTINCT item_code) AS n_codes, list(DISTINCT item_code ORDER BY item_code) AS item_codes ` +
    `FROM ${metadataTable(ctx, 'summary_categories')}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ` +
    `GROUP BY category, category_type, subtype ORDER BY CASE category_type WHEN 'expenditure' THEN 0 WHEN 'revenue' THEN 1 ELSE 2 END, category, subtype`;
  const meta: Record<string, unknown> = { total: rows.length, reserved: ['All Categories'] };
  if (type) meta.type = type;
  if (pattern !== undefined) meta.pattern = pattern;
  return envelopeReply(ok(rows, meta, metadataProvenance(ctx, { verb: 'categories', call: req.url, target: { type: type ?? null, pattern: pattern ?? null }, sql })));
}

export function listRecipes(req: RouteRequest<FinanceCtx, QueryParams<typeof RECIPES_QUERY>>): Reply {
  const { ctx, params } = req;
  const { pattern } = params;
  const needle = pattern?.toLowerCase();
  const rows = ctx.catalog.recipes.filter((r) => needle === undefined || r.recipe_id.toLowerCase().includes(needle) || r.label.toLowerCase().includes(needle));
  const hasTable = ctx.catalog.sourceFiles.has('harmonization_recipes');
  const sql = hasTable
    ? `SELECT recipe_id, any_value(label) AS label, COUNT(*) AS n_components, CAST(MIN(year_min) AS INTEGER) AS year_min, CAST(MAX(year_max) AS INTEGER) AS year_max ` +
      `FROM ${metadataTable(ctx, 'harmonization_recipes')}` +
      (pattern !== undefined ? ` WHERE strpos(lower(recipe_id), lower(${lit(pattern)})) > 0 OR strpos(lower(label), lower(${lit(pattern)})) > 0` : '') +
      ` GROUP BY recipe_id ORDER BY recipe_id`
    : '-- this corpus (schema_version < 5) has no harmonization_recipes table; only the service recipes (source = service) are listed';
  const meta: Record<string, unknown> = {
    total: rows.length,
    note: "Rows with source 'service' are defined by this service (the whole-leg intergovernmental revenue recipes); sql_query covers the corpus's own recipe table only.",
  };
  if (pattern !== undefined) meta.pattern = pattern;
  return envelopeReply(ok(rows, meta, metadataProvenance(ctx, { verb: 'recipes', call: req.url, target: { pattern: pattern ?? null }, sql })));
}
