// Rows written as JSON text from columns parse to exactly the objects that
// JSON.stringify would have written, for random tables: plain and memoized
// getters included.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonRows, memoJson, plainJson, rowObjects, type ColumnTable } from '../src/server/csv.js';
import { JsonRows, ok, serialize } from '../src/server/envelope.js';

const value = fc.oneof(fc.string({ unit: 'grapheme' }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));

describe('JSON rows writer', () => {
  it('writes the JSON of the row objects, byte for byte', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 5 }).chain((w) => fc.tuple(
      // Integer-like keys and __proto__ would be mangled by the object oracle itself; column names never are.
      fc.uniqueArray(fc.string({ minLength: 1 }).filter((k) => !/^(0|[1-9]\d*)$/.test(k) && k !== '__proto__'), { minLength: w, maxLength: w }),
      fc.array(fc.array(value, { minLength: w, maxLength: w }), { maxLength: 20 }),
    )), ([names, rows]) => {
      const get = names.map((_, c) => (i: number) => rows[i]![c]);
      const t: ColumnTable = { names, get, n: rows.length, json: get.map((g, c) => (c % 2 ? plainJson(g) : undefined)) };
      const expected = JSON.stringify(rowObjects({ names, get, n: rows.length }));
      // plainJson writes null for non-finite numbers, as JSON.stringify does.
      expect(jsonRows(t)).toBe(expected);
    }), { numRuns: 300 });
  });

  it('memoized text is the JSON of each distinct value', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1 }), (names) => {
      const m = memoJson((i) => i % names.length, (k) => names[k]!);
      for (let i = 0; i < names.length * 2; i++) expect(m(i)).toBe(JSON.stringify(names[i % names.length]));
    }));
  });

  it('the envelope serializer splices the rows in and keeps the key order', () => {
    const env = ok(new JsonRows('[{"a":1}]', 1), { total: 1 }, null);
    const text = serialize(env);
    expect(JSON.parse(text)).toEqual({ status: 'success', data: [{ a: 1 }], error: null, meta: { total: 1, version: 'v1' }, provenance: null, suggestions: [] });
    expect(Object.keys(JSON.parse(text))).toEqual(['status', 'data', 'error', 'meta', 'provenance', 'suggestions']);
  });
});
