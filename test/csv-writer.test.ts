// Our CSV writer against fast-csv's formatter: the same bytes for random
// rows full of commas, quotes, line breaks, pipes, NULs and non-ASCII text.

import fc from 'fast-check';
import { format } from 'fast-csv';
import { describe, expect, it } from 'vitest';
import { ByteMemo, ByteWriter, type Cell } from '../dist/src/bytes/byte-writer.js';
import type { ColumnTable } from '../dist/src/bytes/column-table.js';
import { chunksOf, csvBytes, csvChunks, csvField, drainText, plainCsv } from '../dist/src/bytes/csv-writer.js';

function viaFastCsv(header: string[], rows: unknown[][]): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const s = format({ headers: header, rowDelimiter: '\r\n', includeEndRowDelimiter: true });
    s.on('data', (d: Buffer) => { out += d.toString('utf8'); });
    s.on('end', () => resolve(out));
    s.on('error', reject);
    for (const r of rows) s.write(r);
    s.end();
  });
}

function viaOurs(header: string[], rows: unknown[][]): string {
  const t: ColumnTable = { names: header, get: header.map((_, c) => (i: number) => rows[i]![c]), n: rows.length };
  const whole = drainText(chunksOf(csvBytes(t, 16)));
  // Both ways of writing a table, whole (a worker's page) and pulled chunk by chunk (the main thread's fallback), write the same text.
  expect(drainText(csvChunks(t))).toBe(whole);
  return whole;
}

const text = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'Z', ' ', ',', '"', '\n', '\r', '|', ';', '\0', 'é', 'ñ', '東', '😀', "'", '\t') }),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('ST. MARY\'S "OLD" TOWN, VILLAGE', 'Judicial & Legal', 'CAÑON CITY', ''),
);
const cell = fc.oneof(text, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));

describe('CSV writer', () => {
  it('writes exactly the bytes fast-csv writes, for random rows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }).chain((w) => fc.tuple(fc.array(text.filter((h) => h !== ''), { minLength: w, maxLength: w }), fc.array(fc.array(cell, { minLength: w, maxLength: w }), { minLength: 1, maxLength: 30 }))),
        async ([header, rows]) => {
          expect(viaOurs(header, rows)).toBe(await viaFastCsv(header, rows));
        }),
      { numRuns: 400 },
    );
  });

  it('the hot-path cells write exactly the bytes of what csvField writes: plain for numbers, booleans, null and identifiers; memoized text escaped once', () => {
    const written = (cell: Cell, i: number): Buffer => { const w = new ByteWriter(4); cell(i, w); return Buffer.from(w.written()); };
    const number = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(0, -0, 9, 10, 99, 100, 999_999_999, 1e9, 1e9 + 1, -2e9, 1234567890123, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, -1e-7, Number.NaN, Number.POSITIVE_INFINITY), fc.double());
    fc.assert(fc.property(fc.array(fc.oneof(number, fc.boolean(), fc.constant(null), fc.stringMatching(/^[a-z_0-9]*$/))), (values) => {
      const plain = plainCsv((i) => values[i]);
      values.forEach((v, i) => expect(written(plain, i)).toEqual(Buffer.from(csvField(v))));
    }));
    // A lone surrogate has no UTF-8 form: both writers put U+FFFD's bytes in its place.
    fc.assert(fc.property(fc.array(fc.oneof(text, fc.constantFrom('\ud800', 'a\udc00b', '\ufeffx')), { minLength: 1 }), (names) => {
      const memo = new ByteMemo(1, csvField);
      let escaped = 0;
      const cell: Cell = (i, w) => memo.write(w, i % names.length, (k) => { escaped++; return names[k]!; });
      for (let i = 0; i < names.length * 2; i++) expect(written(cell, i)).toEqual(Buffer.from(csvField(names[i % names.length])));
      expect(escaped).toBe(names.length);
    }));
  });

  it('the byte writer grows past its capacity and encodes any text as UTF-8', () => {
    fc.assert(fc.property(fc.array(fc.oneof(text, fc.integer())), (parts) => {
      const w = new ByteWriter(1);
      for (const p of parts) if (typeof p === 'number') w.number(p); else w.text(p);
      w.byte(0x2c);
      expect(Buffer.from(w.written()).toString('utf8')).toBe(`${parts.map(String).join('')},`);
    }));
  });

  it('keeps a leading byte-order mark as content when it drains a body to text', () => {
    expect(viaOurs(['\ufeffa', 'b'], [[1, 2]])).toBe('\ufeffa,b\r\n1,2\r\n');
  });

  it('writes the header line even for no rows (fast-csv writes only a line break then)', () => {
    expect(viaOurs(['year', 'amt'], [])).toBe('year,amt\r\n');
  });

  it('streams a body in views of at most 64 KB that join to the whole of it', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => [i, `name, ${i}`, 'x"y', null]);
    const t: ColumnTable = { names: ['a', 'b', 'c', 'd'], get: [0, 1, 2, 3].map((c) => (i: number) => rows[i]![c]), n: rows.length };
    const body = csvBytes(t, 1024);
    const next = chunksOf(body);
    const chunks: Uint8Array[] = [];
    for (let chunk = next(); chunk !== null; chunk = next()) chunks.push(chunk);
    expect(chunks.length).toBe(Math.ceil(body.length / (64 * 1024)));
    for (const c of chunks.slice(0, -1)) expect(c.byteLength).toBe(64 * 1024);
    // Views, not copies: a slow reader holds the one body, never a second copy of it.
    for (const c of chunks) expect(c.buffer).toBe(body.buffer);
    const whole = Buffer.concat(chunks).toString('utf8');
    expect(whole).toBe(viaOurs(['a', 'b', 'c', 'd'], rows));
    expect(whole.split('\r\n').length).toBe(20_002);
    expect(next()).toBeNull();
  });

  it('a page of rows far wider than its estimate grows the buffer and loses nothing', () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => [i, i % 1000 === 7 ? 'y'.repeat(100_000) : `name ${i}`, 'é'.repeat(i % 50)]);
    const t: ColumnTable = { names: ['a', 'b', 'c'], get: [0, 1, 2].map((c) => (i: number) => rows[i]![c]), n: rows.length };
    const text = Buffer.from(csvBytes(t, 4096)).toString('utf8');
    expect(drainText(csvChunks(t))).toBe(text);
    const expected = ['a,b,c', ...rows.map((r) => r.map(csvField).join(','))].join('\r\n') + '\r\n';
    expect(text).toBe(expected);
  });
});
