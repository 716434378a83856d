// The school service's route table: from it come validation, /openapi.json,
// /__docs__/, llms.txt and the data dictionary, as on the finance service.

import { apiError } from '../../server/errors.js';
import { STATE_BY_CODE } from '../../geo/states.js';
import { required } from '../../server/params.js';
import { defineRoute, type FieldDoc, type RouteSpec } from '../../server/route-spec.js';
import type { ArrestsCtx } from '../context.js';
import { estimates, states } from './estimates.js';
import { arrestsDocs, districts, draws, health, models, root } from './info.js';
import { DISTRICT_ESTIMATES_QUERY, DISTRICTS_QUERY, DRAWS_QUERY, ESTIMATE_QUERY, LEAID_PATH, STATE_ESTIMATES_QUERY, STATE_PATH } from './queries.js';
import { docRoutes } from '../../server/doc-routes.js';
import { opsRoutes } from '../../server/ops-routes.js';
import { modelYearRule } from './params.js';
import { DEFAULT_MODEL } from '../models.js';

// The context's route table, which the docs, the dictionary and OpenAPI read: declared here, in the HTTP
// layer, so that the domain's context (../context.ts) names no HTTP type.
declare module '../context.js' {
  interface ArrestsCtx {
    routes: RouteSpec<ArrestsCtx>[];
  }
}

type Route = RouteSpec<ArrestsCtx>;
const route = defineRoute<ArrestsCtx>();
const V1 = '/api/v1';


const ESTIMATE_FIELDS: FieldDoc[] = [
  { name: 'leaid', type: 'string', description: 'District id (7 digits).' },
  { name: 'lea_name', type: 'string', description: 'District name.' },
  { name: 'state', type: 'string', description: 'State code.' },
  { name: 'state_name', type: 'string', description: 'State name.' },
  { name: 'lat', type: 'number|null', description: 'Latitude.' },
  { name: 'lon', type: 'number|null', description: 'Longitude.' },
  { name: 'race', type: 'string', description: 'AM, BL, HI or WH.' },
  { name: 'sex', type: 'string', description: 'F or M.' },
  { name: 'year', type: 'string', description: 'School year.' },
  { name: 'model', type: 'string', description: 'Model id.' },
  { name: 'interval', type: 'integer', description: 'Interval width of the lower/upper fields (50, 80, 95).' },
  { name: 'stu_enroll', type: 'integer|null', description: 'Students enrolled in the group.' },
  { name: 'observed_arrests', type: 'integer|null', description: 'Arrests reported (null where suppressed).' },
  { name: 'rate_median', type: 'number|null', description: 'count_median / stu_enroll.' },
  { name: 'rate_lower', type: 'number|null', description: 'count_lower / stu_enroll.' },
  { name: 'rate_upper', type: 'number|null', description: 'count_upper / stu_enroll.' },
  { name: 'count_median', type: 'number', description: 'Median of the predicted arrest count over the draws.' },
  { name: 'count_lower', type: 'number', description: 'Lower bound of the HPD interval.' },
  { name: 'count_upper', type: 'number', description: 'Upper bound of the HPD interval.' },
];
const STATE_FIELDS: FieldDoc[] = [
  { name: 'state', type: 'string', description: 'State code.' },
  { name: 'state_name', type: 'string', description: 'State name.' },
  ...ESTIMATE_FIELDS.filter((f) => ['race', 'sex', 'year', 'model', 'interval', 'stu_enroll', 'rate_median', 'rate_lower', 'rate_upper', 'count_median', 'count_lower', 'count_upper'].includes(f.name)),
];


const leaidInState = (p: { leaid?: number; state?: string }): Error | undefined => {
  if (p.leaid === undefined || p.state === undefined) return undefined;
  const fips = String(p.leaid).padStart(7, '0').slice(0, 2);
  return STATE_FIPS[p.state] === fips ? undefined : apiError('E_CONFLICT', 'leaidState', { leaid: String(p.leaid).padStart(7, '0'), state: p.state });
};
const STATE_FIPS: Record<string, string> = Object.fromEntries([...STATE_BY_CODE.values()].map((s) => [s.code, s.fips]));

const first = (ctx: ArrestsCtx) => ctx.districts[0]!;
/** The state the docs fill in where a state is required (the bundled mirror's first; leaid's example 1000047 is in it). Filters carry no example: the docs would narrow a search silently. */

export const arrestsRoutes: Route[] = [
  route({ id: 'root', path: `${V1}/`, tags: ['metadata'], produces: 'envelope', query: {}, summary: 'Metadata root', description: 'Scope of the mirror and the documentation links.',
    rowFields: [
      { name: 'service', type: 'string', description: 'The service.' }, { name: 'title', type: 'string', description: 'Its title.' },
      { name: 'scope', type: 'string', description: 'Districts, states, models and years of the mirror.' },
      { name: 'synthetic', type: 'boolean', description: 'True while the mirror is synthetic (its numbers describe nothing real).' },
      { name: 'links', type: 'object', description: 'llms, data_dictionary, docs, openapi.' },
    ],
    examples: () => [{ description: 'Scope and documentation links', path: `${V1}/` }], handle: root }),
  route({ id: 'health', path: `${V1}/health`, tags: ['metadata'], produces: 'envelope', query: {}, summary: 'Liveness and readiness', description: 'Answers 200 once the draws are summarised.', handle: health }),
  route({
    id: 'estimates', cacheable: true, path: `${V1}/estimates`, tags: ['estimates'], produces: 'envelope',
    summary: 'District estimates', description: 'District-level estimates filtered by leaid, state, race, sex and year, paged; ordered by leaid, race, sex, year.',
    query: DISTRICT_ESTIMATES_QUERY, rules: [modelYearRule, leaidInState], rowFields: ESTIMATE_FIELDS,
    examples: (ctx) => [{ description: 'Every district of a state, Black male students, 2021-22', path: `${V1}/estimates?state=${first(ctx).state}&race=BL&sex=M&year=21-22` }],
    handle: estimates,

  }),
  route({
    id: 'estimate', cacheable: true, path: `${V1}/estimates/{leaid}`, tags: ['estimates'], produces: 'envelope',
    summary: 'One district', description: "One district's estimates for every group and year of the model.",
    pathParams: LEAID_PATH, query: ESTIMATE_QUERY, rules: [modelYearRule], rowFields: ESTIMATE_FIELDS,
    examples: (ctx) => [{ description: 'One district, the default model', path: `${V1}/estimates/${first(ctx).leaid}` }],
    handle: estimates,
  }),
  route({
    id: 'states', cacheable: true, path: `${V1}/states`, tags: ['estimates'], produces: 'envelope',
    summary: 'State estimates', description: "State-level estimates: within each draw, the state's districts summed, then summarised.",
    query: STATE_ESTIMATES_QUERY, rules: [modelYearRule], rowFields: STATE_FIELDS,
    examples: () => [{ description: 'Every state of the mirror, 2021-22', path: `${V1}/states?year=21-22` }],
    handle: states,

  }),
  route({
    id: 'state', cacheable: true, path: `${V1}/states/{state}`, tags: ['estimates'], produces: 'envelope',
    summary: 'One state', description: "One state's estimates for every group and year of the model.",
    pathParams: STATE_PATH, query: ESTIMATE_QUERY, rules: [modelYearRule], rowFields: STATE_FIELDS,
    examples: (ctx) => [{ description: 'One state, 95% intervals', path: `${V1}/states/${first(ctx).state}` }],
    handle: states,

  }),
  route({
    id: 'districts', cacheable: true, path: `${V1}/districts`, tags: ['districts'], produces: 'envelope',
    summary: 'Find districts', description: 'Name and geography lookup returning leaid; q is a literal, case-insensitive substring of the name.',
    query: DISTRICTS_QUERY,
    rowFields: ESTIMATE_FIELDS.slice(0, 6),
    examples: () => [{ description: 'Districts with "county" in the name', path: `${V1}/districts?q=county` }],
    handle: districts,

  }),
  route({
    id: 'models', cacheable: true, path: `${V1}/models`, tags: ['models'], produces: 'envelope', query: {},
    summary: 'Models', description: 'The ten models: family, formula, description, the years each covers, and the default.',
    rowFields: [
      { name: 'model', type: 'string', description: 'Model id.' }, { name: 'family', type: 'string', description: 'unified or stratified.' },
      { name: 'years', type: 'array', description: 'School years the model was fit on.' }, { name: 'formula', type: 'string', description: 'Model formula.' },
      { name: 'description', type: 'string', description: 'What the model is.' }, { name: 'is_default', type: 'boolean', description: 'The API default (unified_m2).' },
      { name: 'partition', type: 'string', description: 'The model_id partition of its draws.' }, { name: 'years_in_mirror', type: 'array', description: 'Years with draws in this mirror.' },
    ],
    examples: () => [{ description: 'The models', path: `${V1}/models` }],
    handle: models,

  }),
  route({
    id: 'draws', cacheable: true, path: `${V1}/draws`, tags: ['draws'], produces: 'envelope',
    summary: 'Where the draws are', description: 'The parquet shard of a model, year and state on the mirror, with DuckDB SQL returning exactly the selected draws. Draws are never returned inline.',
    query: DRAWS_QUERY,
    rules: [modelYearRule, leaidInState],
    rowFields: [
      { name: 'parquet_url', type: 'string', description: 'The shard: {mirror}/parquet/model_id=<model>_mod/YEAR=<year>/LEA_STATE=<ST>/*.parquet.' },
      { name: 'duckdb_sql', type: 'string', description: 'Run as is in DuckDB: the selected draws.' },
      { name: 'dataset', type: 'string', description: 'The dataset name.' },
    ],
    examples: (ctx) => [{ description: 'Draws of one district, one group', path: `${V1}/draws?model=unified_m2&year=21-22&state=${first(ctx).state}&leaid=${first(ctx).leaid}&race=WH&sex=F` }],
    handle: draws,

  }),
  ...docRoutes<ArrestsCtx>(V1, arrestsDocs),
  ...opsRoutes<ArrestsCtx>('arrests'),
];
