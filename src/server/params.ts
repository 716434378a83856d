// Builders for the parameter kinds both services share. Each returns a
// ParamSpec: its parse function and the schema/docs text derived from the
// same arguments, so the docs cannot drift from what is enforced.

import { apiError, listValues, type ApiError } from './errors.js';
import type { ParamSpec } from './route-spec.js';
import { FORMATS, type Format } from './formats.js';

/**
 * A builder's spec, typed with whether it has a default: given one (D not
 * undefined), the parameter is always present in the route's typed params.
 */
export type WithDefault<S extends ParamSpec<any, any>, D> = undefined extends D ? S : S & { default: NonNullable<D> };

/** The spec, required: validation refuses a request without it, so its value is always present. */
export function required<S extends ParamSpec<any, any>>(spec: S, missing?: () => ApiError): S & { required: true } {
  // A required parameter has no default: the schema must not offer one (a client reading it would omit the parameter).
  const { default: _d, ...schema } = spec.schema as Record<string, unknown>;
  return { ...spec, schema, required: true, ...(missing !== undefined ? { missing } : {}) };
}

/**
 * The spec, with the default it declares made known to its type, where its
 * builder's return type drops it (e.g. a spec annotated `ParamSpec<Ctx, T>`).
 */
export function defaulted<S extends ParamSpec<any, any>>(spec: S): S & { default: NonNullable<S['default']> } {
  const d: S['default'] = spec.default;
  if (d === undefined || d === null) throw new Error(`defaulted(): the parameter '${spec.description}' declares no default`);
  return { ...spec, default: d };
}

/** The spec with the example the docs fill in (Swagger UI's Try it out), or none: a route's examples must answer together. */
export function withExample<S extends ParamSpec<any, any>>(spec: S, example: string | undefined): S {
  const { example: _old, ...rest } = spec;
  return { ...rest, ...(example !== undefined ? { example } : {}) } as S;
}

const INT_RE = /^-?\d{1,15}$/;

export function intParam<D extends number | undefined = number | undefined>(
  o: { description: string; min: number; max: number; default?: D; capped?: boolean },
): WithDefault<ParamSpec<unknown, number>, D> {
  const spec: ParamSpec<unknown, number> = {
    description: o.description,
    schema: { type: 'integer', minimum: o.min, maximum: o.max, ...(o.default !== undefined ? { default: o.default } : {}) },
    allowed: `integer ${o.min} to ${o.max}`,
    default: o.default,
    parse(raw, name) {
      if (!INT_RE.test(raw)) throw apiError('E_BAD_VALUE', 'notInteger', { name, min: o.min, max: o.max, raw: clip(raw) });
      const n = Number(raw);
      if (o.capped && n > o.max) {
        throw apiError('E_LIMIT_CAP', 'routeCap', { name, max: o.max, value: n });
      }
      if (n < o.min || n > o.max) throw apiError('E_BAD_VALUE', 'outOfRange', { name, min: o.min, max: o.max, value: n });
      return n;
    },
  };
  return spec as WithDefault<ParamSpec<unknown, number>, D>; // default is o.default: present exactly when D says so
}

/**
 * An enumeration. Matching is case-insensitive; the canonical spelling is
 * returned. `aliases` maps extra accepted spellings to canonical values.
 */
interface EnumOptions<T extends string> {
  description: string;
  values: readonly T[];
  default?: T;
  aliases?: Record<string, T>;
  /** The error for a value not in the list, when the default ("must be one of ...") would mislead. */
  refuse?: (raw: string, name: string) => ApiError;
}

// Overloads rather than a type parameter for the default: inside a route's query the call is contextually
// typed, and inference would then lose whether a default was given.
export function enumParam<const T extends string>(o: EnumOptions<T> & { default: NoInfer<T> }): ParamSpec<unknown, T> & { default: T };
export function enumParam<const T extends string>(o: EnumOptions<T>): ParamSpec<unknown, T>;
export function enumParam<T extends string>(o: EnumOptions<T>): ParamSpec<unknown, T> {
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
        throw o.refuse?.(raw, name) ?? apiError('E_BAD_VALUE', 'notOneOf', { name, values: listValues(shown), raw: clip(raw) });
      }
      return v;
    },
    spell: (v) => v,
  };
}

export function boolParam<D extends boolean | undefined = boolean | undefined>(o: { description: string; default?: D }): WithDefault<ParamSpec<unknown, boolean>, D> {
  const spec: ParamSpec<unknown, boolean> = {
    description: o.description,
    schema: { type: 'string', enum: ['true', 'false'], ...(o.default !== undefined ? { default: String(o.default) } : {}) },
    allowed: 'true, false',
    default: o.default,
    parse(raw, name) {
      const v = raw.toLowerCase();
      if (v === 'true') return true;
      if (v === 'false') return false;
      throw apiError('E_BAD_VALUE', 'notOneOf', { name, values: 'true, false', raw: clip(raw) });
    },
    spell: (v) => String(v),
  };
  return spec as WithDefault<ParamSpec<unknown, boolean>, D>; // default is o.default: present exactly when D says so
}

/** Free text, matched literally wherever it is used (never as a pattern). */
export function textParam(o: { description: string; maxLength: number }): ParamSpec<unknown, string> {
  return {
    description: o.description,
    schema: { type: 'string', maxLength: o.maxLength },
    allowed: `text, at most ${o.maxLength} characters, matched literally`,
    literal: true,
    parse(raw, name) {
      if (raw.length > o.maxLength) throw apiError('E_BAD_VALUE', 'tooLong', { name, max: o.maxLength, length: raw.length });
      return raw;
    },
  };
}

/** Shortens a client value quoted back in a message. */
export function clip(raw: string, n = 80): string {
  const s = raw.length > n ? `${raw.slice(0, n)}...` : raw;
  return s.replace(/[\u0000-\u001f\u007f]/g, '?');
}

/**
 * The `format` parameter of a route that offers these formats, the first the
 * default: its values and its text come from the registry (src/formats/registry.ts).
 */
export function formatParam<const F extends Format>(formats: readonly [F, ...F[]]): ParamSpec<unknown, F> {
  const texts = formats.map((f) => FORMATS[f].paramText);
  const description = texts.length === 1 ? texts[0]! : `${texts.slice(0, -1).join(', ')} or ${texts.at(-1)!}`;
  return enumParam<F>({ description: `${description}.`, values: formats });
}
