// /governments and /governments/{govid}: the registry (canonical_fips_xwalk),
// searched literally, and one government's identity and lifespan.

import { ok } from '../../server/envelope.js';
import { envelopeReply, type QueryParams, type Reply, type RouteRequest } from '../../server/route-spec.js';
import { STATE_BY_FIPS } from '../../geo/states.js';
import { GOV_TYPES } from '../catalog.js';
import type { FinanceCtx } from '../context.js';
import { metadataProvenance } from '../provenance.js';
import { lit, metadataTable } from '../sql.js';
import { withExample } from '../../server/params.js';
import { govidPath, limitParam, pageParam, qParam, stateParam, typeParam } from './params.js';

// The routes' declarations (routes.ts lists them): each handler takes QueryParams of its own, so it sees exactly the keys declared.
export const GOVERNMENTS_QUERY = { q: qParam, state: withExample(stateParam, undefined), type: typeParam, limit: limitParam(), page: pageParam };
export const GOVERNMENT_PATH = { govid: govidPath };

const REGISTRY_COLUMNS = 'canonical_govid, gov_name, govs_type AS type, type_label, fips_state, fips_county, fips_place, population_acs, first_year, last_year';

export function governmentRow(ctx: FinanceCtx, gid: number): Record<string, unknown> {
  const g = ctx.catalog.governments[gid]!;
  return {
    canonical_govid: g.canonical_govid,
    gov_name: g.gov_name,
    type: g.type,
    type_label: g.type_label,
    fips_state: g.fips_state,
    state: g.state,
    fips_county: g.fips_county,
    fips_place: g.fips_place,
    population_acs: g.population_acs,
    first_year: g.first_year,
    last_year: g.last_year,
    years_in_mirror: ctx.govYears[gid],
  };
}

export function listGovernments(req: RouteRequest<FinanceCtx, QueryParams<typeof GOVERNMENTS_QUERY>>): Reply {
  const { ctx, params } = req;
  const { q, state: fips, type, limit, page } = params;
  const typeNo = type === undefined ? -1 : GOV_TYPES.indexOf(type);
  const needle = q?.toLowerCase();

  const govs = ctx.catalog.governments;
  const start = page * limit;
  const rows: Record<string, unknown>[] = [];
  let total = 0;
  for (let gid = 0; gid < govs.length; gid++) {
    const g = govs[gid]!;
    if (fips !== undefined && g.fips_state !== fips) continue;
    if (typeNo >= 0 && g.type !== typeNo) continue;
    if (needle !== undefined && !ctx.govNameLower[gid]!.includes(needle)) continue;
    if (total >= start && rows.length < limit) rows.push(governmentRow(ctx, gid));
    total++;
  }

  const where = [
    fips !== undefined ? `fips_state = ${lit(fips)}` : null,
    typeNo >= 0 ? `govs_type = ${typeNo}` : null,
    q !== undefined ? `strpos(lower(gov_name), lower(${lit(q)})) > 0` : null,
  ].filter(Boolean);
  const sql =
    `SELECT ${REGISTRY_COLUMNS} FROM ${metadataTable(ctx, 'canonical_fips_xwalk')}` +
    (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
    ` ORDER BY population_acs DESC NULLS LAST, canonical_govid LIMIT ${limit} OFFSET ${start}`;

  const meta: Record<string, unknown> = { total, limit, page };
  if (q !== undefined) meta.q = q;
  if (fips !== undefined) meta.state = STATE_BY_FIPS.get(fips)?.code ?? fips;
  if (type !== undefined) meta.type = type;
  return envelopeReply(ok(rows, meta, metadataProvenance(ctx, {
    verb: 'gov_search', call: req.url, target: { q: q ?? null, state: meta.state ?? null, type: type ?? null }, sql,
  })));
}

export async function getGovernment(req: RouteRequest<FinanceCtx, QueryParams<{}, typeof GOVERNMENT_PATH>>): Promise<Reply> {
  const { ctx } = req;
  const gid = req.params.govid;
  const g = ctx.catalog.governments[gid]!;
  const r = await ctx.pool.runSmall('governmentYears', { gid }, () => req.signal);
  const byYear = Array.from(r.years, (year, k) => ({
    year,
    rows: r.rows[k],
    aggregate_rows: r.aggregateRows[k],
    population: r.population[k]! < 0 ? null : r.population[k],
    popyear: r.popYear[k] || null,
  }));
  const formerIds = [...ctx.catalog.formerIds].filter(([, now]) => now === g.canonical_govid).map(([old]) => old).sort();
  const lineage = ctx.catalog.lineage.filter((e) => e.predecessor_canonical === g.canonical_govid || e.successor_canonical === g.canonical_govid);
  const row = {
    ...governmentRow(ctx, gid),
    census_geoid: g.census_geoid,
    pop_confidence: g.pop_confidence,
    legacy_govs_id: g.legacy_govs_id,
    id_source: g.id_source,
    former_ids: formerIds,
    lineage,
    by_year: byYear,
  };
  const sql = `SELECT ${REGISTRY_COLUMNS} FROM ${metadataTable(ctx, 'canonical_fips_xwalk')} WHERE canonical_govid = ${lit(g.canonical_govid)}`;
  return envelopeReply(ok([row], {}, metadataProvenance(ctx, {
    verb: 'gov_identity', call: req.url, target: { canonical_govid: g.canonical_govid, gov_name: g.gov_name }, sql,
    scope: { govids_found: [g.canonical_govid], years_present: byYear.map((y) => y.year) },
  })));
}
