// Parameters of the money routes and the cross-parameter rules of the spec,
// declared once. Each route picks the ones it takes; flow-specific behaviour
// (which categories, subtypes and concepts a route serves) comes from the
// FLOW_ROUTES table, never from branches in handlers.

import { ApiError, apiError, listValues } from '../../server/errors.js';
import { boolParam, clip, enumParam, intParam } from '../../server/params.js';
import type { ParamSpec } from '../../server/route-spec.js';
import type { Flow } from '../catalog.js';
import type { FinanceCtx } from '../context.js';
import { EXPENDITURE_CONCEPTS, FLOW_ID, REVENUE_CONCEPTS, SUBTYPES, type EngineCatalog } from '../engine-catalog.js';
import { ALL_CATEGORIES, EVERY_CATEGORY, type CategoryChoice, type RecipeChoice } from '../money-choices.js';
import { CATEGORY_ALIASES } from '../category-aliases.js';
import { yearsParam } from './params.js';

type P<T> = ParamSpec<FinanceCtx, T>;

/** Which routes serve each flow: named in wrong-flow errors. */
export const FLOW_ROUTES: Record<Flow, string> = {
  expenditure: '/spending, /rollups and /governments/{govid}/spending',
  revenue: '/revenue and /governments/{govid}/revenue',
  balance: '/governments/{govid}/balances',
};
const FLOW_WORD: Record<Flow, string> = { expenditure: 'an expenditure', revenue: 'a revenue', balance: 'a balance' };

/**
 * category: one name or a comma list, matched case-insensitively and returned
 * canonical; `All Categories` alone; a category of another flow is a 400 that
 * names its type and the routes serving it (unless the route takes any flow).
 */
export function categoryParam(o: { flows: Flow[]; route: string; single?: boolean; allowAll?: boolean; required?: boolean }): P<CategoryChoice> {
  return {
    description: o.single
      ? 'Exactly one category name (case-insensitive; see /categories).'
      : `Category name(s), comma-separated, case-insensitive (see /categories)${o.allowAll === false ? '' : `, or the reserved '${ALL_CATEGORIES}' to sum every category of the concept per subtype`}.`,
    schema: { type: 'string', maxLength: 2000 },
    allowed: `names from /categories of type ${o.flows.join(' or ')}${o.allowAll === false ? '' : `, or '${ALL_CATEGORIES}'`}`,
    required: o.required,
    ...(o.single ? {} : { list: o.flows[0] === 'revenue' ? 'Property Tax,General Sales Tax' : o.flows[0] === 'balance' ? 'Fund Balances,Retirement System Holdings' : 'Police,Fire' }),
    example: o.flows[0] === 'revenue' ? 'Property Tax' : o.flows[0] === 'balance' ? 'Fund Balances' : 'Police',
    parse(raw, name, ctx) {
      const parts = raw.split(',').map((s) => s.trim());
      if (o.single && parts.length > 1) throw apiError('E_BAD_VALUE', 'oneCategory', { name, route: o.route, count: parts.length });
      if (parts.some((p) => p === '')) throw apiError('E_BAD_VALUE', 'emptyCategory', { name });
      const { engine } = ctx;
      // Written only for an error: the list of every valid name is a few microseconds a request otherwise.
      const options = (): string => {
        const valid = engine.categories.filter((_, i) => o.flows.some((f) => engine.categoryFlow[i] === FLOW_ID[f]));
        return listValues(o.allowAll === false ? valid : [...valid, ALL_CATEGORIES]);
      };
      if (parts.some((p) => p.toLowerCase() === ALL_CATEGORIES.toLowerCase())) {
        if (o.allowAll === false) throw apiError('E_BAD_VALUE', 'allNotHere', { name, all: ALL_CATEGORIES, route: o.route, options: options() });
        if (parts.length > 1) throw apiError('E_BAD_VALUE', 'allAlone', { name, all: ALL_CATEGORIES });
        return EVERY_CATEGORY;
      }
      const byName = categoryIds(engine);
      const ids: number[] = [];
      for (const p of parts) {
        const id = byName.get(p.toLowerCase()) ?? -1;
        if (id < 0) throw apiError('E_BAD_VALUE', 'unknownCategory', { name, raw: clip(p), options: options() });
        const flow = (Object.keys(FLOW_ID) as Flow[]).find((f) => FLOW_ID[f] === engine.categoryFlow[id])!;
        if (!o.flows.includes(flow)) {
          throw apiError('E_BAD_VALUE', 'categoryOtherFlow', { name, category: engine.categories[id]!, flowWord: FLOW_WORD[flow], route: o.route, Flow: cap(flow), routes: FLOW_ROUTES[flow] });
        }
        if (!ids.includes(id)) ids.push(id);
      }
      return { ids, all: false, names: ids.map((i) => engine.categories[i]!) };
    },
    // The table's names (the spec's shorter ones and any case read as them), a repeated name once.
    spell: (choice) => choice.names.join(','),
  };
}

const cap = (s: string): string => s[0]!.toUpperCase() + s.slice(1);

/** Category ids by lower-cased name, built once per engine catalog (the first name wins, as a scan in id order would). */
const idsByName = new WeakMap<EngineCatalog, Map<string, number>>();
function categoryIds(engine: EngineCatalog): Map<string, number> {
  let m = idsByName.get(engine);
  if (m === undefined) {
    m = new Map();
    for (let i = engine.categories.length - 1; i >= 0; i--) m.set(engine.categories[i]!.toLowerCase(), i);
    // The spec's shorter names (category-aliases.ts), where they name no category of their own.
    for (const { alias, category } of CATEGORY_ALIASES) {
      const id = m.get(category.toLowerCase());
      if (id !== undefined && !m.has(alias.toLowerCase())) m.set(alias.toLowerCase(), id);
    }
    idsByName.set(engine, m);
  }
  return m;
}

/** subtype: a row filter over the route's flow, case-insensitive. */
export function subtypeParam(flow: Flow, route: string): P<string> {
  const values = SUBTYPES[flow];
  const others = (Object.keys(SUBTYPES) as Flow[]).filter((f) => f !== flow);
  return {
    description: `Keep only rows of this ${flow} subtype (a filter applied after the query; provenance describes the query before it).`,
    schema: { type: 'string', enum: [...values] },
    allowed: listValues(values),
    parse(raw, name) {
      const v = values.find((s) => s === raw.toLowerCase());
      if (v) return v;
      const elsewhere = others.find((f) => SUBTYPES[f].includes(raw.toLowerCase()));
      if (elsewhere) throw apiError('E_BAD_VALUE', 'subtypeOtherFlow', { name, raw: clip(raw), other: elsewhere, route, flow, values: listValues(values), Other: cap(elsewhere), routes: FLOW_ROUTES[elsewhere] });
      throw apiError('E_BAD_VALUE', 'notOneOf', { name, values: listValues(values), raw: clip(raw) });
    },
  };
}

export const basisParam: P<'raw' | 'harmonized'> = {
  description: 'harmonized folds item codes across vintages (schema_version 5+); raw sums the published codes. meta.basis reports what was used.',
  schema: { type: 'string', enum: ['harmonized', 'raw'] },
  allowed: 'harmonized, raw',
  default: (ctx) => (ctx.catalog.rules.harmonized ? 'harmonized' : 'raw'),
  defaultText: 'harmonized on schema_version 5 or later; raw (with basis_note) on schema_version 4',
  parse(raw, name, ctx) {
    const v = raw.toLowerCase();
    if (v !== 'harmonized' && v !== 'raw') throw apiError('E_BAD_VALUE', 'notOneOf', { name, values: 'harmonized, raw', raw: clip(raw) });
    if (v === 'harmonized' && !ctx.catalog.rules.harmonized) {
      throw apiError('E_NOT_IN_CORPUS', 'harmonized', { version: ctx.catalog.manifest.schemaVersion });
    }
    return v;
  },
};

export function recipeParam(flows: Flow[], route: string): P<RecipeChoice> {
  return {
    description: 'A recipe id from /recipes: a multi-code series continuous across item-code vintages. Rows carry the recipe label as category and subtype recipe.',
    schema: { type: 'string', maxLength: 100 },
    allowed: 'a recipe_id from /recipes',
    example: 'ig_state_total_wide',
    parse(raw, name, ctx) {
      const index = ctx.catalog.recipes.findIndex((r) => r.recipe_id === raw.toLowerCase());
      if (index < 0) throw apiError('E_BAD_VALUE', 'unknownRecipe', { name, raw: clip(raw), ids: listValues(ctx.catalog.recipes.map((r) => r.recipe_id)) });
      const flow = ctx.recipeFlow[index];
      if (flow && !flows.includes(flow)) {
        throw apiError('E_BAD_VALUE', 'recipeOtherFlow', { name, raw, flowWord: FLOW_WORD[flow], route, Flow: cap(flow), routes: FLOW_ROUTES[flow] });
      }
      return { index, id: ctx.catalog.recipes[index]!.recipe_id };
    },
  };
}

const TOTAL_ONLY_HERE = '/governments/{govid}/spending';

/** expenditure_concept: total only where the route declares it (one government, so no double counting). */
export function expenditureConceptParam(allowTotal: boolean): P<keyof typeof EXPENDITURE_CONCEPTS> {
  const values = allowTotal ? (['primary', 'direct', 'total'] as const) : (['primary', 'direct'] as const);
  return enumParam<keyof typeof EXPENDITURE_CONCEPTS>({
    description:
      'primary = operations + capital + assistance; direct = primary + interest + insurance_benefits (Census Direct Expenditure)' +
      (allowTotal ? '; total = direct + intergovernmental payments (only here: one government cannot double-count transfers).' : '.'),
    values,
    default: 'primary',
    refuse: (raw, name) =>
      raw.toLowerCase() === 'total'
        ? apiError('E_BAD_VALUE', 'totalOnlyHere', { name, routes: TOTAL_ONLY_HERE })
        : apiError('E_BAD_VALUE', 'notOneOf', { name, values: listValues(values), raw: clip(raw) }),
  });
}

export const revenueConceptParam = enumParam<keyof typeof REVENUE_CONCEPTS>({
  description: 'general = own_source + federal + state + local_aid (the default); total = general + utility + liquor_store + insurance_trust.',
  values: ['general', 'total'],
  default: 'general',
});

export const adjustParam = (dflt: 'nominal' | 'real') =>
  enumParam({ description: 'real adds inflation-adjusted amounts (bundled CPI: FRED CPIAUCSL annual mean) in base_year dollars.', values: ['nominal', 'real'] as const, default: dflt });

export const baseYearParam: P<number> = {
  description: 'Dollars of this year for adjust=real.',
  schema: { type: 'string', pattern: '^\\d{4}$' },
  allowed: 'a four-digit year in the published range',
  default: (ctx) => ctx.catalog.maxYear,
  defaultText: 'the latest published year',
  parse(raw, name, ctx) {
    const { minYear, maxYear, cpi } = ctx.catalog;
    const y = Number(raw);
    if (!/^\d{4}$/.test(raw) || y < minYear || y > maxYear) throw apiError('E_BAD_VALUE', 'baseYear', { name, span: `${minYear}-${maxYear}`, raw: clip(raw) });
    if (!cpi.index.has(y)) throw apiError('E_BAD_VALUE', 'noCpi', { name, year: y });
    return y;
  },
};

export const perCapitaParam = (dflt: boolean) =>
  boolParam({ description: 'Add amounts per resident (per-year Census F-33 population of the corpus; pop_source census_f33).', default: dflt });

export const completeParam = boolParam({
  description: 'Fill the requested category x year grid from the corpus code set; every row gets value_source (reported, census_zero, not_reported). With category=All Categories the grid is subtype x year: a subtype no category summed is filled. Default false (meta.complete echoes it only when sent).',
});

export const moneyLimitParam = intParam({ description: 'Rows per page (default 1000, at most 1000; above is a 400, never clamped).', min: 1, max: 1000, default: 1000, capped: true });

export const perGovYearsParam = yearsParam({
  description: 'Fiscal years: a year, a list, an inclusive range, or a mix.',
  defaultText: 'every published year',
  default: (ctx) => ctx.catalog.years,
});

/** Keys some routes refuse with a message more useful than "unknown key". */
export const REJECT = {
  expenditure_concept: "expenditure_concept applies to spending only; revenue routes take revenue_concept (general, total) and /governments/{govid}/balances takes neither.",
  revenue_concept: 'revenue_concept applies to revenue only (and to the revenue rows of /profile).',
  complete: 'complete=true is available on /spending, /revenue, /governments/{govid}/spending and /governments/{govid}/revenue only.',
  year: "year (singular) is accepted only on /governments/{govid}/peers; use years (e.g. years=2019 or years=2011-2020).",
} as const;

/** The parameters the cross-parameter rules read, as the routes that use them parse them. */
export interface RuleParams {
  recipe?: RecipeChoice | undefined;
  category?: CategoryChoice | undefined;
  subtype?: string | undefined;
  complete?: boolean | undefined;
  expenditure_concept?: keyof typeof EXPENDITURE_CONCEPTS | undefined;
  revenue_concept?: keyof typeof REVENUE_CONCEPTS | undefined;
}

export type Rule = (p: RuleParams, ctx: FinanceCtx) => ApiError | undefined;


/** The spec's cross-parameter rules, each a small named check. */
export const RULES = {
  recipeVsCategory: ((p) => (p.recipe && p.category ? apiError('E_CONFLICT', 'recipeCategory') : undefined)),
  recipeVsSubtype: ((p) => (p.recipe && p.subtype ? apiError('E_CONFLICT', 'recipeSubtype') : undefined)),
  recipeVsComplete: ((p) => (p.recipe && p.complete === true ? apiError('E_CONFLICT', 'recipeComplete') : undefined)),
  recipeVsTotal: ((p) => (p.recipe && p.expenditure_concept === 'total' ? apiError('E_CONFLICT', 'recipeTotal') : undefined)),
  completeVsTotal: ((p) => (p.complete === true && p.expenditure_concept === 'total'
    ? apiError('E_CONFLICT', 'completeTotal')
    : undefined)),
  completeNeedsRepresentation: ((p, ctx) => (p.complete === true && !ctx.engine.hasRepresentation
    ? apiError('E_NOT_IN_CORPUS', 'representation', { version: ctx.catalog.manifest.schemaVersion })
    : undefined)),
  subtypeInExpenditureConcept: ((p) => {
    const s = p.subtype, concept = p.expenditure_concept ?? 'primary';
    if (s === undefined || (EXPENDITURE_CONCEPTS[concept] as readonly string[]).includes(s)) return undefined;
    const where = (Object.keys(EXPENDITURE_CONCEPTS) as (keyof typeof EXPENDITURE_CONCEPTS)[]).filter((k) => (EXPENDITURE_CONCEPTS[k] as readonly string[]).includes(s));
    return s === 'intergovernmental'
      ? apiError('E_BAD_VALUE', 'subtypeTotalOnly', { subtype: s, where: where.join(' or '), routes: TOTAL_ONLY_HERE, concept })
      : apiError('E_BAD_VALUE', 'subtypeConcept', { subtype: s, where: where.join(' or '), concept });
  }),
  subtypeInRevenueConcept: ((p) => {
    const s = p.subtype, concept = p.revenue_concept ?? 'general';
    if (s === undefined || (REVENUE_CONCEPTS[concept] as readonly string[]).includes(s)) return undefined;
    return apiError('E_BAD_VALUE', 'subtypeRevenueTotal', { subtype: s, concept });
  }),
  balancePair: ((p, ctx) => {
    const s = p.subtype, c = p.category;
    if (s === undefined || !c?.ids) return undefined;
    const subOf = ctx.catalog.categories.filter((r) => r.category_type === 'balance' && c.names.includes(r.category)).map((r) => r.subtype);
    return subOf.includes(s) ? undefined : apiError('E_BAD_VALUE', 'subtypeNotInCategory', { subtype: s, categories: c.names.join(', '), values: listValues(subOf) });
  }),
} satisfies Record<string, Rule>;
