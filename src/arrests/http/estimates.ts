// /estimates, /estimates/{leaid}, /states and /states/{state}: lookups over
// the summary columns the build jobs computed (sorted by key, race, sex,
// year, so a district or a state is one contiguous range found by binary
// search). Rates are counts over enrollment, null when enrollment is unknown.

import { ok } from '../../server/envelope.js';
import { envelopeReply, type QueryParams, type Reply, type RouteRequest, type SharedParams } from '../../server/route-spec.js';
import { STATE_BY_CODE } from '../../geo/states.js';
import type { ArrestsCtx } from '../context.js';
import { syntheticMeta } from './info.js';
import { INTERVALS, RACES, SEXES, YEARS, partitionId } from '../models.js';
import type { SummaryBlock } from '../summaries.js';
import { summarySql } from '../hpd.js';
import type { DISTRICT_ESTIMATES_QUERY, ESTIMATE_QUERY, LEAID_PATH, STATE_ESTIMATES_QUERY, STATE_PATH } from './queries.js';

const lit = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/** First index with key >= k (keys ascending). */
function lowerBound(keys: Int32Array, k: number): number {
  let lo = 0, hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < k) lo = mid + 1; else hi = mid;
  }
  return lo;
}

interface Selection {
  block: SummaryBlock;
  from: number;
  to: number;
  race?: number;
  sex?: number;
  year?: number;
}

/**
 * What the estimate handlers read of their routes' parameters: derived from the four routes' declarations
 * (queries.ts), a key some route does not declare optional, so a key no route declares does not compile.
 */
export type EstimateParams = SharedParams<
  | QueryParams<typeof DISTRICT_ESTIMATES_QUERY> | QueryParams<typeof ESTIMATE_QUERY, typeof LEAID_PATH>
  | QueryParams<typeof STATE_ESTIMATES_QUERY> | QueryParams<typeof ESTIMATE_QUERY, typeof STATE_PATH>
>;

function select(block: SummaryBlock, from: number, to: number, p: EstimateParams): { sel: Selection; rows: number[] } {
  const race = p.race === undefined ? undefined : RACES.indexOf(p.race);
  const sex = p.sex === undefined ? undefined : SEXES.indexOf(p.sex);
  const year = p.year === undefined ? undefined : YEARS.indexOf(p.year);
  const rows: number[] = [];
  for (let i = from; i < to; i++) {
    if ((race === undefined || block.race[i] === race) && (sex === undefined || block.sex[i] === sex) && (year === undefined || block.year[i] === year)) rows.push(i);
  }
  return { sel: { block, from, to, race, sex, year }, rows };
}

const rate = (count: number, enroll: number | null): number | null => (enroll === null || !(enroll > 0) ? null : count / enroll);

/** DuckDB SQL that recomputes the rows' medians and interval bounds from the draws themselves. */
function drawsSql(ctx: ArrestsCtx, model: string, where: string[], grain: 'district' | 'state'): string {
  const url = `${ctx.mirrorUrl.replace(/\/+$/, '')}/parquet/model_id=${partitionId(model)}/*/*/*.parquet`;
  const source = `read_parquet(${lit(url)}, hive_partitioning = true)${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  return grain === 'district'
    ? summarySql(`SELECT LEAID, RACE, SEX, YEAR, pred FROM ${source}`, 'LEAID, RACE, SEX, YEAR', ctx.manifest.drawsPerGroup)
    : summarySql(`SELECT LEA_STATE, RACE, SEX, YEAR, draw_id, sum(pred) AS pred FROM ${source} GROUP BY ALL`, 'LEA_STATE, RACE, SEX, YEAR', ctx.manifest.drawsPerGroup);
}

function provenance(ctx: ArrestsCtx, req: RouteRequest<ArrestsCtx, EstimateParams>, verb: string, target: Record<string, unknown>, sql: string): Record<string, unknown> {
  const p = req.params;
  return {
    verb,
    call: req.url,
    target,
    years: p.year !== undefined ? [p.year] : ctx.modelYears.get(p.model),
    scope: {},
    summary_rule: `count_median: median of pred over the ${ctx.manifest.drawsPerGroup} draws (interpolated); count_lower/upper: HPD interval, the narrowest window of ceil(p*n) consecutive sorted draws (ties to the lower bound) among those containing the median and inside the next wider interval (95 first); rate_* = count_* / stu_enroll. sql_query returns every interval's bounds (count_lower_50 ... count_upper_95)`,
    manifest: { dataset: ctx.manifest.dataset, synthetic: ctx.manifest.synthetic, seed: ctx.manifest.seed, digest: ctx.manifest.digest, mirror_url: ctx.mirrorUrl },
    sql_query: sql,
  };
}

/** /estimates pages (limit and page); /estimates/{leaid} answers every row of its district up to 1000. */
export function estimates(req: RouteRequest<ArrestsCtx, EstimateParams>): Reply {
  const { ctx, params } = req;
  const { model, interval, leaid, state, limit = 1000, page = 0 } = params;
  const block = ctx.summaries.district.get(model)!;
  let from = 0, to = block.n;
  if (leaid !== undefined) { from = lowerBound(block.key, leaid); to = lowerBound(block.key, leaid + 1); }
  else if (state !== undefined) {
    const fips = Number(STATE_BY_CODE.get(state)!.fips) * 100_000;
    from = lowerBound(block.key, fips); to = lowerBound(block.key, fips + 100_000);
  }
  const { rows } = select(block, from, to, params);
  const j = INTERVALS.indexOf(interval);
  const data = rows.slice(page * limit, page * limit + limit).map((i) => {
    const d = ctx.districts[ctx.districtIndex.get(block.key[i]!)!]!;
    const cell = ctx.enroll.get(block.key[i]!, block.race[i]!, block.sex[i]!, block.year[i]!);
    const lo = block.lo[i * 3 + j]!, hi = block.hi[i * 3 + j]!, med = block.median[i]!;
    return {
      leaid: d.leaid, lea_name: d.lea_name, state: d.state, state_name: d.state_name, lat: d.lat, lon: d.lon,
      race: RACES[block.race[i]!], sex: SEXES[block.sex[i]!], year: YEARS[block.year[i]!], model, interval,
      stu_enroll: cell.stu_enroll, observed_arrests: cell.observed_arrests,
      rate_median: rate(med, cell.stu_enroll), rate_lower: rate(lo, cell.stu_enroll), rate_upper: rate(hi, cell.stu_enroll),
      count_median: med, count_lower: lo, count_upper: hi,
    };
  });
  const where = [
    leaid !== undefined ? `LEAID = ${lit(String(leaid).padStart(7, '0'))}` : null,
    state !== undefined ? `LEA_STATE = ${lit(state)}` : null,
    params.race !== undefined ? `RACE = ${lit(params.race)}` : null,
    params.sex !== undefined ? `SEX = ${lit(params.sex)}` : null,
    params.year !== undefined ? `YEAR = ${lit(params.year)}` : null,
  ].filter((x): x is string => x !== null);
  return envelopeReply(ok(data, { total: rows.length, page, limit, model, interval, ...syntheticMeta(ctx) }, provenance(ctx, req, 'estimates', {
    leaid: leaid === undefined ? null : String(leaid).padStart(7, '0'), state: state ?? null, race: params.race ?? null, sex: params.sex ?? null, year: params.year ?? null, model,
  }, drawsSql(ctx, model, where, 'district'))));
}

export function states(req: RouteRequest<ArrestsCtx, EstimateParams>): Reply {
  const { ctx, params } = req;
  const { model, interval, state } = params;
  const block = ctx.summaries.state.get(model)!;
  let from = 0, to = block.n;
  if (state !== undefined) {
    const k = ctx.summaries.states.indexOf(state);
    from = lowerBound(block.key, k); to = lowerBound(block.key, k + 1);
  }
  const { rows } = select(block, from, to, params);
  const j = INTERVALS.indexOf(interval);
  // The spec gives /states no limit or page: every row, one page (at most states x groups x years, a few thousand).
  const page = 0, limit = rows.length;
  const data = rows.map((i) => {
    const code = ctx.summaries.states[block.key[i]!]!;
    const enroll = Number.isNaN(block.enroll[i]!) ? null : block.enroll[i]!;
    const lo = block.lo[i * 3 + j]!, hi = block.hi[i * 3 + j]!, med = block.median[i]!;
    return {
      state: code, state_name: STATE_BY_CODE.get(code)!.name,
      race: RACES[block.race[i]!], sex: SEXES[block.sex[i]!], year: YEARS[block.year[i]!], model, interval,
      stu_enroll: enroll,
      rate_median: rate(med, enroll), rate_lower: rate(lo, enroll), rate_upper: rate(hi, enroll),
      count_median: med, count_lower: lo, count_upper: hi,
    };
  });
  const where = [
    state !== undefined ? `LEA_STATE = ${lit(state)}` : null,
    params.race !== undefined ? `RACE = ${lit(params.race)}` : null,
    params.sex !== undefined ? `SEX = ${lit(params.sex)}` : null,
    params.year !== undefined ? `YEAR = ${lit(params.year)}` : null,
  ].filter((x): x is string => x !== null);
  return envelopeReply(ok(data, { total: rows.length, page, limit, model, interval, grain: 'state', ...syntheticMeta(ctx) }, provenance(ctx, req, 'states', {
    state: state ?? null, race: params.race ?? null, sex: params.sex ?? null, year: params.year ?? null, model,
  }, drawsSql(ctx, model, where, 'state'))));
}
