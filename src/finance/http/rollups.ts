// /rollups: one layer of government (states, counties or cities), in a state,
// in a govid list, or nationwide: one row per government per subtype (and
// category), with reporting coverage per year.

import { apiError, listValues, type ApiError } from '../../server/errors.js';
import { defaulted, enumParam, required, withExample } from '../../server/params.js';
import { defineRoute, envelopeReply, type QueryParams, type Reply, type RouteRequest, type RouteSpec } from '../../server/route-spec.js';
import { STATE_BY_FIPS } from '../../geo/states.js';
import { GOV_TYPES } from '../catalog.js';
import type { FinanceCtx } from '../context.js';
import { coverageMeta, coverageRows, expectedByRegistry } from '../coverage.js';
import { censusYearsRule, coverageParam, coverageYearsParam } from './coverage-params.js';
import { answer } from './money.js';
import { corpusBasis, planOf } from '../plan-of.js';
import type { MoneyRoute } from '../money-table.js';
import { REJECT, adjustParam, baseYearParam, categoryParam, expenditureConceptParam, moneyLimitParam, perCapitaParam } from './money-params.js';
import { EVERY_CATEGORY } from '../money-choices.js';
import { cohortOf } from '../cohort.js';
import { moneyFields } from './money-routes.js';
import { govidListParam, pageParam, stateParam, type GovidList } from './params.js';
import { runMoney } from '../run-money.js';

const LAYERS = ['state', 'county', 'city'] as const;
type Layer = (typeof LAYERS)[number];

const layerParam = required(
  withExample(enumParam({
    description: 'Which layer of government: state, county or city. Required.',
    values: LAYERS,
    refuse: () => apiError('E_BAD_VALUE', 'mustBeOneOf', { name: 'layer', values: listValues(LAYERS) }),
  }), 'county'),
  () => apiError('E_MISSING', 'mustBeOneOf', { name: 'layer', values: listValues(LAYERS) }),
);

const SCOPE_NOTE: Record<Layer, string> = {
  state: 'state government totals; not limited to the geography served by a listed county or city',
  county: 'county government totals; they include areas outside any city in the county',
  city: 'city governments proper; special districts in the same area are not included',
};

const stateOrGovids = (p: { state?: string; govids?: GovidList }): ApiError | undefined =>
  (p.state !== undefined && p.govids !== undefined ? apiError('E_CONFLICT', 'stateGovids') : undefined);

/** A named government of another layer is refused, never dropped: a silently shorter answer reads as complete. */
const govidsInLayer = (p: { layer: string; govids?: GovidList }, ctx: FinanceCtx): ApiError | undefined => {
  const type = GOV_TYPES.indexOf(p.layer as never);
  const other = p.govids?.gids.find((gid) => ctx.catalog.governments[gid]!.type !== type);
  if (other === undefined) return undefined;
  const g = ctx.catalog.governments[other]!;
  return apiError('E_BAD_VALUE', 'govidNotInLayer', { name: 'govids', govid: g.canonical_govid, govName: g.gov_name, type: GOV_TYPES[g.type] ?? String(g.type), layer: p.layer });
};

const rollupRoute: MoneyRoute = { verb: 'rollups', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false };

const ROLLUP_QUERY = {
  layer: layerParam,
  category: categoryParam({ flows: ['expenditure'], route: '/rollups' }),
  // state and govids exclude each other: the docs fill in state, so govids carries no example here.
  state: stateParam, govids: withExample(govidListParam, undefined),
  years: coverageYearsParam, coverage: coverageParam,
  expenditure_concept: expenditureConceptParam(false),
  adjust: adjustParam('nominal'), base_year: defaulted(baseYearParam), per_capita: perCapitaParam(false),
  limit: moneyLimitParam, page: pageParam,
};
type RollupParams = QueryParams<typeof ROLLUP_QUERY>;

async function rollups(req: RouteRequest<FinanceCtx, RollupParams>): Promise<Reply> {
  const { ctx } = req;
  const params = { ...req.params, basis: corpusBasis(ctx), category: req.params.category ?? EVERY_CATEGORY };
  const { layer, state: fips, govids: list, years } = params;
  const type = GOV_TYPES.indexOf(layer);
  // The route's rules have refused a named government of another layer (govidsInLayer) and govids beside state.
  const gids = list ? list.gids : cohortOf(ctx, fips, type);
  const plan = {
    ...planOf(ctx, rollupRoute, { gids, years, params }),
    consistent: params.coverage === 'consistent',
    dropNoPopulation: params.per_capita,
  };
  const res = await runMoney(ctx, plan, req.signal);

  const expected = expectedByRegistry(ctx.catalog, gids, res.summary.yearsPresent);
  const coverage = coverageRows(plan.years, res.summary.reporting, expected);
  const fipsOf = (i: number) => ctx.catalog.governments[res.rows.gov[i]!]!.fips_state;
  const state = fips === undefined ? undefined : STATE_BY_FIPS.get(fips)?.code;
  return envelopeReply(answer(ctx, rollupRoute, { url: req.url, params }, res, plan, {
    govids: list ? list.found : [],
    govNames: [],
    perGovernment: false,
    cohort: list ? undefined : { type, ...(fips !== undefined ? { fips_state: fips } : {}) },
    // fips_county joins a row to the Census's county boundaries (the explorer's map): state + county is the county's GEOID.
    extraColumns: [{ name: 'fips_state', get: fipsOf }, { name: 'fips_county', get: (i) => ctx.catalog.governments[res.rows.gov[i]!]!.fips_county }],
    target: { layer, state: fips === undefined ? null : state, govids: list?.found ?? null, n_governments: gids.length },
    provenance: {
      coverage_mode: params.coverage,
      coverage,
      rollup: {
        layer,
        scope_note: SCOPE_NOTE[layer],
        excluded_inconsistent: res.summary.inconsistentGovs.map((g) => ctx.catalog.governments[g]!.canonical_govid),
        excluded_no_population: res.summary.noPopulationGovs.map((g) => ctx.catalog.governments[g]!.canonical_govid),
      },
    },
    meta: { layer, coverage: params.coverage, ...coverageMeta(coverage), ...(fips !== undefined ? { state } : {}) },
  }));
}

export const rollupsRoute: RouteSpec<FinanceCtx> = defineRoute<FinanceCtx>()({
  id: 'rollups', cacheable: true, path: '/api/v1/rollups', tags: ['fleet'], produces: 'envelope',
  summary: 'A layer of governments', description: 'Spending of every government of one layer (state, county, city), in a state, a govid list or nationwide: one row per government per subtype, summed across categories unless a category is named. Carries reporting coverage per year.',
  query: ROLLUP_QUERY,
  rejects: {
    basis: 'basis is not a parameter of /rollups (it uses the corpus default basis).', recipe: 'recipe is not available on /rollups.',
    complete: REJECT.complete, revenue_concept: REJECT.revenue_concept, year: REJECT.year,
  },
  rules: [stateOrGovids, govidsInLayer, censusYearsRule],
  rowFields: moneyFields('spend_subtype', [
    { name: 'fips_state', type: 'string', description: 'Two-digit state FIPS code of the government.' },
    { name: 'fips_county', type: 'string|null', description: "Three-digit county FIPS code: a county's own, or the county a city or township lies in ('000' for a state government; null where the registry has none). fips_state + fips_county is the Census county GEOID." },
  ], false),
  examples: () => [
    { description: 'Every county of California, all categories, by subtype', path: '/api/v1/rollups?layer=county&state=CA' },
    { description: 'Cities nationwide, police', path: '/api/v1/rollups?layer=city&category=Police' },
  ],
  handle: rollups,
});
