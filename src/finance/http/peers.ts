// /governments/{govid}/peers and /governments/{govid}/peer-comparison.
//
// The cohort rule (after the reference client's cog_find_peers): governments
// of the same type whose population in the cohort year is within 0.7 to 1.3
// times the target's, the n closest by |ln(population ratio)|, ties by
// canonical_govid. Where that window holds fewer than n (the largest
// governments: no county is within 0.7-1.3 of Los Angeles County), it widens
// step by step (POP_WINDOWS) until one holds n or every government of the
// type is in; meta says which window was used. The cohort year is the
// requested year, or the latest year in which the target has a population
// (the latest census year under coverage=census).

import { apiError } from '../../server/errors.js';
import { ok } from '../../server/envelope.js';
import { defaulted, intParam, required, withExample } from '../../server/params.js';
import { rowObjects, type ColumnTable } from '../../bytes/column-table.js';
import { defineRoute, envelopeReply, type ParamSpec, type QueryParams, type Reply, type RouteRequest, type RouteSpec } from '../../server/route-spec.js';
import { STATE_BY_FIPS } from '../../geo/states.js';
import type { FinanceCtx } from '../context.js';
import { coverageMeta, coverageRows, isCensusYear } from '../coverage.js';
import { censusYearsRule, coverageParam, coverageYearsParam } from './coverage-params.js';
import { exampleGov } from './examples.js';
import { answer } from './money.js';
import { POP_RANGE, POP_WINDOWS, peerCohort, peersSql, type Cohort } from '../peer-cohort.js';
import { corpusBasis, planOf } from '../plan-of.js';
import { moneyTable, tableOptions, type MoneyRoute } from '../money-table.js';
import { REJECT, adjustParam, baseYearParam, categoryParam, expenditureConceptParam, moneyLimitParam } from './money-params.js';
import { ALL_CATEGORIES } from '../money-choices.js';
import { ALL_CATEGORIES_ID } from '../plan.js';
import { moneyFields } from './money-routes.js';
import { moneyJob } from '../run-money.js';
import { govidPath, pageParam } from './params.js';
import { manifestBlock } from '../provenance.js';
import { parseYears } from './years.js';

/** A window as JSON shows it: its bounds rounded, an unbounded top as null. */
const windowJson = (w: readonly [number, number]): [number, number | null] => [Math.round(w[0] * 1000) / 1000, Number.isFinite(w[1]) ? w[1] : null];
const windowText = (w: readonly [number, number]): string => (Number.isFinite(w[1]) ? `within ${windowJson(w)[0]}-${w[1]} times the target's` : 'of any size');
export const PEERS_DEFAULT = 10;
export const PEERS_MAX = 50;
const route = defineRoute<FinanceCtx>();

const yearParam: ParamSpec<FinanceCtx, number> = {
  description: 'The cohort year (singular; only on this route): peers are matched on population in this year.',
  schema: { type: 'string', pattern: '^\\d{4}$' },
  allowed: 'one published year',
  defaultText: 'the latest year in which the target has a population (the latest census year with coverage=census)',
  parse(raw, _name, ctx) {
    if (raw.includes(',') || raw.includes('-')) throw apiError('E_BAD_VALUE', 'oneYearOnPeers');
    return parseYears(raw, ctx.catalog)[0]!;
  },
};

const nParam = intParam({ description: `How many peers (default ${PEERS_DEFAULT}, at most ${PEERS_MAX}).`, min: 1, max: PEERS_MAX, default: PEERS_DEFAULT });

type PeersParams = QueryParams<typeof PEERS_QUERY, typeof PEER_PATH>;

/** What meta says of the window the cohort came from. */
const windowMeta = (c: Cohort) => ({ pop_range: windowJson(c.window), pop_window_step: c.step, pop_range_default: POP_RANGE, pop_range_widened: c.step > 0 });

const cohortRule = (c: Cohort): string =>
  `same type, population in ${c.year} ${windowText(c.window)}${c.step > 0 ? ` (widened from ${POP_RANGE[0]}-${POP_RANGE[1]}, which held fewer peers than asked)` : ''}, closest by |ln(population ratio)|, ties by canonical_govid`;

/**
 * An empty cohort's suggestion (the spec's suggestion shape, no recipe): the other years in which the target
 * has a population, so that following it cannot land on "has no population in that year".
 */
export function emptyCohortSuggestions(ctx: FinanceCtx, gid: number, c: Cohort, withPopulation: number[]): unknown[] {
  if (c.gids.length > 0) return [];
  const g = ctx.catalog.governments[gid]!;
  const others = withPopulation.filter((y) => y !== c.year);
  return [{
    recipe_id: null, label: 'another cohort year', available_years: others.length ? [Math.min(...others), Math.max(...others)] : [],
    hint: `No other ${g.type_label} government has a population in ${c.year}, so ${g.canonical_govid} has no peers that year${others.length ? `; try year=${others[others.length - 1]} (it has a population in ${others.join(', ')})` : ''}.`,
  }];
}

/** The suggestions of an answer: none while the cohort has peers; else the years to try, read from the target's history. */
async function suggestionsFor(ctx: FinanceCtx, gid: number, c: Cohort, signal: AbortSignal): Promise<unknown[]> {
  if (c.gids.length > 0) return [];
  const hist = await ctx.pool.run('governmentYears', { gid }, signal);
  return emptyCohortSuggestions(ctx, gid, c, Array.from(hist.years).filter((_, k) => hist.population[k]! > 0));
}

async function peersHandler(req: RouteRequest<FinanceCtx, PeersParams>): Promise<Reply> {
  const { ctx, params } = req;
  const { govid: gid, n } = params;
  const c = await peerCohort(ctx, gid, params.year, params.coverage, n, req.signal);
  const g = ctx.catalog.governments[gid]!;
  const rows = c.gids.map((p, k) => {
    const peer = ctx.catalog.governments[p]!;
    return {
      rank: k + 1, canonical_govid: peer.canonical_govid, gov_name: peer.gov_name, type: peer.type, type_label: peer.type_label,
      fips_state: peer.fips_state, state: STATE_BY_FIPS.get(peer.fips_state)?.code ?? null,
      population: c.population[k], pop_ratio: c.population[k]! / c.targetPopulation, cohort_year: c.year,
    };
  });
  const meta = {
    total: rows.length, cohort_year: c.year, n, ...windowMeta(c), coverage: params.coverage, target_population: c.targetPopulation,
    n_units_expected: n, n_units_reporting: rows.length, is_census_year: isCensusYear(c.year),
  };
  const provenance = {
    verb: 'peers', call: req.url,
    target: { canonical_govid: g.canonical_govid, gov_name: g.gov_name, type: g.type, population: c.targetPopulation },
    years: [c.year],
    scope: { govids_found: [g.canonical_govid] },
    cohort_rule: cohortRule(c),
    coverage_mode: params.coverage,
    manifest: manifestBlock(ctx),
    sql_query: peersSql(ctx, gid, c, n),
  };
  return envelopeReply(ok(rows, meta, provenance, await suggestionsFor(ctx, gid, c, req.signal)));
}

const NON_ADDITIVE = 'Peer percentile of per-capita dollars in this (year, subtype, category) cell only: not additive across categories, subtypes or years.';
const SUMMARY = [['summary_p25', 'Peer P25', 'p25'], ['summary_p50', 'Peer median', 'p50'], ['summary_p75', 'Peer P75', 'p75']] as const;
const comparisonRoute: MoneyRoute = { verb: 'peer_comparison', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false };

type ComparisonParams = QueryParams<typeof COMPARISON_QUERY, typeof PEER_PATH>;

async function comparisonHandler(req: RouteRequest<FinanceCtx, ComparisonParams>): Promise<Reply> {
  const { ctx } = req;
  const params = { ...req.params, per_capita: true, basis: corpusBasis(ctx) };
  const { govid: gid, years, limit, page } = params;
  const c = await peerCohort(ctx, gid, undefined, params.coverage === 'census' ? 'census' : 'all', PEERS_DEFAULT, req.signal);
  const plan = {
    ...planOf(ctx, comparisonRoute, { gids: [gid, ...c.gids], years, params }),
    offset: 0, limit: Number.MAX_SAFE_INTEGER,
    consistent: params.coverage === 'consistent', keepGovs: [gid], peerTarget: gid,
  };
  const res = await moneyJob(ctx, plan, req.signal);

  const baseCpi = ctx.catalog.cpi.index.get(params.base_year)!;
  const r = res.rows;
  // Summary rows are computed from peer rows: a cell where no peer has a value gets none (issue 22, item 5).
  const cells = res.summary.peerCells.filter((cell) => cell.n > 0);
  const nRows = r.n, nAll = nRows + cells.length * 3;
  const cellOf = (i: number) => cells[Math.floor((i - nRows) / 3)]!;
  const q = (i: number) => SUMMARY[(i - nRows) % 3]!;
  // The target's rank reads every cell, those without peers too (rank 1 of 1).
  const rank = new Map(res.summary.peerCells.map((cell) => [`${cell.year}:${cell.sub}:${cell.cat}`, cell]));
  const rowCell = (i: number) => rank.get(`${r.year[i]}:${r.sub[i]}:${r.cat[i]}`);
  const base = moneyTable(ctx, comparisonRoute, tableOptions(params), res, [{ name: 'role', get: (i) => (r.gov[i] === gid ? 'target' : 'peer') }]);
  const summaryValue = (name: string, i: number): unknown => {
    const cell = cellOf(i), [role, label, key] = q(i);
    const v = cell[key];
    const pc = Number.isNaN(v) ? null : v;
    switch (name) {
      case 'year': return cell.year;
      case 'canonical_govid': return null;
      case 'gov_name': return label;
      case 'role': return role;
      case 'category': return cell.cat === ALL_CATEGORIES_ID ? ALL_CATEGORIES : ctx.engine.categories[cell.cat];
      case 'spend_subtype': return ctx.engine.subtypes[cell.sub];
      case 'amt_per_capita_nominal': return pc;
      case 'amt_per_capita_real': { const cpi = ctx.catalog.cpi.index.get(cell.year); return pc === null || cpi === undefined ? null : (pc * baseCpi) / cpi; }
      case 'pop_source': return null;
      case 'notes': return NON_ADDITIVE;
      case 'peers_in_cell': return cell.n;
      default: return null;
    }
  };
  const table: ColumnTable = {
    names: [...base.names, 'target_rank', 'ranked_of'],
    get: [
      ...base.names.map((name, k) => (i: number) => (i < nRows ? base.get[k]!(i) : summaryValue(name, i))),
      (i) => (i < nRows && r.gov[i] === gid ? (rowCell(i)?.targetRank || null) : null),
      (i) => (i < nRows && r.gov[i] === gid ? (rowCell(i) ? rowCell(i)!.n + 1 : null) : i >= nRows ? cellOf(i).n : null),
    ],
    n: nAll,
  };

  const target = ctx.catalog.governments[gid]!;
  const peerIds = c.gids.map((p) => ctx.catalog.governments[p]!.canonical_govid);
  const coverage = coverageRows(plan.years, res.summary.reporting, () => c.gids.length);
  const env = answer(ctx, comparisonRoute, { url: req.url, params }, { ...res, total: nAll }, plan, {
    govids: [target.canonical_govid, ...peerIds], govNames: [], perGovernment: false,
    rows: rowObjects(table, page * limit, (page + 1) * limit),
    target: { canonical_govid: target.canonical_govid, gov_name: target.gov_name, population: c.targetPopulation },
    provenance: {
      peers: { cohort_year: c.year, ...windowMeta(c), cohort_rule: cohortRule(c), peer_count: c.gids.length, cohort_govids: peerIds, excluded_inconsistent: res.summary.inconsistentGovs.map((p) => ctx.catalog.governments[p]!.canonical_govid) },
      coverage_mode: params.coverage,
      coverage,
    },
    meta: { coverage: params.coverage, cohort_year: c.year, ...windowMeta(c), ...coverageMeta(coverage) },
  });
  env.suggestions.push(...(await suggestionsFor(ctx, gid, c, req.signal)));
  // A target left out by coverage=consistent is named in provenance.peers.excluded_inconsistent instead.
  if (!res.summary.yearsPresent.some(([g]) => g === gid) && !res.summary.inconsistentGovs.includes(gid)) env.suggestions.push(absentTarget(ctx, gid, plan.years, params.category.names));
  return envelopeReply(env);
}

/**
 * A comparison whose target has no row in the years asked (an audit: a city with rows in FY2011 only, asked for
 * FY2020, got peers and percentiles and no word of its own absence): says so, and names the years it has rows in.
 */
function absentTarget(ctx: FinanceCtx, gid: number, years: number[], names: string[]): unknown {
  const g = ctx.catalog.governments[gid]!;
  const has = (ctx.govYears[gid] ?? []).filter((y) => !years.includes(y));
  const what = names.length ? names.join(', ') : 'spending';
  return {
    recipe_id: null, label: 'years with the target\'s rows', available_years: has.length ? [Math.min(...has), Math.max(...has)] : [],
    hint: `${g.canonical_govid} (${g.gov_name}) has no ${what} rows in FY${years.join(', FY')}: the rows here are its peers' and their percentiles only${has.length ? `; it has rows (of any category) in FY${has.join(', FY')}: try years=${has.join(',')}` : ''}.`,
  };
}

const requiredCategory = required(
  categoryParam({ flows: ['expenditure'], route: '/governments/{govid}/peer-comparison', single: true }),
  () => apiError('E_MISSING', 'required', { name: 'category', where: 'peer comparison' }),
);


// The docs fill in a county whose peers lie within the reference window (New Castle County, DE): the largest need it widened.
const PEER_PATH = { govid: withExample(govidPath, '101003101811') };
const PEERS_QUERY = { year: yearParam, n: nParam, coverage: coverageParam };
const COMPARISON_QUERY = {
  category: requiredCategory, years: coverageYearsParam, coverage: coverageParam, expenditure_concept: expenditureConceptParam(false),
  adjust: adjustParam('nominal'), base_year: defaulted(baseYearParam), limit: moneyLimitParam, page: pageParam,
};

export const peerRoutes: RouteSpec<FinanceCtx>[] = [
  route({
    id: 'peers', cacheable: true, path: '/api/v1/governments/{govid}/peers', tags: ['peers'], produces: 'envelope',
    summary: 'Peer cohort', description: `Governments of the same type with a similar population: within ${POP_RANGE[0]}-${POP_RANGE[1]} times the target's in the cohort year, closest first. Where that window holds fewer than n, it widens step by step (${POP_WINDOWS.slice(1).map((w) => (Number.isFinite(w[1]) ? `${windowJson(w)[0]}-${w[1]}` : 'any size')).join(', ')}) until one holds n; meta.pop_range names the window used.`,
    pathParams: PEER_PATH,
    query: PEERS_QUERY,
    rowFields: [
      { name: 'rank', type: 'integer', description: '1 = closest in population.' },
      { name: 'canonical_govid', type: 'string', description: 'Peer id.' },
      { name: 'gov_name', type: 'string', description: 'Peer name.' },
      { name: 'type', type: 'integer', description: 'Government type (the target\'s).' },
      { name: 'type_label', type: 'string', description: 'state, county, city or township.' },
      { name: 'fips_state', type: 'string', description: 'State FIPS code.' },
      { name: 'state', type: 'string|null', description: 'State USPS code.' },
      { name: 'population', type: 'integer', description: 'Population in the cohort year (census_f33).' },
      { name: 'pop_ratio', type: 'number', description: "Population over the target's." },
      { name: 'cohort_year', type: 'integer', description: 'The year populations were matched in.' },
    ],
    examples: (ctx) => [{ description: 'Peers of a mid-sized county (the 100th largest)', path: `/api/v1/governments/${exampleGov(ctx, 1, 99)}/peers` }],
    handle: peersHandler,
  }),
  route({
    id: 'peer_comparison', cacheable: true, path: '/api/v1/governments/{govid}/peer-comparison', tags: ['peers'], produces: 'envelope',
    summary: 'Target versus peers, per capita', description: 'The target\'s and each peer\'s per-capita spending in one category (or All Categories: each government\'s per-capita total per subtype), and peer percentiles (p25, p50, p75) computed separately in each (year, subtype, category) cell.',
    pathParams: PEER_PATH,
    query: COMPARISON_QUERY,
    rejects: {
      subtype: 'subtype is not available on /peer-comparison.', basis: 'basis is not a parameter of /peer-comparison.', recipe: 'recipe is not available on /peer-comparison.',
      complete: REJECT.complete, year: REJECT.year, per_capita: 'peer comparison is always per capita.',
    },
    rules: [censusYearsRule],
    rowFields: [
      // The three summary rows are no government's: their canonical_govid and pop_source are null.
      ...moneyFields('spend_subtype', [{ name: 'role', type: 'string', description: 'target, peer, summary_p25, summary_p50 or summary_p75.' }], false, { perCapita: true })
        .map((f) => (f.name === 'canonical_govid' || f.name === 'pop_source' ? { ...f, type: 'string|null', description: `${f.description} Null on the summary rows.` } : f)),
      { name: 'target_rank', type: 'integer|null', description: "On the target's rows: its rank by per-capita dollars among itself and the peers in the cell (1 = highest)." },
      { name: 'ranked_of', type: 'integer|null', description: 'How many governments that rank is out of (summary rows: how many peers the percentile is over).' },
    ],
    examples: (ctx) => [{ description: 'A mid-sized county against its peers: police per capita', path: `/api/v1/governments/${exampleGov(ctx, 1, 99)}/peer-comparison?category=Police` }],
    handle: comparisonHandler,
  }),
];
