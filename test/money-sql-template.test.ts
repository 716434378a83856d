// provenance.sql_query from a template per query shape (issue 32): a
// context that has answered many other shapes and govid lists gives, for each
// query, the same SQL as a context that never answered one (whose template is
// made from that query alone). A shape key missing anything the SQL reads
// would hand one shape another's text.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moneySql, type SqlQuery } from '../dist/src/finance/money-sql.js';
import { EXPENDITURE_CONCEPTS, REVENUE_CONCEPTS, SUBTYPES } from '../dist/src/finance/engine-catalog.js';
import type { FinanceCtx } from '../dist/src/finance/context.js';
import type { Flow, Recipe } from '../dist/src/finance/catalog.js';

const ctxOf = (): FinanceCtx => ({ mirrorUrl: "/m/o'k", longFilesSql: "list_transform([2011, 2020], y -> format('/m/{}', y))" }) as unknown as FinanceCtx;
const recipe = (id: string, label: string, code: string): Recipe => ({
  recipe_id: id, label, n_components: 1, year_min: 2000, year_max: 2020, source: 'corpus', supersedes: [],
  components: [{ component_code: code, gov_type_scope: 'all', year_min: 2000, year_max: 2020, weight: 1, source_break_ids: [], notes: null }],
});
const RECIPES = [recipe('r1', 'One', 'B89'), recipe('r2', "Two's", 'C47')];
const FLOWS: Flow[][] = [['expenditure'], ['revenue'], ['balance'], ['expenditure', 'revenue']];

const query: fc.Arbitrary<SqlQuery> = fc.record({
  govids: fc.array(fc.stringMatching(/^[0-9]{12}$/), { minLength: 1, maxLength: 3 }),
  years: fc.uniqueArray(fc.integer({ min: 2009, max: 2012 }), { minLength: 1, maxLength: 3 }),
  flows: fc.constantFrom(...FLOWS),
  harmonized: fc.boolean(),
  exp: fc.constantFrom(...Object.keys(EXPENDITURE_CONCEPTS)),
  rev: fc.constantFrom(...Object.keys(REVENUE_CONCEPTS)),
  igLeg: fc.boolean(),
  categories: fc.option(fc.uniqueArray(fc.constantFrom('Police', 'Fire', "Parks & Rec'n", 'Other'), { minLength: 1, maxLength: 2 })),
  allCategories: fc.boolean(),
  recipe: fc.option(fc.constantFrom(...RECIPES)),
  withFlow: fc.boolean(),
}).map(({ exp, rev, ...q }) => ({
  ...q,
  scope: {
    expenditure: EXPENDITURE_CONCEPTS[exp as keyof typeof EXPENDITURE_CONCEPTS],
    revenue: REVENUE_CONCEPTS[rev as keyof typeof REVENUE_CONCEPTS],
    balance: SUBTYPES.balance,
  },
}));

describe('moneySql templates', () => {
  it('a context that has answered other shapes and lists gives each query the SQL a fresh context gives', () => {
    const shared = ctxOf();
    // A few shapes asked again and again with other lists (and years as new arrays): the recent-shapes path
    // and the keyed one both answer.
    const govids = fc.array(fc.stringMatching(/^[0-9]{12}$/), { minLength: 1, maxLength: 3 });
    // Some picks differ from their shape in one field only: a near miss must not take the shape's template.
    const ONE_FIELD: ((q: SqlQuery) => SqlQuery)[] = [
      (q) => q,
      (q) => ({ ...q, recipe: q.recipe === RECIPES[0] ? RECIPES[1]! : RECIPES[0]! }),
      (q) => ({ ...q, harmonized: !q.harmonized }),
      (q) => ({ ...q, igLeg: !q.igLeg }),
      (q) => ({ ...q, allCategories: !q.allCategories }),
      (q) => ({ ...q, withFlow: !q.withFlow }),
      (q) => ({ ...q, categories: q.categories ? null : ['Police'] }),
      (q) => ({ ...q, years: [...q.years, 2013] }),
      (q) => ({ ...q, flows: FLOWS[(FLOWS.findIndex((f) => f.join() === q.flows.join()) + 1) % FLOWS.length]! }),
      (q) => ({ ...q, scope: { ...q.scope, expenditure: q.scope.expenditure === EXPENDITURE_CONCEPTS.total ? EXPENDITURE_CONCEPTS.primary : EXPENDITURE_CONCEPTS.total } }),
    ];
    fc.assert(fc.property(fc.array(query, { minLength: 1, maxLength: 12 }), fc.array(fc.tuple(fc.nat(), govids, fc.nat(ONE_FIELD.length - 1)), { maxLength: 40 }), (shapes, picks) => {
      const qs = [...shapes, ...picks.map(([i, g, f]) => { const q = ONE_FIELD[f]!(shapes[i % shapes.length]!); return { ...q, govids: g, years: [...q.years] }; })];
      for (const q of qs) {
        const sql = moneySql(shared, q);
        expect(sql).toBe(moneySql(ctxOf(), q));
        // The list is in the text where the predicate names it, once per leg that selects rows.
        for (const g of q.govids!) expect(sql).toContain(`'${g}'`);
      }
    }), { numRuns: 300 });
  });

  it('a cohort query (no govid list) is written whole, with its predicate', () => {
    const q = { govids: null, cohort: { fips_state: '17', type: 2 }, years: [2011], flows: ['expenditure'] as Flow[], harmonized: true, scope: { expenditure: EXPENDITURE_CONCEPTS.primary }, igLeg: false, categories: null, allCategories: false, recipe: null, withFlow: false };
    const sql = moneySql(ctxOf(), q);
    expect(sql).toContain("WHERE fips_state = '17' AND govs_type = 2");
    expect(moneySql(ctxOf(), { ...q, cohort: { fips_state: '06' } })).toContain("WHERE fips_state = '06' AND TRUE");
  });
});
