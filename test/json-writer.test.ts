// Rows written as JSON bytes from columns are exactly the UTF-8 of what
// JSON.stringify would have written, for random tables: plain and memoized
// cells included, and text past ASCII.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../dist/src/bytes/byte-writer.js';
import { rowObjects, writeMemo, type ColumnTable } from '../dist/src/bytes/column-table.js';
import { jsonRows, memoJson, plainJson } from '../dist/src/bytes/json-rows.js';
import { JsonRows, fail, ok, serialize, serializeText } from '../dist/src/server/envelope.js';
import { apiError } from '../dist/src/server/errors.js';

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

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
      expect(text(jsonRows(t))).toBe(expected);
      expect(Buffer.compare(jsonRows(t), Buffer.from(expected))).toBe(0);
    }), { numRuns: 300 });
  });

  it('runs of memo cells (written once per combination, then copied) give the same bytes, beside any other cell', () => {
    const word = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constant(null), fc.constant('x'.repeat(70000)));
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.constant('memo' as const), fc.constant('plain' as const), fc.constant('none' as const)), { minLength: 1, maxLength: 7 }),
      fc.array(word, { minLength: 1, maxLength: 4 }),
      fc.array(fc.nat(), { maxLength: 30 }),
      // Declared key counts up to 2^20: a run whose keys cannot combine below 2^30 splits, and the split keeps its keys.
      fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 7, maxLength: 7 }),
      (kinds, texts, seeds, scales) => {
        const names = kinds.map((k, c) => `${k}${c}`);
        // Memo column c reads text (seed + c) % texts.length: rows repeat combinations, as one government's answer does.
        const get = kinds.map((kind, c) => (i: number) => (kind === 'memo' ? texts[(seeds[i]! + c) % texts.length] : kind === 'plain' ? seeds[i]! * (c + 1) : `t${seeds[i]}`));
        // Every fifth row's memo cells are keyed -1: their fallback writes them, and the run is not memoized for that row.
        const json = kinds.map((kind, c) => (kind === 'memo'
          ? memoJson((i) => (seeds[i]! % 5 === 0 ? -1 : (seeds[i]! + c) % texts.length), texts.length * 2 ** scales[c]!, (k) => texts[k]!, undefined, (i, w) => w.text(JSON.stringify(get[c]!(i) ?? null)))
          : kind === 'plain' ? plainJson(get[c]!) : undefined));
        const t: ColumnTable = { names, get, n: seeds.length, json };
        expect(Buffer.compare(jsonRows(t), Buffer.from(JSON.stringify(rowObjects(t))))).toBe(0);
      },
    ), { numRuns: 300 });
  });

  it('memoized text is the JSON of each distinct value', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1 }), (names) => {
      const m = memoJson((i) => i % names.length, names.length, (k) => names[k]!);
      for (let i = 0; i < names.length * 2; i++) {
        const w = new ByteWriter(1);
        writeMemo(m, i, w);
        expect(text(w.written())).toBe(JSON.stringify(names[i % names.length]));
      }
    }));
  });

  it('the envelope serializer splices the rows in and keeps the key order', () => {
    const env = ok(new JsonRows((w) => w.text('[{"a":1}]'), 1, 0), { total: 1 }, null);
    const body = serializeText(env);
    expect(JSON.parse(body)).toEqual({ status: 'success', data: [{ a: 1 }], error: null, meta: { total: 1, version: 'v1' }, provenance: null, suggestions: [] });
    expect(Object.keys(JSON.parse(body))).toEqual(['status', 'data', 'error', 'meta', 'provenance', 'suggestions']);
  });

  it('an envelope with byte rows is bytes, and the same JSON as with the rows as values', () => {
    fc.assert(fc.property(fc.array(fc.record({ a: fc.string({ unit: 'grapheme' }), b: fc.integer() }), { maxLength: 8 }), fc.string({ unit: 'grapheme' }), (rows, note) => {
      const prov = { note, long: note.repeat(40) };
      // A size hint of 0 makes the body's buffer grow past it while the rows are written.
      const bytes = serialize(ok(new JsonRows((w) => w.text(JSON.stringify(rows)), rows.length, rows.length % 2 ? 0 : 4096), { total: rows.length }, prov));
      expect(bytes).toBeInstanceOf(Uint8Array);
      const asValues = serialize(ok(rows, { total: rows.length }, prov));
      expect(typeof asValues).toBe('string');
      expect(text(bytes as Uint8Array)).toBe(asValues);
    }), { numRuns: 200 });
    expect(serialize(fail(apiError('E_BAD_VALUE', 'oneYearOnPeers')))).toBeTypeOf('string');
  });

  it('the writer grows for text past its room and past ASCII, short and long', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 200 }), { maxLength: 10 }), fc.integer({ min: 1, max: 64 }), (parts, cap) => {
      const w = new ByteWriter(cap);
      for (const p of parts) w.text(p);
      expect(text(w.written())).toBe(parts.join(''));
    }));
  });
});
