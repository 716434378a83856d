// The envelope's own JSON writer (src/bytes/json-value.ts, issue 32) writes
// exactly the UTF-8 of JSON.stringify's text for any value an envelope may
// hold, fixed fragments included; and serialize() of an envelope with byte
// rows is the JSON.stringify of the same envelope with its rows as values.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../dist/src/bytes/byte-writer.js';
import { fixedJson, writeJson } from '../dist/src/bytes/json-value.js';
import { JsonRows, ok, serialize } from '../dist/src/server/envelope.js';

const written = (v: unknown, capacity = 16): Buffer => {
  const w = new ByteWriter(capacity);
  writeJson(w, v);
  return Buffer.from(w.written());
};
/** The oracle: JSON.stringify's text, as UTF-8. */
const stringified = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8');

/** Strings an envelope may carry: escapes, control characters, quotes, past ASCII, lone surrogates, and long ones (the SQL). */
const str = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', 'é', '\ud800', '\udc00', "'", 'a') }),
  fc.string({ minLength: 60, maxLength: 200 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 65, maxLength: 3000 }),
  fc.tuple(fc.string({ unit: 'grapheme-ascii', minLength: 70, maxLength: 300 }), fc.constantFrom('"', '\\', '\t', 'ü', '\ud83d\ude00', '\udfff')).map(([s, c]) => s + c + s),
);
const num = fc.oneof(
  fc.double(), fc.integer(), fc.constantFrom(1e21, -1e21, 1e-7, -0, 0, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 2 ** 53, 0.1 + 0.2, 5e-324),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, str, num, fc.boolean(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(fc.oneof(tie('value'), fc.constant(undefined)), { maxLength: 6 }),
  // Keys as an envelope's are and as the walk must order them: integer-like ones, escapes, undefined values.
  object: fc.dictionary(fc.oneof(str, fc.constantFrom('0', '1', '10', '2', '-1', '01', 'version', '__proto__')), fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 6 }),
}));

describe('json-value writer', () => {
  it('writes the bytes of JSON.stringify for any envelope value', () => {
    fc.assert(fc.property(value, fc.integer({ min: 1, max: 4096 }), (v, capacity) => {
      expect(Buffer.compare(written(v, capacity), stringified(v))).toBe(0);
    }), { numRuns: 2000 });
  });

  it('writes strings past ASCII and with escapes as JSON.stringify does, short and long', () => {
    for (const s of ['', 'plain', 'a"b', 'back\\slash', 'tab\t', 'nul\u0000', 'del\u007f', 'café', '\ud800 lone', 'pair \ud83d\ude00', 'x'.repeat(64) + '"', 'x'.repeat(65), 'x'.repeat(500) + '\u2028', 'y'.repeat(2000) + 'é']) {
      expect(written(s).toString('utf8')).toBe(JSON.stringify(s));
      expect(written({ [s]: [s, null] }).toString('utf8')).toBe(JSON.stringify({ [s]: [s, null] }));
    }
  });

  it('writes numbers, holes and values JSON.stringify drops as it does', () => {
    const v = { a: undefined, b: [undefined, NaN, -0, 1e21, -Infinity, 1.5e-9, 123456789012345680000], c: () => 1, d: Symbol('s'), e: new Date(0), f: Object.assign(Object.create(null), { x: 1 }), g: { toJSON: () => 'mine' } };
    // eslint-disable-next-line no-sparse-arrays
    const sparse = [1, , 3];
    expect(written(v).toString('utf8')).toBe(JSON.stringify(v));
    expect(written(sparse).toString('utf8')).toBe(JSON.stringify(sparse));
  });

  it('copies a fixed fragment as the JSON it had when registered, and refuses changes to it', () => {
    fc.assert(fc.property(value.filter((v) => typeof v === 'object' && v !== null), (v) => {
      const expected = stringified({ k: v, again: v });
      const fixed = fixedJson(v as object);
      expect(Buffer.compare(written({ k: fixed, again: fixed }), expected)).toBe(0);
      expect(Object.isFrozen(fixed)).toBe(true);
    }), { numRuns: 300 });
    const f = fixedJson({ a: [1, 2] });
    expect(() => { (f.a as number[]).push(3); }).toThrow(TypeError);
  });

  it('serialize() of an envelope with byte rows is JSON.stringify of it with the rows as values, as tails grow and shrink', () => {
    const rows = fc.array(fc.record({ year: fc.integer(), name: str, amt: num }), { maxLength: 6 });
    // Every body is checked again at the end: bodies share a slab, and none may be written over by a later one.
    const kept: [Uint8Array, string][] = [];
    fc.assert(fc.property(fc.array(fc.tuple(rows, fc.dictionary(str, value, { maxKeys: 5 }), fc.dictionary(str, value, { maxKeys: 8 }), fc.array(value, { maxLength: 3 })), { minLength: 1, maxLength: 6 }), (envs) => {
      for (const [data, meta, prov, suggestions] of envs) {
        // Size hints of 0 and of plenty: the body grows past a short one.
        const env = ok(new JsonRows((w) => writeJson(w, data), data.length, data.length % 2 ? 0 : 4096), meta, prov, suggestions);
        const expected = JSON.stringify({ status: 'success', data, error: null, meta: { ...meta, version: 'v1' }, provenance: prov, suggestions });
        const body = serialize(env);
        expect(body).toBeInstanceOf(Uint8Array);
        expect(Buffer.compare(Buffer.from(body as Uint8Array), Buffer.from(expected, 'utf8'))).toBe(0);
        kept.push([body as Uint8Array, expected]);
      }
    }), { numRuns: 300 });
    for (const [body, expected] of kept) expect(Buffer.from(body).toString('utf8')).toBe(expected);
    expect(kept.length).toBeGreaterThan(300);
  });
});
