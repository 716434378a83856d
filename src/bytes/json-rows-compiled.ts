// The JSON rows loop made once per table shape as code of its own (issue 32):
// every step of a row (a cell, a run's key and piece) at a call site of its
// own, so V8 sees one key function or getter at each and inlines it, where
// the generic loop (json-rows.ts) calls every step's functions from the same
// few sites and pays a megamorphic call per cell. All categories of one
// government write about 800 rows of 9 cells an answer: the loop, not the
// bytes, was most of what the rows cost.
//
// The code made holds no data: only the steps' kinds and counts (how many
// factors a run's key has, whether a step writes its column's key) go into
// the source; cells, key functions, pieces and memos are read from the
// answer's steps. The same bytes as the generic loop, byte for byte
// (test/json-rows-compiled.test.ts), which the writer falls back to past
// MAX_SHAPES shapes.

import type { ByteWriter, Cell } from './byte-writer.js';
import type { MemoCell } from './column-table.js';

/** What a compiled writer reads of a step: the fields json-rows.ts's steps have, by kind. */
export type CompiledStep =
  | { kind: 'cell'; prefix: Uint8Array | null; cell: Cell }
  | { kind: 'run'; prefix: Uint8Array | null; factors: MemoCell[]; pieces: Map<number, number> }
  | { kind: 'kept'; factors: MemoCell[]; kept: { views: (Uint8Array | undefined)[] } };

/** json-rows.ts's helpers the made code calls on a miss (rare: a combination not written before). */
export interface RowHelpers {
  /** A kept run's piece for row i, not kept yet (k its key, or -1): written and kept. */
  keptMiss: (s: CompiledStep, k: number, i: number, w: ByteWriter) => void;
  /** A per-answer run's piece for row i, not seen yet in this answer (k its key, or -1). */
  runMiss: (s: CompiledStep, k: number, i: number, w: ByteWriter) => void;
  /** A plain cell's getter (plainJson's), for the made code to call at a site of its own; undefined for any other cell. */
  plainGet: (cell: Cell) => ((i: number) => unknown) | undefined;
  NULL: Uint8Array; TRUE: Uint8Array; FALSE: Uint8Array;
  /** Where a per-answer run's piece was written: offset * PIECE + length. */
  PIECE: number;
}

export type RowsWriter = (steps: CompiledStep[], n: number, w: ByteWriter) => void;

/** Shapes compiled at most (routes x options give a few dozen): past it, the generic loop writes the rest. */
export const MAX_SHAPES = 256;
const made = new Map<string, RowsWriter>();

/** The shape of steps as the made code depends on it: kinds, factor counts, which write a key, which cells are plain. */
function shapeOf(steps: CompiledStep[], h: RowHelpers): string {
  let s = '';
  for (const st of steps) {
    if (st.kind === 'cell') s += (st.prefix === null ? 'c' : 'C') + (h.plainGet(st.cell) === undefined ? 'f' : 'p');
    else if (st.kind === 'run') s += (st.prefix === null ? 'r' : 'R') + st.factors.length;
    else s += `k${st.factors.length}`;
    s += ';';
  }
  return s;
}

/** How many shapes have a writer made: at most MAX_SHAPES, whatever tables come. */
export const compiledShapes = (): number => made.size;

/** The writer for these steps' shape, made on first sight; null past MAX_SHAPES. */
export function compiledRows(steps: CompiledStep[], h: RowHelpers): RowsWriter | null {
  const shape = shapeOf(steps, h);
  let f = made.get(shape);
  if (f === undefined) {
    if (made.size >= MAX_SHAPES) return null;
    made.set(shape, (f = compileRows(steps, h)));
  }
  return f;
}

/** A run's key for row i as runKey computes it (kept-pieces.ts), the factors' key functions called in order and stopped at the first out of range. */
function keyCode(k: number, factors: number): string {
  let src = `let k${k} = f${k}_0(i);\nif (k${k} < 0 || k${k} >= n${k}_0) k${k} = -1;\n`;
  for (let j = 1; j < factors; j++) {
    src += `if (k${k} >= 0) { const x = f${k}_${j}(i); k${k} = x < 0 || x >= n${k}_${j} ? -1 : k${k} * n${k}_${j} + x; }\n`;
  }
  return src;
}

/** A writer for the shape of these steps, made now (compiledRows keeps one per shape). */
export function compileRows(steps: CompiledStep[], h: RowHelpers): RowsWriter {
  let head = '', body = '';
  steps.forEach((st, k) => {
    head += `const s${k} = steps[${k}];\n`;
    if (st.kind === 'cell') {
      if (st.prefix !== null) { head += `const p${k} = s${k}.prefix;\n`; body += `w.bytes(p${k});\n`; }
      if (h.plainGet(st.cell) !== undefined) {
        head += `const g${k} = h.plainGet(s${k}.cell);\n`;
        // plainJson's cell, at a site of its own: numbers (null when not finite), booleans, null, else text.
        body += `{ const v = g${k}(i);
if (typeof v === 'number') { if (v - v === 0) w.number(v); else w.bytes(NULL); }
else if (v === null || v === undefined) w.bytes(NULL);
else if (typeof v === 'boolean') w.bytes(v ? TRUE : FALSE);
else w.text(typeof v === 'string' ? JSON.stringify(v) : String(v)); }\n`;
      } else {
        head += `const c${k} = s${k}.cell;\n`;
        body += `c${k}(i, w);\n`;
      }
      return;
    }
    st.factors.forEach((_, j) => { head += `const f${k}_${j} = s${k}.factors[${j}].key, n${k}_${j} = s${k}.factors[${j}].keys;\n`; });
    if (st.kind === 'kept') {
      head += `const v${k} = s${k}.kept.views;\n`;
      body += `{ ${keyCode(k, st.factors.length)}const piece = k${k} < 0 ? undefined : v${k}[k${k}];
if (piece !== undefined) w.piece(piece); else h.keptMiss(s${k}, k${k}, i, w); }\n`;
      return;
    }
    head += `const m${k} = s${k}.pieces;\n`;
    if (st.prefix !== null) { head += `const p${k} = s${k}.prefix;\n`; body += `w.bytes(p${k});\n`; }
    body += `{ ${keyCode(k, st.factors.length)}const seen = k${k} < 0 ? undefined : m${k}.get(k${k});
if (seen !== undefined) w.again(Math.floor(seen / PIECE), seen % PIECE); else h.runMiss(s${k}, k${k}, i, w); }\n`;
  });
  const src = `"use strict";
const { NULL, TRUE, FALSE, PIECE } = h;
return function rows(steps, n, w) {
${head}w.byte(0x5b);
for (let i = 0; i < n; i++) {
if (i > 0) w.byte(0x2c);
${body}w.byte(0x7d);
}
w.byte(0x5d);
};`;
  // new Function: the source holds only the shape's indices and counts (above), never a value of the data.
  return new Function('h', src)(h) as RowsWriter;
}
