// The JSON rows loop compiled per table shape (src/bytes/json-rows-compiled.ts)
// writes exactly JSON.stringify of the row objects, and the same bytes as the
// generic loop, for random tables of every step kind: plain cells of any
// value, other cells, memo cells alone, runs kept across answers and runs kept
// for one answer, rows a run does not key, keys written by a step or by the
// run before it. And the shapes it compiles stay bounded.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteMemo, ByteWriter } from '../dist/src/bytes/byte-writer.js';
import { rowObjects, type ColumnTable, type MemoCell } from '../dist/src/bytes/column-table.js';
import { genericRows, jsonRows, jsonText, memoJson, plainJson, rowHelpers, stepsOf } from '../dist/src/bytes/json-rows.js';
import { MAX_SHAPES, compileRows, compiledShapes } from '../dist/src/bytes/json-rows-compiled.js';

/** JSON.stringify of the row objects, an undefined cell as null (the writers write every column; JSON.stringify would drop the key). */
const oracle = (t: ColumnTable): Buffer => Buffer.from(JSON.stringify(rowObjects(t), (_k, v: unknown) => (v === undefined ? null : v)));

/** The rows by a writer made now for this table's shape (not the cached one), into a fresh buffer. */
function compiled(t: ColumnTable): Buffer {
  const steps = stepsOf(t), w = new ByteWriter(16);
  compileRows(steps, rowHelpers)(steps, t.n, w);
  return Buffer.from(w.written());
}
function generic(t: ColumnTable): Buffer {
  const w = new ByteWriter(16);
  genericRows(stepsOf(t), t.n, w);
  return Buffer.from(w.written());
}

const plainValue = fc.oneof(
  fc.integer(), fc.double(), fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, 2 ** 53, 1e21, 1e-7),
  fc.boolean(), fc.constant(null), fc.constant(undefined), fc.string({ unit: 'grapheme', maxLength: 8 }),
);
type Kind = 'plain' | 'text' | 'none' | 'memo' | 'wide' | 'narrow' | 'gov' | 'govName';

/** A memo column over a few words, keyed by key(i) (declared keys: keys). */
function memoColumn(name: string, key: (i: number) => number, keys: number): { name: string; get: (i: number) => unknown; json: MemoCell } {
  const textOf = (k: number): string => `${name}-${k}`;
  return { name, get: (i) => textOf(key(i)), json: memoJson(key, keys, textOf, new ByteMemo(8, jsonText)) };
}
const tableOf = (cols: { name: string; get: (i: number) => unknown; json?: MemoCell | ReturnType<typeof plainJson> }[], n: number): ColumnTable =>
  ({ names: cols.map((c) => c.name), get: cols.map((c) => c.get), n, json: cols.map((c) => c.json) });

describe('compiled JSON rows', () => {
  // First in the file (each file runs in a process of its own): the cache of shapes starts empty here.
  it('give each shape its own writer: tables that differ in one step each get a new one, the same shape again none', () => {
    const n = 12;
    const num = (name: string): { name: string; get: (i: number) => unknown; json: ReturnType<typeof plainJson> } => {
      const get = (i: number): number => i * 1.5;
      return { name, get, json: plainJson(get) };
    };
    const text = { name: 't', get: (i: number) => `t"${i}`, json: (i: number, w: ByteWriter) => w.text(JSON.stringify(`t"${i}`)) };
    const gov = (i: number): number => i % 3;
    const tables = [
      tableOf([num('a')], n), // a plain cell
      tableOf([text], n), // another cell, same place
      tableOf([memoColumn('id', gov, 3), memoColumn('name', gov, 3), num('a')], n), // a kept run of one factor; the cell's key in its piece
      tableOf([memoColumn('id', gov, 3), memoColumn('name', (i) => (i + 1) % 3, 3), num('a')], n), // two factors
      tableOf([memoColumn('w1', (i) => i, 2 ** 20), memoColumn('w2', (i) => i, 2 ** 20), num('a')], n), // a run kept for the answer
      tableOf([num('a'), memoColumn('id', gov, 3)], n), // a kept run writing its own key
    ];
    expect(compiledShapes()).toBe(0);
    tables.forEach((t, k) => {
      expect(Buffer.compare(Buffer.from(jsonRows(t)), oracle(t))).toBe(0);
      expect(compiledShapes()).toBe(k + 1);
    });
    // The first shape again, other rows: its writer is found, and writes them right.
    const again = tableOf([num('b')], 5);
    expect(Buffer.compare(Buffer.from(jsonRows(again)), oracle(again))).toBe(0);
    expect(compiledShapes()).toBe(tables.length);
  });

  it('make at most MAX_SHAPES writers, and every table past them is still written right', () => {
    // Second in the file: nearly all of these are written by writers made here. Tables of 9 columns, each a plain
    // cell or a text cell: as many shapes as tables, past the bound.
    for (let s = 0; s < MAX_SHAPES + 60; s++) {
      const kinds = s.toString(2).padStart(9, '0').split('').map(Number);
      const names = kinds.map((k, c) => `c${c}k${k}`), n = 3;
      const get = kinds.map((k, c) => (i: number): unknown => (k === 1 ? i * c + 0.5 : `v${i}${c}`));
      const json = kinds.map((k, c) => (k === 1 ? plainJson(get[c]!) : (i: number, w: ByteWriter) => w.text(JSON.stringify(get[c]!(i)))));
      const t: ColumnTable = { names, get, n, json };
      expect(Buffer.compare(Buffer.from(jsonRows(t)), oracle(t))).toBe(0);
    }
    expect(compiledShapes()).toBe(MAX_SHAPES);
  });

  it('write the JSON of the row objects, the same bytes as the generic loop, the first time and every later one', () => {
    fc.assert(fc.property(
      fc.array(fc.constantFrom<Kind>('plain', 'text', 'none', 'memo', 'wide', 'narrow', 'gov', 'govName'), { minLength: 1, maxLength: 9 }),
      fc.array(fc.string({ unit: 'grapheme', maxLength: 10 }), { minLength: 1, maxLength: 5 }),
      fc.array(fc.tuple(fc.nat({ max: 40 }), plainValue), { maxLength: 30 }),
      (kinds, texts, rows) => {
        // Memos shared by the tables of one property run, as the corpus's are by every answer.
        const memos = kinds.map(() => new ByteMemo(8, jsonText));
        // 'gov' and 'govName' are keyed alike (one key function), as a government's id and name: a run counts them once.
        const govKey = (i: number): number => rows[i]![0] % texts.length;
        const names: string[] = [], get: ((i: number) => unknown)[] = [], json: (MemoCell | ReturnType<typeof plainJson> | undefined)[] = [];
        kinds.forEach((kind, c) => {
          names.push(`${kind}${c}`);
          if (kind === 'plain' || kind === 'none') {
            const g = (i: number): unknown => rows[i]![1];
            get.push(g);
            json.push(kind === 'plain' ? plainJson(g) : undefined);
            return;
          }
          if (kind === 'text') {
            const g = (i: number): string => `t${rows[i]![0]}"`;
            get.push(g);
            json.push((i, w) => w.text(JSON.stringify(g(i))));
            return;
          }
          // Every seventh row is not keyed (its fallback writes it); 'wide' declares more keys than a run may keep,
          // 'narrow' one fewer than it gives (a key out of its range: that row's run is written, not kept).
          const key = kind === 'gov' || kind === 'govName' ? govKey : (i: number): number => (rows[i]![0] % 7 === 0 ? -1 : (rows[i]![0] + c) % texts.length);
          const textOf = (k: number): string => `${kind}:${texts[k]!}`;
          const value = (i: number): string => (key(i) < 0 ? `own${rows[i]![0]}` : textOf(key(i)));
          get.push(value);
          const declared = kind === 'wide' ? 2 ** 20 : kind === 'narrow' ? Math.max(1, texts.length - 1) : texts.length;
          json.push(memoJson(key, declared, textOf, memos[c], (i, w) => w.text(JSON.stringify(value(i)))));
        });
        const t: ColumnTable = { names, get, n: rows.length, json };
        const want = oracle(t);
        // First: every kept piece missed and written; then again, copied from what was kept.
        expect(Buffer.compare(compiled(t), want)).toBe(0);
        expect(Buffer.compare(compiled(t), want)).toBe(0);
        expect(Buffer.compare(generic(t), want)).toBe(0);
        expect(Buffer.compare(jsonRows(t), want)).toBe(0);
        // A key out of its cell's range is kept nowhere: a kept run's table never grows past its combined keys.
        for (const s of stepsOf(t)) if (s.kind === 'kept') expect(s.kept.views.length).toBe(s.factors.reduce((n, f) => n * f.keys, 1));
      },
    ), { numRuns: 400 });
  });
});
