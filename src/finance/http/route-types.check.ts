// Compile-time checks of the route table's parameter types (npm run typecheck and the build compile this
// file; nothing imports it, and it exports nothing that runs). It lives in src/ because tests import only
// dist/ (test/structure.test.ts). Each @ts-expect-error must be an error: if a line under one compiles, tsc fails with "Unused
// '@ts-expect-error' directive". So a handler, rule or cost that reads a key its route does not declare does
// not compile, and neither does shared money code reading a key no money route declares.

import { defineRoute, type QueryParams, type RouteParams, type RouteRequest } from '../../server/route-spec.js';
import { intParam, textParam } from '../../server/params.js';
import type { FinanceCtx } from '../context.js';
import type { GOVERNMENTS_QUERY } from './governments.js';
import type { CATEGORIES_QUERY } from './taxonomy.js';
import type { MoneyParams } from './money-queries.js';

const route = defineRoute<FinanceCtx>();
const QUERY = { n: intParam({ description: 'n', min: 0, max: 9, default: 1 }), q: textParam({ description: 'q', maxLength: 9 }) };

export const checked = route({
  id: 'checked', path: '/checked', summary: '', description: '', tags: [], produces: 'envelope', query: QUERY,
  // @ts-expect-error: cost reads a key the route does not declare
  cost: (p) => p.limit,
  rules: [
    (p) => (p.n > 3 ? new Error('n') : undefined),
    // @ts-expect-error: a rule reads a key the route does not declare
    (p) => (p.page > 3 ? new Error('page') : undefined),
  ],
  handle: (req) => {
    const n: number = req.params.n;
    const q: string | undefined = req.params.q;
    // @ts-expect-error: the handler reads a key the route does not declare
    void req.params.limit;
    return { kind: 'body', contentType: 'text/plain', body: `${n}${q}` };
  },
});

// The route's inferred type is the one a handler written apart takes.
type Checked = RouteParams<typeof checked>;
export const apart = (req: RouteRequest<FinanceCtx, Checked>): string => {
  // @ts-expect-error: not declared
  void req.params.page;
  return String(req.params.n);
};

// A handler typed from its route's declarations loses a key the moment the declaration drops it.
type WithoutQ = QueryParams<Omit<typeof GOVERNMENTS_QUERY, 'q'>>;
export const governments = (p: WithoutQ): unknown => {
  void p.limit;
  // @ts-expect-error: q is no longer declared
  return p.q;
};
export const categories = (p: QueryParams<typeof CATEGORIES_QUERY>): unknown => {
  const t: 'spending' | 'revenue' | 'balance' | undefined = p.type;
  // @ts-expect-error: /categories declares no limit
  return [t, p.limit];
};

// The shared money stages read only keys some money route declares.
export const money = (p: MoneyParams): unknown => {
  const present: [number[], 'nominal' | 'real', boolean, number, number] = [p.years, p.adjust, p.per_capita, p.limit, p.page];
  // @ts-expect-error: no money route declares it
  return [present, p.nonsense];
};

// A handler with no declared parameters sees none (RouteRequest's default is {}, not any).
export const bare = (req: RouteRequest<FinanceCtx>): unknown => {
  // @ts-expect-error: nothing declared
  return req.params.type;
};
