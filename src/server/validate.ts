// Compiles a route's declared parameters into one validator, once, at boot.
// Its result is the route's typed parameters (RouteSpec<Ctx, Q>): this is the
// one place an untyped query becomes Q, as the declarations say it does.

import { apiError, listValues } from './errors.js';
import type { Given, ParamSpec, RouteSpec } from './route-spec.js';

export type Validator<Ctx, Q = any> = (query: Map<string, string>, pathValues: string[], ctx: Ctx) => Q;

export function compileValidator<Ctx, Q>(route: RouteSpec<Ctx, Q>): Validator<Ctx, Q> {
  const queryEntries: [string, ParamSpec<Ctx>][] = Object.entries(route.query);
  const pathEntries: [string, ParamSpec<Ctx>][] = Object.entries(route.pathParams ?? {});
  const accepted = queryEntries.map(([k]) => k);
  // Read once here, not per key of every request.
  const refuseUnknown = route.ignoresUnknownKeys !== true;
  const acceptedText = listValues(accepted);

  return (query, pathValues, ctx) => {
    for (const key of query.keys()) {
      // Own keys only: `in` would let ?constructor= or ?toString= through as if declared.
      if (refuseUnknown && !Object.hasOwn(route.query, key)) {
        const why = route.rejects?.[key];
        throw why ? apiError('E_UNKNOWN_KEY', 'rejected', { key, path: route.path, why, accepted: acceptedText })
          : accepted.length === 0 ? apiError('E_UNKNOWN_KEY', 'unknownNoKeys', { key: printable(key), path: route.path })
          : apiError('E_UNKNOWN_KEY', 'unknown', { key: printable(key), path: route.path, accepted: acceptedText });
      }
    }
    // First what the request gave, in declaration order (so the first bad or missing key is the answer),
    // then the defaults of the rest, which may read what was given.
    const given: Record<string, unknown> = {};
    pathEntries.forEach(([name, spec], i) => {
      given[name] = spec.parse(pathValues[i] ?? '', name, ctx);
    });
    for (const [name, spec] of queryEntries) {
      const raw = query.get(name);
      if (raw !== undefined) given[name] = spec.parse(raw, name, ctx);
      else if (spec.required) throw spec.missing?.() ?? apiError('E_MISSING', 'required', { name, where: route.path });
    }
    const out: Record<string, unknown> = {};
    for (const [name] of pathEntries) out[name] = given[name];
    for (const [name, spec] of queryEntries) {
      if (name in given) out[name] = given[name];
      else if (spec.default !== undefined) out[name] = defaultOf(spec, ctx, given);
    }
    const params = out as Q; // the declarations type Q (ParamsOf): each key above is parsed or defaulted by its own spec
    for (const rule of route.rules ?? []) {
      const err = rule(params, ctx);
      if (err) throw err;
    }
    return params;
  };
}

const defaultOf = <Ctx>(spec: ParamSpec<Ctx>, ctx: Ctx, given: Given): unknown =>
  typeof spec.default === 'function' ? (spec.default as (c: Ctx, g: Given) => unknown)(ctx, given) : spec.default;

function printable(key: string): string {
  const s = key.length > 60 ? `${key.slice(0, 60)}...` : key;
  return s.replace(/[\u0000-\u001f\u007f]/g, '?');
}
