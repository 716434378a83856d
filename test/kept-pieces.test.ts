// A run's pieces kept across answers (src/bytes/kept-pieces.ts): tables that
// share memos (as every answer of one corpus does) but differ in rows,
// columns, names and order still write exactly JSON.stringify of their row
// objects; and what is kept stays within its bounds however many distinct
// pieces and table shapes come.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteMemo, utf8 } from '../dist/src/bytes/byte-writer.js';
import { rowObjects, type ColumnTable, type MemoCell } from '../dist/src/bytes/column-table.js';
import { csvBytes, csvField, plainCsv } from '../dist/src/bytes/csv-writer.js';
import { jsonRows, jsonText, memoJson, plainJson } from '../dist/src/bytes/json-rows.js';
import { KEPT_BYTES, keptOf, keptPieces } from '../dist/src/bytes/kept-pieces.js';

/** The oracle: the row objects as JSON.stringify writes them. */
const oracle = (t: ColumnTable): Buffer => Buffer.from(JSON.stringify(rowObjects(t)));
/** The CSV oracle: the header and each row's values through csvField, joined by commas, CRLF after each line. */
const csvOracle = (t: ColumnTable): Buffer => Buffer.from([t.names, ...rowObjects(t).map((r) => Object.values(r))].map((row) => `${row.map(csvField).join(',')}\r\n`).join(''));

describe('kept pieces of JSON rows runs', () => {
  it('tables sharing memos, in any columns and order, each write the JSON of their rows', () => {
    fc.assert(fc.property(
      fc.array(fc.string({ unit: 'grapheme', maxLength: 10 }), { minLength: 1, maxLength: 5 }),
      // Each table: which of four shared memo columns it holds, in what order, under which of two names each, and its rows.
      fc.array(fc.record({
        order: fc.shuffledSubarray([0, 1, 2, 3], { minLength: 1 }),
        names: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        plainAt: fc.nat({ max: 4 }),
        seeds: fc.array(fc.nat({ max: 50 }), { maxLength: 25 }),
        // Columns 0 and 1 keyed apart (two functions) in some tables, alike in others: the same memos and names, another run.
        apart: fc.boolean(),
        // Column 2 declared with more keys than it uses in some tables: the same cells, another combined key.
        wide: fc.boolean(),
      }), { minLength: 1, maxLength: 6 }),
      (texts, tables) => {
        // Shared for every table, as the corpus's memos are for every answer. Columns 0 and 1 are keyed alike (a
        // government's id and name); column 3 has no key for every seventh row (its fallback writes it).
        const memos = [0, 1, 2, 3].map(() => new ByteMemo(8, jsonText));
        const textOf = (c: number) => (k: number): string => `${c}:${texts[k]!}`;
        for (const tb of tables) {
          // One key function for columns 0 and 1, as for a government's id and name: a run counts them once.
          const gov = (i: number): number => tb.seeds[i]! % texts.length;
          const keys = [gov, tb.apart ? (i: number) => (tb.seeds[i]! + 1) % texts.length : gov, (i: number) => (tb.seeds[i]! + 2) % texts.length, (i: number) => (tb.seeds[i]! % 7 === 0 ? -1 : (tb.seeds[i]! + 3) % texts.length)];
          const declared = (c: number): number => (c === 2 && tb.wide ? texts.length + 3 : texts.length);
          const names: string[] = [], get: ((i: number) => unknown)[] = [], json: (MemoCell | ReturnType<typeof plainJson>)[] = [];
          tb.order.forEach((c, at) => {
            if (at === tb.plainAt) { const amt = (i: number): number => tb.seeds[i]! * 1.5; names.push('amt'); get.push(amt); json.push(plainJson(amt)); }
            const key = keys[c]!;
            const value = (i: number): string => (key(i) < 0 ? `own${tb.seeds[i]}` : textOf(c)(key(i)));
            names.push(`${tb.names[c] ? 'n' : 'm'}${c}`);
            get.push(value);
            json.push(memoJson(key, declared(c), (k) => textOf(c)(k), memos[c], (i, w) => w.text(JSON.stringify(value(i)))));
          });
          const t: ColumnTable = { names, get, n: tb.seeds.length, json };
          expect(Buffer.compare(jsonRows(t), oracle(t))).toBe(0);
        }
      },
    ), { numRuns: 300 });
  });

  it('CSV pages sharing memos, in any columns and order, each write the records of their rows', () => {
    fc.assert(fc.property(
      fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 10 }), fc.constantFrom('a,b', 'q"q', 'x|y', 'l\nm')), { minLength: 1, maxLength: 5 }),
      fc.array(fc.record({
        order: fc.shuffledSubarray([0, 1, 2, 3], { minLength: 1 }),
        plainAt: fc.nat({ max: 4 }),
        seeds: fc.array(fc.nat({ max: 50 }), { maxLength: 25 }),
      }), { minLength: 1, maxLength: 6 }),
      (texts, tables) => {
        // As the corpus's CSV memos are shared by every page: columns 0 and 1 keyed alike, column 3 unkeyed every seventh row.
        const memos = [0, 1, 2, 3].map(() => new ByteMemo(8, csvField));
        const textOf = (c: number) => (k: number): string => `${c}:${texts[k]!}`;
        for (const tb of tables) {
          const gov = (i: number): number => tb.seeds[i]! % texts.length;
          const keys = [gov, gov, (i: number) => (tb.seeds[i]! + 2) % texts.length, (i: number) => (tb.seeds[i]! % 7 === 0 ? -1 : (tb.seeds[i]! + 3) % texts.length)];
          const names: string[] = [], get: ((i: number) => unknown)[] = [], csv: (MemoCell | ReturnType<typeof plainCsv>)[] = [];
          tb.order.forEach((c, at) => {
            if (at === tb.plainAt) { const amt = (i: number): number => tb.seeds[i]! * 7; names.push('amt'); get.push(amt); csv.push(plainCsv(amt)); }
            const key = keys[c]!;
            const value = (i: number): string => (key(i) < 0 ? `own,${tb.seeds[i]}` : textOf(c)(key(i)));
            names.push(`m${c}`);
            get.push(value);
            csv.push({ key, keys: texts.length, text: textOf(c), memo: memos[c]!, fallback: (i, w) => w.text(csvField(value(i))) });
          });
          const t: ColumnTable = { names, get, n: tb.seeds.length, csv };
          expect(Buffer.from(csvBytes(t, 16)).toString()).toBe(csvOracle(t).toString());
        }
      },
    ), { numRuns: 300 });
  });

  it('the same memos and names keyed alike in one table and apart in another, or declared with other key counts, keep apart', () => {
    const texts = ['a', 'b', 'c'];
    const memoA = new ByteMemo(4, jsonText), memoB = new ByteMemo(4, jsonText);
    const table = (keyB: (i: number) => number, keysB: number): ColumnTable => {
      const keyA = (i: number): number => i % 3;
      const get = [(i: number) => texts[keyA(i)], (i: number) => texts[keyB(i)]];
      return { names: ['x', 'y'], get, n: 6, json: [memoJson(keyA, 3, (k) => texts[k]!, memoA), memoJson(keyB, keysB, (k) => texts[k]!, memoB)] };
    };
    const alikeKey = (i: number): number => i % 3;
    // Alike: one factor (key i % 3). Apart: two (keys i % 3 and (i + 1) % 3). Then apart again with column y declared wider.
    const tables = [table(alikeKey, 3), table((i) => (i + 1) % 3, 3), table((i) => (i + 2) % 3, 5)];
    // Column y's key function is column x's own in the first table: the run counts them once.
    tables[0]!.json![1] = memoJson(tables[0]!.json![0]!.key as (i: number) => number, 3, (k) => texts[k]!, memoB);
    for (const t of [...tables, ...tables]) expect(Buffer.from(jsonRows(t)).toString()).toBe(oracle(t).toString());
  });

  it('the same memos under the same names with one column between them changed still match', () => {
    // A piece holds the key after the run: a table whose next column differs must not copy the other's piece.
    const memo = new ByteMemo(4, jsonText), texts = ['a', 'b'];
    const table = (next: string): ColumnTable => {
      const get = [(i: number) => texts[i % 2], (i: number) => i];
      return { names: ['w', next], get, n: 4, json: [memoJson((i) => i % 2, 2, (k) => texts[k]!, memo), plainJson(get[1]!)] };
    };
    for (const next of ['x', 'y', 'x']) {
      const t = table(next);
      expect(Buffer.from(jsonRows(t)).toString()).toBe(oracle(t).toString());
    }
  });

  it('keeps at most KEPT_BYTES a run, and still writes every row right past it', () => {
    const memo = new ByteMemo(16, jsonText);
    const long = (k: number): string => `${k}:${'x'.repeat(2000)}`;
    // 3,000 distinct pieces of about 2 KB: 6 MB, past the 4 MB bound.
    const keys = 3000;
    const t: ColumnTable = { names: ['w'], get: [(i) => long(i)], n: keys, json: [memoJson((i) => i, keys, long, memo)] };
    expect(Buffer.compare(jsonRows(t), oracle(t))).toBe(0);
    expect(keptOf(memo).bytes).toBeGreaterThan(KEPT_BYTES / 2);
    expect(keptOf(memo).bytes).toBeLessThanOrEqual(KEPT_BYTES);
    // Written again, the kept half is copied and the rest written: the same bytes.
    expect(Buffer.compare(jsonRows(t), oracle(t))).toBe(0);
  });

  it('keeps runs for at most 64 table shapes a memo', () => {
    const memo = new ByteMemo(4, jsonText);
    for (let s = 0; s < 100; s++) {
      const get = [(i: number) => ['a', 'b'][i % 2], (i: number) => i];
      const t: ColumnTable = { names: [`w${s}`, 'v'], get, n: 2, json: [memoJson((i) => i % 2, 2, (k) => ['a', 'b'][k]!, memo), plainJson(get[1]!)] };
      expect(Buffer.from(jsonRows(t)).toString()).toBe(oracle(t).toString());
    }
    expect(keptOf(memo).runs).toBe(64);
  });

  it('past 64 shapes a memo, makes no view table for a new run and keeps none of its pieces', () => {
    const memo = new ByteMemo(4, jsonText), texts = ['a', 'b'];
    const cell = memoJson((i) => i % 2, 2, (k) => texts[k]!, memo);
    for (let s = 0; s < 64; s++) keptPieces([cell], [cell], 2, utf8(`{"w${s}":`), [utf8(`{"w${s}":`)], null);
    expect(keptOf(memo).runs).toBe(64);
    // A run of 2^17 keys, as wide as a kept run can be: its table would be 2^17 slots, for this answer only.
    const wide = memoJson((i) => i, 2 ** 17, (k) => `k${k}`, memo);
    const past = keptPieces([wide], [wide], 2 ** 17, utf8('{"x":'), [utf8('{"x":')], null);
    expect(past.views.length).toBe(0);
    // Handed a piece, it keeps none: no view, no chunk.
    past.keep(5, utf8('{"x":"k5"'), 0, 9);
    expect([past.views.length, past.bytes]).toEqual([0, 0]);
    const t: ColumnTable = { names: ['x'], get: [(i) => `k${i}`], n: 3, json: [wide] };
    expect(Buffer.from(jsonRows(t)).toString()).toBe(oracle(t).toString());
    expect(Buffer.from(jsonRows(t)).toString()).toBe(oracle(t).toString());
    expect(keptOf(memo)).toEqual({ runs: 64, bytes: 0 });
  });
});
