// The school service's parameters, declared once. Messages follow the
// finance service's: the parameter, what is allowed, what was sent.

import { apiError, listValues } from '../../server/errors.js';
import { clip, enumParam } from '../../server/params.js';
import type { ParamSpec } from '../../server/route-spec.js';
import type { ArrestsCtx } from '../context.js';
import { DEFAULT_MODEL, INTERVALS, MODELS, RACES, SEXES, YEARS, partitionId, type SchoolYear } from '../models.js';

type P<T> = ParamSpec<ArrestsCtx, T>;

const modelIds = MODELS.map((m) => m.model);

export type Race = (typeof RACES)[number];
export type Sex = (typeof SEXES)[number];
export type Interval = (typeof INTERVALS)[number];

export const modelParam = enumParam({
  description: `The model (see /models). unified_* fit all student groups together; a stratified_* model must be asked for explicitly. The _mod suffix of the draws' partitions is accepted too.`,
  values: modelIds,
  aliases: Object.fromEntries(modelIds.map((m) => [partitionId(m), m])),
  default: DEFAULT_MODEL,
});

/** interval: documented as the enumeration of its spellings, parsed to the number. */
export const intervalParam = {
  ...enumParam({ description: 'Credible-interval width in percent: the HPD interval of that mass.', values: ['50', '80', '95'], default: '95' }),
  default: 95,
  parse(raw: string, name: string): Interval {
    const v = INTERVALS.find((i) => String(i) === raw.trim());
    if (v === undefined) throw apiError('E_BAD_VALUE', 'notOneOf', { name, values: listValues(INTERVALS), raw: clip(raw) });
    return v;
  },
  spell: (v: Interval) => String(v),
} satisfies P<Interval>;

export const raceParam = enumParam({ description: 'Student race group: AM (American Indian/Alaska Native), BL (Black), HI (Hispanic), WH (White).', values: RACES });
export const sexParam = enumParam({ description: 'Student sex: F or M.', values: SEXES });
export const yearParam = enumParam({ description: 'School year.', values: YEARS });

const LEAID = /^\d{7}$/;

/** A 7-digit LEA id (2-digit state FIPS + 5 digits) of a district in the mirror; returns it as a number. */
export const leaidParam: P<number> = {
  description: 'District id (LEAID): 7 digits, the 2-digit state FIPS code then 5 digits. Find it with /districts?q=...',
  schema: { type: 'string', pattern: '^\\d{7}$' },
  allowed: '7 digits',
  example: '1000047',
  parse(raw, name, ctx) {
    if (!LEAID.test(raw)) throw apiError('E_LEAID_FORMAT', 'notLeaid', { name, raw: clip(raw), example: ctx.districts[0]?.leaid ?? '0100005' });
    const id = Number(raw);
    if (!ctx.districtIndex.has(id)) throw apiError('E_LEAID_UNKNOWN', 'unknown', { raw });
    return id;
  },
};

export const stateParam: P<string> = {
  description: 'Two-letter state code (case-insensitive) of a state with districts in the mirror.',
  schema: { type: 'string', pattern: '^[A-Za-z]{2}$' },
  allowed: 'a two-letter state code of the mirror',
  parse(raw, name, ctx) {
    const code = raw.trim().toUpperCase();
    if (!ctx.states.includes(code)) throw apiError('E_BAD_VALUE', 'mirrorState', { name, values: listValues(ctx.states), raw: clip(raw) });
    return code;
  },
  spell: (code) => code,
};

/** A model must have been fit for the year asked about; say which years it covers. */
export function modelYearRule(p: { model: string; year?: SchoolYear }, ctx: ArrestsCtx): Error | undefined {
  const { model, year } = p;
  const years = ctx.modelYears.get(model);
  if (!years) return apiError('E_BAD_VALUE', 'modelNoDraws', { model, models: listValues([...ctx.modelYears.keys()]) });
  if (year !== undefined && !years.includes(year)) {
    return apiError('E_BAD_VALUE', 'modelNoFit', { model, year, years: years.join(', ') });
  }
  return undefined;
}
