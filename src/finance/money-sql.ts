// provenance.sql_query for the money routes: DuckDB SQL over the mirror's own
// parquet that, run as is, returns the answer's rows (year, canonical_govid,
// category, subtype, amt_nominal; plus flow on /profile) before paging, the
// subtype filter and completion. It states the engine's rules in SQL, so an
// independent engine can check every number.

import { CODES_NOT_SUMMED } from './codes-not-summed.js';
import type { Flow, Recipe } from './catalog.js';
import type { FinanceCtx } from './context.js';
import { ALL_CATEGORIES } from './money-choices.js';
import { lit, metadataTable } from './sql.js';

export interface SqlQuery {
  govids: string[] | null;
  /** When govids is null: the cohort predicate over canonical_fips_xwalk. */
  cohort?: { fips_state?: string; type?: number };
  years: number[];
  flows: Flow[];
  harmonized: boolean;
  /** Subtypes in scope per flow (the concept). */
  scope: Partial<Record<Flow, readonly string[]>>;
  igLeg: boolean;
  categories: string[] | null;
  allCategories: boolean;
  recipe: Recipe | null;
  withFlow: boolean;
  /** Governments the job left out whole (coverage=consistent): the SQL leaves them out too, so it returns the answer's rows. */
  excluded?: string[];
}

const list = (xs: readonly (string | number)[]): string => xs.map((x) => (typeof x === 'number' ? String(x) : lit(x))).join(', ');

/**
 * The SQL of a govid list's query is the same text for every list of the same shape but for the list: it is
 * written once per shape (per context) with a hole where the list goes, so an answer's SQL is one join
 * (issue 32: writing it cost about 3% of one government's answer). Bounded: past TEMPLATES shapes the memo
 * starts again.
 */
export function moneySql(ctx: FinanceCtx, q: SqlQuery): string {
  // A list of left-out ids is particular to the answer: no template shape of its own.
  if (q.govids === null || (q.excluded?.length ?? 0) > 0) return writeSql(ctx, q, null);
  const pieces = recentTemplate(ctx, q) ?? keyedTemplate(ctx, q);
  const govids = list(q.govids);
  return pieces.length === 2 ? pieces[0]! + govids + pieces[1]! : pieces.join(govids);
}

/** The template of q's shape, by its key (a string: building and hashing it is most of a memo hit's cost). */
function keyedTemplate(ctx: FinanceCtx, q: SqlQuery): string[] {
  let memo = templates.get(ctx);
  if (memo === undefined) templates.set(ctx, (memo = new Map()));
  const key = shapeKey(q);
  let pieces = memo.get(key);
  if (pieces === undefined) {
    if (memo.size >= TEMPLATES) memo.clear();
    memo.set(key, (pieces = writeSql(ctx, q, HOLE).split(HOLE)));
  }
  // Among the recent shapes, a copy of its lists: the caller's arrays are not kept.
  let recent = recents.get(ctx);
  if (recent === undefined) recents.set(ctx, (recent = { at: 0, shapes: [] }));
  const shape: SqlQuery = { ...q, govids: null, flows: [...q.flows], years: [...q.years], categories: q.categories && [...q.categories] };
  recent.shapes[recent.at] = { q: shape, pieces };
  recent.at = (recent.at + 1) % RECENT;
  return pieces;
}

/**
 * The template of a shape seen lately, found by comparing the few fields a shape is (the concept's subtype
 * lists and the route's flows are the same arrays each time), with no key made: the cheap path for the few
 * shapes a server mostly answers.
 */
function recentTemplate(ctx: FinanceCtx, q: SqlQuery): string[] | undefined {
  const recent = recents.get(ctx);
  if (recent === undefined) return undefined;
  for (const r of recent.shapes) if (sameShape(r.q, q)) return r.pieces;
  return undefined;
}

const sameShape = (a: SqlQuery, b: SqlQuery): boolean =>
  a.harmonized === b.harmonized && a.igLeg === b.igLeg && a.allCategories === b.allCategories && a.withFlow === b.withFlow &&
  a.recipe === b.recipe && sameList(a.flows, b.flows) && sameList(a.years, b.years) && sameList(a.categories, b.categories) &&
  sameList(a.scope.expenditure, b.scope.expenditure) && sameList(a.scope.revenue, b.scope.revenue) && sameList(a.scope.balance, b.scope.balance);

function sameList<T>(a: readonly T[] | null | undefined, b: readonly T[] | null | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const TEMPLATES = 1024, RECENT = 8;
const templates = new WeakMap<FinanceCtx, Map<string, string[]>>();
const recents = new WeakMap<FinanceCtx, { at: number; shapes: { q: SqlQuery; pieces: string[] }[] }>();
/** Where the govid list goes in a template: no literal, path or name holds a NUL. */
const HOLE = '\u0000govids\u0000';

/** Everything writeSql reads but the govid list (the cohort is only read without one), NUL-separated. */
function shapeKey(q: SqlQuery): string {
  const scope = q.flows.map((f) => q.scope[f]?.join('\u0001')).join('\u0002');
  return `${q.flows.join()}\u0000${q.years.join()}\u0000${q.harmonized}\u0000${scope}\u0000${q.igLeg ? q.scope.expenditure?.join('\u0001') : '-'}\u0000${
    q.categories?.join('\u0001')}\u0000${q.allCategories}\u0000${q.recipe?.recipe_id}\u0000${q.withFlow}`;
}

/** Holdings leave out the codes an answer does not sum (codes-not-summed.ts). */
const NOT_SUMMED_LEFT_OUT = CODES_NOT_SUMMED.map((c) => (c.fromYear === 0 ? ` AND l.item_code <> ${lit(c.code)}` : ` AND NOT (l.item_code = ${lit(c.code)} AND l.year >= ${c.fromYear})`)).join('');

/** The SQL; with govHole, the text written in place of the govid list (a template's hole). */
function writeSql(ctx: FinanceCtx, q: SqlQuery, govHole: string | null): string {
  const files = ctx.longFilesSql;
  const cohort = q.govids !== null
    ? `l.canonical_govid IN (${govHole ?? list(q.govids)})`
    : `l.canonical_govid IN (SELECT canonical_govid FROM ${metadataTable(ctx, 'canonical_fips_xwalk')} WHERE ${[
        q.cohort?.fips_state !== undefined ? `fips_state = ${lit(q.cohort.fips_state)}` : 'TRUE',
        q.cohort?.type !== undefined ? `govs_type = ${q.cohort.type}` : 'TRUE',
      ].join(' AND ')})`;
  const left = q.excluded !== undefined && q.excluded.length > 0 ? ` AND l.canonical_govid NOT IN (${list(q.excluded)})` : '';
  const where = `${cohort}${left} AND l.year IN (${list(q.years)})`;
  const head =
    `WITH long AS (SELECT * FROM read_parquet(${files}, hive_partitioning = false)), ` +
    `sc AS (SELECT item_code, category, category_type, COALESCE(spend_subtype, revenue_subtype, balance_subtype) AS subtype FROM ${metadataTable(ctx, 'summary_categories')})`;

  if (q.recipe !== null) {
    const values = q.recipe.components
      .map((c) => `(${lit(c.component_code)}, ${lit(c.gov_type_scope)}, ${c.year_min}, ${c.year_max}, ${c.weight})`)
      .join(', ');
    return (
      `${head}, r(component_code, gov_type_scope, year_min, year_max, weight) AS (VALUES ${values}) ` +
      `SELECT l.year, l.canonical_govid, ${lit(q.recipe.label)} AS category, 'recipe' AS subtype, ${q.withFlow ? `'recipe' AS flow, ` : ''}` +
      `SUM(l.amt * r.weight) * 1000 AS amt_nominal FROM long l JOIN r ON l.item_code = r.component_code AND l.year BETWEEN r.year_min AND r.year_max ` +
      `AND (r.gov_type_scope = 'all' OR (r.gov_type_scope = 'state' AND l.type = 0) OR (r.gov_type_scope = 'local' AND l.type BETWEEN 1 AND 3)) ` +
      `WHERE ${where} GROUP BY ALL ORDER BY year, canonical_govid`
    );
  }

  const legs: string[] = [];
  const category = q.allCategories ? lit(ALL_CATEGORIES) : 'sc.category';
  const catFilter = q.categories !== null && !q.allCategories ? ` AND sc.category IN (${list(q.categories)})` : '';
  for (const flow of q.flows) {
    const scope = (q.scope[flow] ?? []).filter((s) => s !== 'intergovernmental');
    if (scope.length === 0) continue;
    const harmonized = q.harmonized && flow !== 'balance';
    legs.push(
      `SELECT l.year, l.canonical_govid, ${category} AS category, sc.subtype, ${lit(flow)} AS flow, l.amt FROM long l ` +
        `JOIN sc ON sc.item_code = l.${harmonized ? 'harmonized_code' : 'item_code'} ` +
        `WHERE ${where} AND NOT l.is_aggregate AND sc.category_type = ${lit(flow)} AND sc.subtype IN (${list(scope)})${catFilter}${flow === 'balance' ? NOT_SUMMED_LEFT_OUT : ''}`,
    );
  }
  if (q.igLeg) {
    const code = q.harmonized ? 'COALESCE(l.harmonized_code, l.item_code)' : 'l.item_code';
    legs.push(
      `SELECT l.year, l.canonical_govid, ${category} AS category, sc.subtype, 'expenditure' AS flow, l.amt FROM long l ` +
        `JOIN sc m ON m.item_code = l.item_code AND m.category_type = 'expenditure' AND m.subtype = 'intergovernmental' ` +
        `JOIN sc ON sc.item_code = ${code} AND sc.category_type = 'expenditure' AND sc.subtype IN (${list(q.scope.expenditure ?? [])}) ` +
        `WHERE ${where}${catFilter}`,
    );
  }
  const rows = legs.length ? legs.join(' UNION ALL ') : `SELECT NULL::BIGINT AS year, NULL AS canonical_govid, NULL AS category, NULL AS subtype, NULL AS flow, 0 AS amt WHERE FALSE`;
  return (
    `${head} SELECT year, canonical_govid, category, subtype, ${q.withFlow ? 'flow, ' : ''}SUM(amt) * 1000 AS amt_nominal FROM (${rows}) ` +
    `GROUP BY ALL ORDER BY year, canonical_govid, ${q.withFlow ? 'flow, ' : ''}subtype, category`
  );
}
