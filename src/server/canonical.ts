// The canonical form of a request: the route's path with its values, and the
// query keys the request gave, in the route's declared order, each value
// encoded one way. `?&&&`, reordered keys and other spellings of one value
// (`+` or `%20` for a space, `%2C` or `,`) are one request: one response-cache
// entry, one ETag, one row-count memo entry, and the `call` that provenance
// echoes. So a cached body never names another spelling's URL, and a flood of
// spellings of one query cannot grow the caches. A parameter that declares a
// spelling (ParamSpec.spell) is written in it: `state=ca` and `type=City` are
// `state=CA` and `type=city`, as the answer reads them.

import type { RouteSpec } from './route-spec.js';

// encodeURIComponent escapes these, but a query value may hold them as they are (RFC 3986 3.4): `,` separates
// list items and `:` appears in names, so leaving them bare keeps the canonical URL readable.
const BARE_IN_VALUE = /%(?:2C|3A|2F|40|3B|24)/g;
const BARE_IN_SEGMENT = /%(?:2C|3A|40|3B|24)/g;
const unescape = (m: string): string => String.fromCharCode(parseInt(m.slice(1), 16));

const encodeWith = (bare: RegExp) => (v: string): string => {
  const e = encodeURIComponent(v);
  return e.includes('%') ? e.replace(bare, unescape) : e;
};
export const encodeQueryValue = encodeWith(BARE_IN_VALUE);
const encodeSegment = encodeWith(BARE_IN_SEGMENT);

/** What a route needs to canonicalize its requests, compiled once. */
export interface Canonicalizer {
  /** params: the route's validated parameters of this query (by name), ctx the service's: what spellings read. */
  (pathValues: readonly string[], query: ReadonlyMap<string, string>, params: unknown, ctx: unknown): string;
}

export function compileCanonical<Ctx>(spec: RouteSpec<Ctx>): Canonicalizer {
  const pieces = spec.path.split(/\{[^}]+\}/);
  const keys = Object.keys(spec.query);
  const spells = keys.map((k) => spec.query[k]!.spell as ((v: unknown, raw: string, ctx: unknown) => string) | undefined);
  return (pathValues, query, params, ctx) => {
    let url = pieces[0]!;
    for (let i = 1; i < pieces.length; i++) url += encodeSegment(pathValues[i - 1] ?? '') + pieces[i]!;
    if (query.size === 0) return url;
    let sep = '?';
    // Only declared keys reach here: the validate stage refused any other.
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const v = query.get(k);
      if (v === undefined) continue;
      const spell = spells[i];
      url += `${sep}${k}=${encodeQueryValue(spell === undefined ? v : spell((params as Record<string, unknown>)[k], v, ctx))}`;
      sep = '&';
    }
    return url;
  };
}
