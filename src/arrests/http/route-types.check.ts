// Compile-time checks of the school service's parameter types (as src/finance/http/route-types.check.ts: the build
// compiles this file, nothing imports it). EstimateParams is derived from the estimate routes' declarations:
// each value has the type its declaration parses to, and a key no estimate route declares does not compile.

import type { EstimateParams } from './estimates.js';
import type { SchoolYear } from '../models.js';
import type { Interval, Race, Sex } from './params.js';

export const estimateParams = (p: EstimateParams): unknown => {
  const present: [string, Interval] = [p.model, p.interval];
  const optional: [Race | undefined, Sex | undefined, SchoolYear | undefined, number | undefined, string | undefined, number | undefined, number | undefined] = [p.race, p.sex, p.year, p.leaid, p.state, p.limit, p.page];
  // @ts-expect-error: not every estimate route declares a state, so it may be absent
  const state: string = p.state;
  // @ts-expect-error: no estimate route declares it
  return [present, optional, state, p.format];
};
