// Independent DuckDB formulations of the corpus rules, written here from the
// corpus tables (not taken from the service), for checking its numbers.

import { long, query, table } from './duckdb.js';

export const PRIMARY = ['operations', 'capital', 'assistance'];
export const DIRECT = [...PRIMARY, 'interest', 'insurance_benefits'];
export const GENERAL = ['own_source', 'federal', 'state', 'local_aid'];
export const REVENUE_TOTAL = [...GENERAL, 'utility', 'liquor_store', 'insurance_trust'];

const q = (xs: (string | number)[]): string => xs.map((x) => (typeof x === 'number' ? x : `'${x.replaceAll("'", "''")}'`)).join(', ');

/**
 * Category sums per (year, government, category, subtype) for a flow, a subtype set and a basis. Holdings leave
 * out Y08 in every year: the corpus's series breaks SB192 and SB193 say it is not a holding to add to Y07 (a
 * negative reconciling balance before FY2012, a copy of Y07 from it).
 */
export async function categorySums(o: { govids: string[]; years: number[]; flow: 'expenditure' | 'revenue' | 'balance'; subtypes: string[]; basis: 'raw' | 'harmonized' }) {
  const subtypeCol = o.flow === 'expenditure' ? 'spend_subtype' : o.flow === 'revenue' ? 'revenue_subtype' : 'balance_subtype';
  const joinCol = o.basis === 'harmonized' && o.flow !== 'balance' ? 'harmonized_code' : 'item_code';
  return query(`
    SELECT l.year, l.canonical_govid, c.category, c.${subtypeCol} AS subtype, sum(l.amt)::BIGINT * 1000 AS amt
    FROM ${long()} l JOIN ${table('summary_categories')} c ON c.item_code = l.${joinCol}
    WHERE l.canonical_govid IN (${q(o.govids)}) AND l.year IN (${q(o.years)})
      AND NOT l.is_aggregate AND c.category_type = '${o.flow}' AND c.${subtypeCol} IN (${q(o.subtypes)})${o.flow === 'balance' ? " AND l.item_code <> 'Y08'" : ''}
    GROUP BY ALL ORDER BY 1, 2, 4, 3`);
}

/** The governments of each type with rows in every loaded year, most populous first. */
export async function governmentsInAllYears(type: number, n: number, skip = 0): Promise<string[]> {
  const rows = await query(`
    SELECT canonical_govid FROM ${long()} WHERE type = ${type}
    GROUP BY canonical_govid HAVING count(DISTINCT year) = 3
    ORDER BY max(population) DESC, canonical_govid LIMIT ${n} OFFSET ${skip}`);
  return rows.map((r) => r.canonical_govid);
}
