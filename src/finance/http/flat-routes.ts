// Flat /spending and /revenue: many governments at once, selected by a govid
// list or by state and type, paged JSON or streamed CSV (format=csv).

import { ROWS_PER_TOKEN } from '../../server/rate-stage.js';
import { apiError, type ApiError } from '../../server/errors.js';
import { shortDigest } from '../../server/freshness.js';
import { FORMATS, PAGE_FORMATS, ROW_FORMATS, namesOf } from '../../server/formats.js';
import { defineRoute, envelopeReply, type QueryParams, type Reply, type RouteRequest, type RouteSpec } from '../../server/route-spec.js';
import { boolParam, defaulted, formatParam, intParam, withExample } from '../../server/params.js';
import { GOV_TYPES } from '../catalog.js';
import type { FinanceCtx } from '../context.js';
import { cohortOf } from '../cohort.js';
import { exampleGov } from './examples.js';
import { answer } from './money.js';
import { planOf } from '../plan-of.js';
import type { MoneyRoute } from '../money-table.js';
import {
  REJECT, RULES, adjustParam, baseYearParam, basisParam, categoryParam, completeParam, expenditureConceptParam, perCapitaParam,
  recipeParam, revenueConceptParam, subtypeParam,
} from './money-params.js';
import { moneyFields } from './money-routes.js';
import { govidListParam, pageParam, stateParam, typeParam, yearsParam } from './params.js';
import { countMoney, runMoney, runMoneyPage } from '../run-money.js';
import { isPageFormat, pageHeaders, pageMetadata, queryProvenance } from './page-formats.js';
import { cohortCoverage, coverageMeta, unitsHeaders } from '../coverage.js';
import { countOfSummary, type MoneyCount } from '../plan.js';
import { STATE_BY_FIPS } from '../../geo/states.js';
import { codingAtSource } from '../../server/compress.js';
import { indexedCount } from '../count-index.js';

type Route = RouteSpec<FinanceCtx>;
const route = defineRoute<FinanceCtx>();
const V1 = '/api/v1';

export const CSV_CAP = 50_000;
export const CSV_CAP_NARROW = 1000;
export const JSON_CAP = 1000;

export const latestYearParam = yearsParam({
  description: 'Fiscal years: a year, a list, an inclusive range, or a mix.',
  defaultText: 'the latest published year',
  default: (ctx) => [ctx.catalog.maxYear],
});

// The flat routes answer a page as the JSON envelope, or a bulk pull as CSV, Arrow or Parquet written by a worker.
const FLAT_FORMATS = ROW_FORMATS;
const flatFormatParam = formatParam(FLAT_FORMATS);
const FLAT_DESCRIPTION = `A flat slice over many governments, selected by govid list or by state and type; JSON pages, or ${namesOf(PAGE_FORMATS)} (format=${PAGE_FORMATS.join('|')}, or by Accept; up to 50,000 rows a request).`;

const flatLimitParam = intParam({
  description: `Rows per page. JSON: default and cap ${JSON_CAP}. ${namesOf(PAGE_FORMATS, 'and')}: default and cap ${CSV_CAP.toLocaleString('en-US')} (${CSV_CAP_NARROW} when subtype or recipe is set). Above the cap is a 400, never clamped.`,
  min: 1, max: CSV_CAP, capped: true,
});

const identityParam = boolParam({
  description: "Add who each row is, for pulls across states: state (USPS code), type (state, county, city or township) and population (the row's year's Census F-33 population; null when the corpus has none), after gov_name. Default false.",
});

/** The parameters of either flat route, as defineRoute infers them from its declarations (SPENDING_QUERY, REVENUE_QUERY below). */
type FlatParams = QueryParams<typeof SPENDING_QUERY> | QueryParams<typeof REVENUE_QUERY>;
type CapParams = Pick<FlatParams, 'format' | 'subtype' | 'recipe'>;

/** The cap depends on the format and on subtype/recipe, so it is a rule over the parsed values. */
export const limitForFormat = (p: CapParams & { limit?: number }): ApiError | undefined => {
  const cap = capOf(p);
  const limit = p.limit;
  if (limit !== undefined && limit > cap) {
    const why = isPageFormat(p.format) ? (cap === CSV_CAP_NARROW ? `format=${p.format} with subtype or recipe` : `format=${p.format}`) : 'JSON';
    return apiError('E_LIMIT_CAP', 'formatCap', { max: cap, why, value: limit });
  }
  return undefined;
};
const capOf = (p: CapParams): number => (isPageFormat(p.format) ? (p.subtype !== undefined || p.recipe !== undefined ? CSV_CAP_NARROW : CSV_CAP) : JSON_CAP);

/**
 * The spec selects "by govid ... or state plus type": one or the other. Both at once left an id the
 * cohort filtered out in neither govids_found nor govids_missing, and data: [] for a government that
 * reported (issue 22, item 1), so the pair is a 400 naming both keys, as /rollups does for state with govids.
 */
const govidOrCohort = (p: Pick<FlatParams, 'govid' | 'state' | 'type'>): ApiError | undefined => {
  if (p.govid === undefined || (p.state === undefined && p.type === undefined)) return undefined;
  const other = p.state !== undefined && p.type !== undefined ? 'state and type' : p.state !== undefined ? 'state' : 'type';
  return apiError('E_CONFLICT', 'govidCohort', { other, select: other.includes(' and ') ? 'select' : 'selects' });
};

const needsSelection = (p: Pick<FlatParams, 'govid' | 'state' | 'type'>): ApiError | undefined =>
  p.govid === undefined && p.state === undefined && p.type === undefined
    ? apiError('E_MISSING', 'selectGovernments')
    : undefined;

/**
 * A query's identity for its row count: the digest of every parameter but the page, its size and the format.
 * A fixed 27 characters whatever the query (a list of 600 govids included), so the memo's size is its count of entries.
 */
function countKey(route: MoneyRoute, params: FlatParams): string {
  const { page: _page, limit: _limit, format: _format, ...rest } = params;
  return shortDigest(`${route.verb}?${JSON.stringify(rest)}`);
}

/** Counts kept: a 27-character key, the total and two numbers a requested year (at most 58), so under 10 MB a thread. */
export const COUNTS_KEPT = 10_000;
function rememberCount(counts: Map<string, MoneyCount>, key: string, count: MoneyCount): void {
  if (counts.size >= COUNTS_KEPT) counts.delete(counts.keys().next().value!);
  counts.set(key, count);
}

/** What a flat request costs its client (rate-stage.ts): 1, and 1 more per ROWS_PER_TOKEN rows it asks (a 50,000-row page: 6). */
const flatCost = (p: FlatParams): number => 1 + Math.floor((p.limit ?? capOf(p)) / ROWS_PER_TOKEN);

function flatHandler(route: MoneyRoute) {
  return async (req: RouteRequest<FinanceCtx, FlatParams>): Promise<Reply> => {
    const { ctx } = req;
    const params = { ...req.params, limit: req.params.limit ?? capOf(req.params) };
    const { govid: list, state: fips, type } = params;
    const typeNo = type === undefined ? -1 : GOV_TYPES.indexOf(type);
    const match = (gid: number): boolean => {
      const g = ctx.catalog.governments[gid]!;
      return (fips === undefined || g.fips_state === fips) && (typeNo < 0 || g.type === typeNo);
    };
    const gids = list ? list.gids.filter(match) : cohortOf(ctx, fips, typeNo);
    const plan = planOf(ctx, route, { gids, years: params.years, params });

    const format = params.format;
    if (isPageFormat(format)) {
      // A bulk page's provenance is the query's (page-formats.ts), so once a query's count is known its pages need only walk to their end.
      const key = countKey(route, params);
      const known = ctx.counts.get(key);
      // Coverage headers on a cohort (state and/or type), as meta has them on its JSON answer.
      const headers = (count: MoneyCount): Record<string, string> => ({
        ...pageHeaders(route, req.url, count.total, params, format), ...(list ? {} : unitsHeaders(ctx.catalog, gids, plan.years, count)),
      });
      // HEAD sends the headers only: the total, counted (or remembered), never a page written.
      if (req.head) {
        const count = known ?? indexedCount(ctx, plan) ?? (await countMoney(ctx, plan, req.signal));
        if (known === undefined) rememberCount(ctx.counts, key, count);
        return { kind: 'stream', format, headers: headers(count), next: () => null };
      }
      const metadata = FORMATS[format].carriesMeta ? pageMetadata(queryProvenance(ctx, route, req.url, params)) : [];
      // A page worth compressing, in a coding the workers write (gzip, br), is coded by its worker as it is written: never on this thread.
      const coding = codingAtSource(req.encoding, FORMATS[format].mediaType);
      const page = await runMoneyPage(ctx, plan, route, params, { format, metadata, coding }, known, req.signal);
      if (known === undefined) rememberCount(ctx.counts, key, page.count);
      return { kind: 'stream', format, headers: headers(page.count), next: page.next, done: page.release, ...(coding !== undefined ? { encoded: coding.coding } : {}) };
    }
    const res = await runMoney(ctx, plan, req.signal);
    const found = list ? list.found.filter((id) => match(ctx.catalog.govId.get(id)!)) : [];
    const silent = new Set(res.summary.govsWithoutRows.map((g) => ctx.catalog.governments[g]!.canonical_govid));
    const state = fips === undefined ? null : STATE_BY_FIPS.get(fips)?.code ?? fips;
    const cohort = list ? undefined : { state, type: type ?? null, n_governments: gids.length };
    return envelopeReply(answer(ctx, route, { url: req.url, params }, res, plan, {
      govids: found,
      govNames: [],
      perGovernment: false,
      cohort: list ? undefined : { ...(fips !== undefined ? { fips_state: fips } : {}), ...(typeNo >= 0 ? { type: typeNo } : {}) },
      govidsMissing: list ? [...list.unknown, ...found.filter((id) => silent.has(id))] : undefined,
      scopeCohort: cohort,
      target: cohort,
      meta: {
        ...(list !== undefined ? { govid: found } : {}),
        ...(fips !== undefined ? { state: STATE_BY_FIPS.get(fips)?.code } : {}),
        ...(type !== undefined ? { type } : {}),
        ...(params.format !== undefined ? { format: params.format } : {}),
        // A cohort's coverage (issue 22, item 7): how many of its units reported, so a ranking says of how many.
        ...(list ? {} : coverageMeta(cohortCoverage(ctx.catalog, gids, plan.years, countOfSummary(ctx.engine, plan.years, res.total, res.summary)))),
      },
    }));
  };
}

const flatSpending: MoneyRoute = { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false };
const flatRevenue: MoneyRoute = { verb: 'revenue', flows: ['revenue'], subtypeField: 'revenue_subtype', withFlow: false };

// govid and state/type exclude each other: the docs fill in state and type, so govid carries no example here.
const selection = { govid: withExample(govidListParam, undefined), state: stateParam, type: typeParam };
const common = {
  years: latestYearParam, adjust: adjustParam('nominal'), base_year: defaulted(baseYearParam), per_capita: perCapitaParam(false),
  basis: defaulted(basisParam), complete: completeParam, identity: identityParam, format: flatFormatParam, limit: flatLimitParam, page: pageParam,
};
// recipe and category exclude each other: the docs fill in category, so recipe carries no example.
const recipeOf = (flow: 'expenditure' | 'revenue', path: string) => withExample(recipeParam([flow], path), undefined);

const SPENDING_QUERY = {
  ...selection, ...common,
  category: categoryParam({ flows: ['expenditure'], route: '/spending' }),
  subtype: subtypeParam('expenditure', '/spending'),
  recipe: recipeOf('expenditure', '/spending'),
  expenditure_concept: expenditureConceptParam(false),
};
const REVENUE_QUERY = {
  ...selection, ...common,
  category: categoryParam({ flows: ['revenue'], route: '/revenue' }),
  subtype: subtypeParam('revenue', '/revenue'),
  recipe: recipeOf('revenue', '/revenue'),
  revenue_concept: revenueConceptParam,
};

export const flatRoutes: Route[] = [
  route({
    id: 'spending', cacheable: true, path: `${V1}/spending`, tags: ['fleet'], produces: 'envelope', formats: FLAT_FORMATS, cost: flatCost,
    summary: 'Spending of many governments', description: FLAT_DESCRIPTION,
    query: SPENDING_QUERY,
    rejects: { revenue_concept: REJECT.revenue_concept, year: REJECT.year },
    rules: [needsSelection, govidOrCohort, limitForFormat, RULES.recipeVsCategory, RULES.recipeVsSubtype, RULES.recipeVsComplete, RULES.completeNeedsRepresentation, RULES.subtypeInExpenditureConcept],
    rowFields: moneyFields('spend_subtype', [], true, { identity: true }),
    examples: (ctx) => [
      { description: 'Two governments side by side, police', path: `${V1}/spending?govid=${exampleGov(ctx, 1)},${exampleGov(ctx, 2)}&category=Police&years=${ctx.catalog.years.join(',')}` },
      { description: "A state's cities, police spending, as CSV", path: `${V1}/spending?state=CA&type=city&category=Police&format=csv` },
    ],
    handle: flatHandler(flatSpending),
  }),
  route({
    id: 'revenue', cacheable: true, path: `${V1}/revenue`, tags: ['fleet'], produces: 'envelope', formats: FLAT_FORMATS, cost: flatCost,
    summary: 'Revenue of many governments', description: FLAT_DESCRIPTION,
    query: REVENUE_QUERY,
    rejects: { expenditure_concept: REJECT.expenditure_concept, year: REJECT.year },
    rules: [needsSelection, govidOrCohort, limitForFormat, RULES.recipeVsCategory, RULES.recipeVsSubtype, RULES.recipeVsComplete, RULES.completeNeedsRepresentation, RULES.subtypeInRevenueConcept],
    rowFields: moneyFields('revenue_subtype', [], true, { identity: true }),
    examples: () => [
      { description: "Texas counties' property tax", path: `${V1}/revenue?state=TX&type=county&category=Property%20Tax` },
      { description: "Every city's revenue of the latest year as Parquet, with state, type and population on each row", path: `${V1}/revenue?type=city&identity=true&format=parquet` },
    ],
    handle: flatHandler(flatRevenue),
  }),
];
