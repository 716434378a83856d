// Compiles a route's declared parameters into one validator, once, at boot.

import { apiError, listValues } from './errors.js';
import type { ParamSpec, RouteSpec } from './route-spec.js';

export type Validator<Ctx> = (query: Map<string, string>, pathValues: string[], ctx: Ctx) => Record<string, unknown>;

export function compileValidator<Ctx>(route: RouteSpec<Ctx>): Validator<Ctx> {
  const queryEntries = Object.entries(route.query) as [string, ParamSpec<Ctx>][];
  const pathEntries = Object.entries(route.pathParams ?? {}) as [string, ParamSpec<Ctx>][];
  const accepted = queryEntries.map(([k]) => k);
  const acceptedText = accepted.length === 0 ? 'this route accepts no query parameters' : `accepted keys: ${listValues(accepted)}`;

  return (query, pathValues, ctx) => {
    for (const key of query.keys()) {
      if (!(key in route.query)) {
        const why = route.rejects?.[key];
        throw apiError('E_UNKNOWN_KEY', why
          ? `Query parameter '${key}' is not accepted by ${route.path}: ${why} Accepted keys: ${listValues(accepted)}.`
          : `Unknown query parameter '${printable(key)}' for ${route.path}; ${acceptedText}.`);
      }
    }
    const out: Record<string, unknown> = {};
    pathEntries.forEach(([name, spec], i) => {
      out[name] = spec.parse(pathValues[i] ?? '', name, ctx);
    });
    for (const [name, spec] of queryEntries) {
      const raw = query.get(name);
      if (raw !== undefined) {
        out[name] = spec.parse(raw, name, ctx);
      } else if (spec.required) {
        throw apiError('E_MISSING', spec.requiredMessage ?? `${name} is required for ${route.path}.`);
      } else if (spec.default !== undefined) {
        out[name] = typeof spec.default === 'function' ? (spec.default as (c: Ctx) => unknown)(ctx) : spec.default;
      }
    }
    for (const rule of route.rules ?? []) {
      const err = rule(out, ctx);
      if (err) throw err;
    }
    return out;
  };
}

function printable(key: string): string {
  const s = key.length > 60 ? `${key.slice(0, 60)}...` : key;
  return s.replace(/[\u0000-\u001f\u007f]/g, '?');
}
