// /, /health, /models, /districts and /draws of the school service, and its
// documentation routes.

import { ok } from '../../server/envelope.js';
import type { ServiceDocs } from '../../server/docs-text.js';
import type { Landing } from '../../server/pages/landing.js';
import { openStreams } from '../../server/lifecycle.js';
import { processStats } from '../../server/process-stats.js';
import { processView } from '../../server/thread-view.js';
import { envelopeReply, type QueryParams, type Reply, type RouteRequest } from '../../server/route-spec.js';
import type { DISTRICTS_QUERY, DRAWS_QUERY } from './queries.js';
import type { ArrestsCtx } from '../context.js';
import { MODELS, partitionId } from '../models.js';
import { ARRESTS_DECISIONS } from './docs.js';

const lit = (s: string): string => `'${s.replaceAll("'", "''")}'`;

export function arrestsDocs(ctx: ArrestsCtx): ServiceDocs {
  return {
    service: 'arrests',
    title: 'civicstream: school arrest-rate estimates API',
    summary:
      `Bayesian small-area estimates of school-based arrest rates per district and state, by race, sex and school year, summarised from ${ctx.manifest.drawsPerGroup} posterior draws per group. ` +
      (ctx.manifest.synthetic ? 'THIS MIRROR IS SYNTHETIC: generated in the real layout, it describes no real district.' : ''),
    envelope: [
      { name: 'status', type: 'string', description: '`success` or `error`.' },
      { name: 'data', type: 'array|null', description: 'Array of row objects; null on error.' },
      { name: 'error', type: 'string|null', description: 'Null on success; the message on error.' },
      { name: 'meta', type: 'object', description: 'total, page, limit, model, interval (and grain on state routes); version is always v1.' },
      { name: 'provenance', type: 'object|null', description: 'On estimates: the summary rule, the mirror, and DuckDB SQL recomputing the rows from the draws.' },
      { name: 'suggestions', type: 'array', description: 'Always an array (always empty in this service).' },
    ],
    meta: [
      { name: 'version', type: 'string', description: 'Always v1.' },
      { name: 'total', type: 'integer', description: 'Full unpaginated row count.' },
      { name: 'model', type: 'string', description: 'The model used.' },
      { name: 'interval', type: 'integer', description: 'The interval width used (50, 80 or 95).' },
      { name: 'grain', type: 'string', description: 'state on /states routes.' },
      { name: 'synthetic', type: 'boolean', description: 'true on every answer of rows while the mirror is synthetic (the bundled one is): its districts, names and numbers describe nothing real. Absent on a real mirror.' },
    ],
    decisions: ARRESTS_DECISIONS,
    attribution: ATTRIBUTION,
    landing: arrestsLanding(ctx),
  };
}

const ATTRIBUTION = 'Estimates method after jknowles/crdc-arrests (Knowles & Miller); the bundled mirror is synthetic. State FIPS codes and names are public standards.';

/** The landing page's facts, from the loaded mirror and its manifest. */
function arrestsLanding(ctx: ArrestsCtx): Landing {
  return {
    service: 'School arrest-rate estimates',
    title: 'School arrest-rate estimates API',
    summary:
      'Bayesian small-area estimates of school-based arrest rates per school district and state, by race, sex and school year, ' +
      `summarised from ${ctx.manifest.drawsPerGroup} posterior draws per group: medians and 50, 80 or 95% intervals, with the SQL that recomputes them from the draws.`,
    facts: [
      ['Districts', `${ctx.districts.length} in ${ctx.states.length} states (${ctx.states.join(', ')})`],
      ['School years', '2015-16, 2017-18, 2021-22 (15-16, 17-18, 21-22)'],
      ['Models', `${ctx.modelYears.size}: ${[...ctx.modelYears.keys()].join(', ')}`],
      ['Data', ctx.manifest.synthetic ? 'SYNTHETIC: generated in the real layout; it describes no real district' : 'Real estimates, from the published posterior draws'],
    ],
    synthetic: ctx.manifest.synthetic,
    links: [],
    explorerNote: 'Find a district by name, state or leaid; chart its estimates per 1,000 students with their intervals beside its state, and map the state\'s districts. Every chart links to the API call behind it.',
    formatsNote: 'Answers are JSON envelopes; estimates carry their provenance, with the DuckDB SQL that recomputes them from the draws.',
    attribution: ATTRIBUTION,
  };
}

export function root(req: RouteRequest<ArrestsCtx>): Reply {
  const { ctx } = req;
  return envelopeReply(ok([{
    service: 'civicstream school arrests',
    title: 'School arrest-rate estimates API',
    scope: `${ctx.districts.length} districts in ${ctx.states.length} states (${ctx.states.join(', ')}); models ${[...ctx.modelYears.keys()].join(', ')}; school years 15-16, 17-18, 21-22.${ctx.manifest.synthetic ? ' Synthetic data.' : ''}`,
    synthetic: ctx.manifest.synthetic,
    links: { llms: '/api/v1/llms.txt', data_dictionary: '/api/v1/data-dictionary', docs: '/__docs__/', openapi: '/openapi.json' },
  }]));
}

export function health(req: RouteRequest<ArrestsCtx>): Reply {
  const { ctx } = req;
  return envelopeReply(ok([{
    status: 'ok',
    mirror: { districts: ctx.districts.length, shards: ctx.manifest.shards.length, draw_rows: ctx.summaries.build.rows },
    summaries: ctx.summaries.build,
    ...processStats(),
    open_streams: openStreams(),
    uptime_s: Math.round((Date.now() - ctx.startedAt) / 1000),
    ...processView('arrests'),
  }]));
}

export function models(req: RouteRequest<ArrestsCtx>): Reply {
  const rows = MODELS.map((m) => ({
    model: m.model, family: m.family, years: m.years, formula: m.formula, description: m.description, is_default: m.is_default,
    partition: partitionId(m.model), years_in_mirror: req.ctx.modelYears.get(m.model) ?? [],
  }));
  return envelopeReply(ok(rows, { total: rows.length, default_model: 'unified_m2', ...syntheticMeta(req.ctx) }));
}

/**
 * meta.synthetic on every answer of rows while the mirror is synthetic: a district list or an estimate read on its
 * own (a name like "Elel County Schools" looks real) says what it is, not only the landing page (an audit of 2026-11-28).
 */
export const syntheticMeta = (ctx: ArrestsCtx): { synthetic?: true } => (ctx.manifest.synthetic ? { synthetic: true } : {});

export function districts(req: RouteRequest<ArrestsCtx, QueryParams<typeof DISTRICTS_QUERY>>): Reply {
  const { ctx, params } = req;
  const { state, limit, page } = params;
  const q = params.q?.toLowerCase();
  // In name order already (ctx.byName): a search filters, it never sorts (issue 32).
  const hits: number[] = [];
  for (const i of ctx.byName) {
    if ((state === undefined || ctx.districts[i]!.state === state) && (q === undefined || ctx.nameLower[i]!.includes(q))) hits.push(i);
  }
  const data = hits.slice(page * limit, page * limit + limit).map((i) => ({ ...ctx.districts[i]! }));
  const meta: Record<string, unknown> = { total: hits.length, page, limit, ...syntheticMeta(ctx) };
  if (params.q !== undefined) meta.q = params.q;
  if (state !== undefined) meta.state = state;
  return envelopeReply(ok(data, meta));
}

export function draws(req: RouteRequest<ArrestsCtx, QueryParams<typeof DRAWS_QUERY>>): Reply {
  const { ctx, params } = req;
  const { model, year, state } = params;
  const url = `${ctx.mirrorUrl.replace(/\/+$/, '')}/parquet/model_id=${partitionId(model)}/YEAR=${year}/LEA_STATE=${state}/*.parquet`;
  const leaid = params.leaid === undefined ? undefined : String(params.leaid).padStart(7, '0');
  const where = [
    params.race !== undefined ? `RACE = ${lit(params.race)}` : null,
    params.sex !== undefined ? `SEX = ${lit(params.sex)}` : null,
    leaid !== undefined ? `LEAID = ${lit(leaid)}` : null,
  ].filter(Boolean);
  const sql = `SELECT * FROM read_parquet(${lit(url)}, hive_partitioning = true)${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY LEAID, RACE, SEX, draw_id`;
  return envelopeReply(ok([{ parquet_url: url, duckdb_sql: sql, dataset: ctx.manifest.dataset }], {
    model, year, state, note: 'Draws are bulk only: run duckdb_sql (or read parquet_url) to get them; they are never returned inline.', ...syntheticMeta(ctx),
  }));
}

