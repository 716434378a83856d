// Builders for the parameter kinds both services share. Each returns a
// ParamSpec: its parse function and the schema/docs text derived from the
// same arguments, so the docs cannot drift from what is enforced.

import { apiError, listValues } from './errors.js';
import type { ParamSpec } from './route-spec.js';

const INT_RE = /^-?\d{1,15}$/;

export function intParam(o: { description: string; min: number; max: number; default?: number; capped?: boolean }): ParamSpec<unknown, number> {
  return {
    description: o.description,
    schema: { type: 'integer', minimum: o.min, maximum: o.max, ...(o.default !== undefined ? { default: o.default } : {}) },
    allowed: `integer ${o.min} to ${o.max}`,
    default: o.default,
    parse(raw, name) {
      if (!INT_RE.test(raw)) throw apiError('E_BAD_VALUE', `${name} must be an integer from ${o.min} to ${o.max}; got '${clip(raw)}'.`);
      const n = Number(raw);
      if (o.capped && n > o.max) {
        throw apiError('E_LIMIT_CAP', `${name} must be at most ${o.max} (the cap of this route); got ${n}. It is never clamped: walk pages with page=0,1,2,...`);
      }
      if (n < o.min || n > o.max) throw apiError('E_BAD_VALUE', `${name} must be an integer from ${o.min} to ${o.max}; got ${n}.`);
      return n;
    },
  };
}

/**
 * An enumeration. Matching is case-insensitive; the canonical spelling is
 * returned. `aliases` maps extra accepted spellings to canonical values.
 */
export function enumParam<T extends string>(o: {
  description: string;
  values: readonly T[];
  default?: T;
  aliases?: Record<string, T>;
  message?: (raw: string, name: string) => string;
}): ParamSpec<unknown, T> {
  const lookup = new Map<string, T>();
  for (const v of o.values) lookup.set(v.toLowerCase(), v);
  for (const [k, v] of Object.entries(o.aliases ?? {})) lookup.set(k.toLowerCase(), v);
  const shown = [...o.values, ...Object.keys(o.aliases ?? {})];
  return {
    description: o.description,
    schema: { type: 'string', enum: shown, ...(o.default !== undefined ? { default: o.default } : {}) },
    allowed: listValues(shown),
    default: o.default,
    parse(raw, name) {
      const v = lookup.get(raw.toLowerCase());
      if (v === undefined) {
        throw apiError('E_BAD_VALUE', o.message?.(raw, name) ?? `${name} must be one of ${listValues(shown)}; got '${clip(raw)}'.`);
      }
      return v;
    },
  };
}

export function boolParam(o: { description: string; default?: boolean }): ParamSpec<unknown, boolean> {
  return {
    description: o.description,
    schema: { type: 'string', enum: ['true', 'false'], ...(o.default !== undefined ? { default: String(o.default) } : {}) },
    allowed: 'true, false',
    default: o.default,
    parse(raw, name) {
      const v = raw.toLowerCase();
      if (v === 'true') return true;
      if (v === 'false') return false;
      throw apiError('E_BAD_VALUE', `${name} must be one of true, false; got '${clip(raw)}'.`);
    },
  };
}

/** Free text, matched literally wherever it is used (never as a pattern). */
export function textParam(o: { description: string; maxLength: number }): ParamSpec<unknown, string> {
  return {
    description: o.description,
    schema: { type: 'string', maxLength: o.maxLength },
    allowed: `text, at most ${o.maxLength} characters, matched literally`,
    parse(raw, name) {
      if (raw.length > o.maxLength) throw apiError('E_BAD_VALUE', `${name} must be at most ${o.maxLength} characters; got ${raw.length}.`);
      return raw;
    },
  };
}

/** Shortens a client value quoted back in a message. */
export function clip(raw: string, n = 80): string {
  const s = raw.length > n ? `${raw.slice(0, n)}...` : raw;
  return s.replace(/[\u0000-\u001f\u007f]/g, '?');
}
