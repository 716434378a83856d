// Y08 is not summed into the unemployment trust balance (src/finance/codes-not-summed.ts):
// the corpus's series breaks SB192 and SB193 say it is a negative reconciling balance
// before FY2012 and a copy of Y07 from it. Every state government's unemployment trust,
// every year, equals DuckDB's Y07 over the mirror, and the provenance counts the Y08
// rows and dollars left out as DuckDB finds them.

import { describe, expect, it } from 'vitest';
import { get } from './helpers/http.js';
import { long, query } from './helpers/duckdb.js';

describe('the unemployment trust balance', () => {
  it('is Y07 alone for every state, every year; the Y08 rows left out are counted', async () => {
    const y07 = await query(`SELECT canonical_govid AS g, year, sum(amt)::BIGINT * 1000 AS amt FROM ${long()} WHERE type = 0 AND item_code = 'Y07' AND NOT is_aggregate GROUP BY ALL`);
    const y08 = await query(`SELECT canonical_govid AS g, count(*)::INT AS n, sum(amt)::BIGINT * 1000 AS amt, bool_or(year >= 2012 AND amt <> 0) AS later FROM ${long()} WHERE type = 0 AND item_code = 'Y08' GROUP BY ALL`);
    const want = new Map(y07.map((r) => [`${r.g}|${r.year}`, Number(r.amt)]));
    const left = new Map(y08.map((r) => [r.g as string, r]));
    const states = [...new Set(y07.map((r) => r.g as string))].sort();
    expect(states.length).toBeGreaterThanOrEqual(50);
    let differed = 0;
    for (const g of states) {
      const { body } = await get(`/api/v1/governments/${g}/balances?subtype=unemployment_trust`);
      expect(body.status).toBe('success');
      for (const r of body.data) {
        expect(r.amt_nominal, `${g} ${r.year}`).toBe(want.get(`${g}|${r.year}`));
        expect(r.codes_included).toBe('Y07');
      }
      expect(body.data.length).toBe(y07.filter((r) => r.g === g).length);
      const c = body.provenance.balance_caveats.codes_not_summed;
      const l = left.get(g);
      expect(c.rows, g).toBe(l === undefined ? 0 : l.n);
      expect(c.amount, g).toBe(l === undefined ? 0 : Number(l.amt));
      expect(c.rules.map((x: any) => x.code)).toEqual(['Y08']);
      if (l !== undefined) differed++;
    }
    // The rule has rows to leave out: most states publish Y08.
    expect(differed).toBeGreaterThanOrEqual(40);
  }, 120_000);

  it('is California\'s Y07 as literals: $2.856, $3.717 and $0.258 billion in FY2011, FY2019, FY2020', async () => {
    const { body } = await get('/api/v1/governments/060000226349/balances?subtype=unemployment_trust');
    expect(body.data.map((r: any) => [r.year, r.amt_nominal])).toEqual([[2011, 2855711000], [2019, 3717242000], [2020, 258004000]]);
    expect(body.provenance.sql_query).toContain("l.item_code <> 'Y08'");
  });
});
