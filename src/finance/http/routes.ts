// The finance route table. Each entry declares its path, parameters, row
// fields and examples; validation, /openapi.json, /__docs__/, llms.txt and
// the data dictionary are all derived from it.

import { defineRoute, type RouteSpec } from '../../server/route-spec.js';
import type { FinanceCtx } from '../context.js';
import { GOVERNMENT_PATH, GOVERNMENTS_QUERY, getGovernment, listGovernments } from './governments.js';
import { health, root } from './info.js';
import { docRoutes } from '../../server/doc-routes.js';
import { opsRoutes } from '../../server/ops-routes.js';
import { financeDocs } from './docs.js';
import { CATEGORIES_QUERY, RECIPES_QUERY, listCategories, listRecipes } from './taxonomy.js';
import { moneyRoutes } from './money-routes.js';
import { flatRoutes } from './flat-routes.js';
import { rollupsRoute } from './rollups.js';
import { peerRoutes } from './peers.js';
import { exampleGov } from './examples.js';
import { bulkRoutes } from './bulk-routes.js';

// The context's route table, which the docs, the dictionary and OpenAPI read: declared here, in the HTTP
// layer, so that the domain's context (../context.ts) names no HTTP type.
declare module '../context.js' {
  interface FinanceCtx {
    routes: RouteSpec<FinanceCtx>[];
  }
}

type Route = RouteSpec<FinanceCtx>;
const route = defineRoute<FinanceCtx>();

const V1 = '/api/v1';

const GOV_FIELDS = [
  { name: 'canonical_govid', type: 'string', description: '12-digit canonical government id.' },
  { name: 'gov_name', type: 'string', description: 'Government name as the registry spells it.' },
  { name: 'type', type: 'integer', description: '0 state, 1 county, 2 city (municipality), 3 township.' },
  { name: 'type_label', type: 'string', description: 'state, county, city or township.' },
  { name: 'fips_state', type: 'string', description: 'Two-digit state FIPS code.' },
  { name: 'state', type: 'string|null', description: 'Two-letter USPS state code.' },
  { name: 'fips_county', type: 'string|null', description: 'Three-digit county FIPS code (present geography).' },
  { name: 'fips_place', type: 'string|null', description: 'Five-digit place FIPS code, for cities and townships.' },
  { name: 'population_acs', type: 'integer|null', description: 'Population from the ACS 5-year estimate the registry carries; orders the list.' },
  { name: 'first_year', type: 'integer|null', description: 'First fiscal year the government appears in the full corpus.' },
  { name: 'last_year', type: 'integer|null', description: 'Last fiscal year the government appears in the full corpus.' },
  { name: 'years_in_mirror', type: 'array', description: 'Loaded fiscal years in which the government has rows.' },
];

export const financeRoutes: Route[] = [
  route({
    id: 'root', path: `${V1}/`, tags: ['metadata'], produces: 'envelope', query: {},
    summary: 'Metadata root', description: 'Scope of the corpus (published years and holes) and the four documentation links.',
    rowFields: [
      { name: 'service', type: 'string', description: 'The service.' },
      { name: 'title', type: 'string', description: 'Its title.' },
      { name: 'scope', type: 'string', description: 'Published fiscal years and the years with no source data.' },
      { name: 'published_years', type: 'array', description: 'The published years (a set, not a span).' },
      { name: 'holes', type: 'array', description: 'Years inside the span with no source data.' },
      { name: 'schema_version', type: 'integer', description: 'The corpus schema version of the loaded mirror (6 for the bundled one).' },
      { name: 'links', type: 'object', description: 'llms, data_dictionary, docs and openapi; docs and openapi are at the server root, outside /api/v1.' },
      { name: 'attribution', type: 'string', description: 'Sources and licences.' },
    ],
    examples: () => [{ description: 'Scope and documentation links', path: `${V1}/` }],
    handle: root,
  }),
  route({
    id: 'health', path: `${V1}/health`, tags: ['metadata'], produces: 'envelope', query: {},
    summary: 'Liveness and readiness', description: 'Answers 200 once the corpus is loaded and verified.',
    handle: health,
  }),
  route({
    id: 'governments', cacheable: true, path: `${V1}/governments`, tags: ['governments'], produces: 'envelope',
    // No state example: the docs would fill it in, and a search would silently answer one state's governments.
    query: GOVERNMENTS_QUERY,
    summary: 'Find governments', description: 'Resolves names to canonical_govid. Registry rows ordered by population, largest first; q is a literal, case-insensitive substring of gov_name.',
    rowFields: GOV_FIELDS,
    examples: () => [
      { description: 'Cities named like Springfield', path: `${V1}/governments?q=springfield&type=city` },
      { description: 'The largest counties of California', path: `${V1}/governments?state=CA&type=county&limit=10` },
    ],
    handle: listGovernments,
  }),
  route({
    id: 'government', cacheable: true, path: `${V1}/governments/{govid}`, tags: ['governments'], produces: 'envelope',
    pathParams: GOVERNMENT_PATH, query: {},
    summary: 'One government', description: 'Identity and lifespan of one government: registry record, former ids, lineage events and its rows and population in each loaded year.',
    rowFields: [
      ...GOV_FIELDS,
      { name: 'census_geoid', type: 'string|null', description: 'The Census GEOID of its area (state, county or place), where the registry has one.' },
      { name: 'pop_confidence', type: 'string|null', description: 'How the registry matched population_acs to the government: exact, or unresolved (no match).' },
      { name: 'legacy_govs_id', type: 'string|null', description: 'Its 9-digit id in the Census\'s older government ids, where it has one.' },
      { name: 'id_source', type: 'string|null', description: 'Where the registry took its canonical id from: census_pid (the Census\'s own), or corpus_assigned.' },
      { name: 'former_ids', type: 'array', description: 'Former 12-digit ids that now resolve to this government.' },
      { name: 'lineage', type: 'array', description: 'Consolidation events naming this government.' },
      { name: 'by_year', type: 'array', description: 'Per loaded year: rows, aggregate_rows, population and popyear of the long table.' },
    ],
    examples: (ctx) => [0, 1, 2, 3].flatMap((t) => {
      const id = exampleGov(ctx, t);
      return id ? [{ description: `The most populous ${['state', 'county', 'city', 'township'][t]} with data in ${ctx.catalog.maxYear}`, path: `${V1}/governments/${id}` }] : [];
    }),
    handle: getGovernment,
  }),
  ...moneyRoutes,
  ...peerRoutes,
  ...flatRoutes,
  rollupsRoute,
  route({
    id: 'categories', cacheable: true, path: `${V1}/categories`, tags: ['taxonomy'], produces: 'envelope',
    query: CATEGORIES_QUERY,
    summary: 'Category dictionary', description: 'Categories with category_type and subtype, and the item codes each groups. All Categories is reserved and not listed.',
    rowFields: [
      { name: 'category', type: 'string', description: 'Category name (function).' },
      { name: 'category_type', type: 'string', description: 'expenditure, revenue or balance.' },
      { name: 'subtype', type: 'string', description: 'Economic character: spend_subtype, revenue_subtype or balance_subtype.' },
      { name: 'n_codes', type: 'integer', description: 'Number of item codes.' },
      { name: 'item_codes', type: 'array', description: 'Census item codes in the category and subtype.' },
    ],
    examples: () => [{ description: 'Spending categories', path: `${V1}/categories?type=spending` }],
    handle: listCategories,
  }),
  route({
    id: 'recipes', cacheable: true, path: `${V1}/recipes`, tags: ['taxonomy'], produces: 'envelope',
    query: RECIPES_QUERY,
    summary: 'Recipe catalog', description: "Cross-vintage recipes: the corpus's harmonization_recipes plus the service's whole-leg intergovernmental revenue recipes.",
    rowFields: [
      { name: 'recipe_id', type: 'string', description: 'Recipe id, for recipe=.' },
      { name: 'label', type: 'string', description: 'What the series is.' },
      { name: 'n_components', type: 'integer', description: 'Number of component rows.' },
      { name: 'year_min', type: 'integer', description: 'First year any component covers.' },
      { name: 'year_max', type: 'integer', description: 'Last year any component covers.' },
      { name: 'source', type: 'string', description: 'corpus (harmonization_recipes) or service (defined by this service).' },
      { name: 'components', type: 'array', description: 'component_code, gov_type_scope, year_min, year_max, weight, source_break_ids, notes.' },
      { name: 'supersedes', type: 'array', description: 'Recipes this one makes redundant as a suggestion (a whole leg covers its residual parts).' },
    ],
    examples: () => [{ description: 'Intergovernmental revenue recipes', path: `${V1}/recipes?pattern=ig_` }],
    handle: listRecipes,
  }),
  ...bulkRoutes,
  ...docRoutes<FinanceCtx>(V1, (ctx) => financeDocs(ctx.catalog, ctx.govYears)),
  ...opsRoutes<FinanceCtx>('finance'),
];
