// The finance service's parameter kinds, declared once and used by every
// route that takes them. Each reads what it needs from the catalog.

import { apiError, listValues, type ApiError } from '../../server/errors.js';
import { clip, enumParam, intParam, textParam } from '../../server/params.js';
import type { Given, ParamSpec } from '../../server/route-spec.js';
import { GOV_TYPES, type Catalog } from '../catalog.js';
import { parseYears } from './years.js';

export interface FinanceCtxBase {
  catalog: Catalog;
}

type P<T> = ParamSpec<FinanceCtxBase, T>;

const GOVID = /^\d{12}$/;

export const JSON_LIMIT_CAP = 1000;
export const DEFAULT_LIMIT = 100;

type YearsDefault = (ctx: FinanceCtxBase, given: Given) => number[];
interface YearsOptions { description: string; defaultText: string; default?: YearsDefault }

/** years: typed as always present when the route gives it a default. */
export function yearsParam(o: YearsOptions & { default: YearsDefault }): P<number[]> & { default: YearsDefault };
export function yearsParam(o: YearsOptions & { default?: undefined }): P<number[]>;
export function yearsParam(o: YearsOptions): P<number[]> {
  const spec: P<number[]> = {
    description: o.description,
    schema: { type: 'string', pattern: '^\\d{4}(-\\d{4})?(,\\d{4}(-\\d{4})?)*$' },
    allowed: 'a year (2019), a list (2019,2020), an inclusive range (2000-2010), or a mix (2000-2010,2022)',
    default: o.default,
    defaultText: o.defaultText,
    example: '2019,2020',
    list: '2019,2020',
    parse: (raw, _name, ctx) => parseYears(raw, ctx.catalog),
  };
  return spec;
}

/** A path govid: the registry id (gid) of a canonical government. */
export const govidPath: P<number> = {
  description: 'canonical_govid: the 12-digit id of a government (find it with /governments?q=...).',
  schema: { type: 'string', pattern: '^\\d{12}$' },
  allowed: '12 digits',
  example: '062037161174',
  parse(raw, _name, ctx) {
    if (!GOVID.test(raw)) throw govidFormatError(raw);
    const gid = ctx.catalog.govId.get(raw);
    if (gid === undefined) {
      const now = ctx.catalog.formerIds.get(raw);
      throw now ? apiError('E_GOVID_UNKNOWN', 'formerId', { raw, now }) : apiError('E_GOVID_UNKNOWN', 'unknown', { raw });
    }
    return gid;
  },
};

export const govidFormatError = (raw: string): ApiError => apiError('E_GOVID_FORMAT', 'notCanonical', { raw: clip(raw) });

export const stateParam: P<string> = {
  description: 'Two-letter USPS state code (case-insensitive).',
  schema: { type: 'string', pattern: '^[A-Za-z]{2}$' },
  allowed: 'a two-letter state code of the corpus (AL ... WY, DC)',
  example: 'CA',
  parse(raw, name, ctx) {
    const code = raw.toUpperCase();
    const st = ctx.catalog.states.find((s) => s.code === code);
    if (!st) throw apiError('E_BAD_VALUE', 'stateCode', { name, values: listValues(ctx.catalog.states.map((s) => s.code)), raw: clip(raw) });
    return st.fips;
  },
  spell: (_fips, raw) => raw.toUpperCase(),
};

export const typeParam = enumParam({
  description: 'Government type: state, county, city (municipality) or township, or its number 0-3.',
  values: GOV_TYPES,
  aliases: { '0': 'state', '1': 'county', '2': 'city', '3': 'township', municipality: 'city' },
  refuse: (raw, name) =>
    apiError('E_BAD_VALUE', raw === '4' || raw === '5' ? 'typeOutOfScope' : 'notOneOf', { name, values: 'state, county, city, township, 0, 1, 2, 3', raw: clip(raw) }),
});

export const limitParam = (defaultLimit = DEFAULT_LIMIT, cap = JSON_LIMIT_CAP) =>
  intParam({ description: `Rows per page (default ${defaultLimit}, at most ${cap}; above the cap is a 400, never clamped).`, min: 1, max: cap, default: defaultLimit, capped: true });

export const pageParam = intParam({ description: 'Zero-based page index: page N holds rows N*limit+1 to (N+1)*limit.', min: 0, max: 10_000_000, default: 0 });

export const qParam = textParam({ description: 'Case-insensitive literal substring of gov_name (no pattern syntax: "(" and ".*" are plain text).', maxLength: 200 });

export const patternParam = (what: string) => textParam({ description: `Case-insensitive literal substring of ${what}.`, maxLength: 200 });

export interface GovidList {
  gids: number[];
  found: string[];
  /** Well-formed ids that are not in the registry. */
  unknown: string[];
}

export const MAX_GOVIDS = 1000;

/** A comma-separated list of canonical ids: malformed ones are a 400, unknown well-formed ones are reported, not refused. */
export const govidListParam: P<GovidList> = {
  description: `Comma-separated canonical_govid list (at most ${MAX_GOVIDS}). A malformed id is a 400; a well-formed unknown id is answered in provenance.scope.govids_missing.`,
  schema: { type: 'string', pattern: '^\\d{12}(,\\d{12})*$' },
  allowed: `up to ${MAX_GOVIDS} twelve-digit ids, comma-separated`,
  example: '062037161174,061037123085',
  list: '062037161174,061037123085',
  parse(raw, name, ctx) {
    const ids = [...new Set(raw.split(',').map((s) => s.trim()))];
    if (ids.length > MAX_GOVIDS) throw apiError('E_BAD_VALUE', 'tooManyGovids', { name, max: MAX_GOVIDS, count: ids.length });
    const out: GovidList = { gids: [], found: [], unknown: [] };
    for (const id of ids) {
      if (!GOVID.test(id)) throw govidFormatError(id);
      const gid = ctx.catalog.govId.get(id);
      if (gid === undefined) out.unknown.push(id);
      else { out.gids.push(gid); out.found.push(id); }
    }
    return out;
  },
};
