// The pieces of a JSON rows run kept for the server's life (json-rows.ts):
// a run of memo cells (a government's id and name, a category and subtype,
// a row's codes and flags) with the keys between them, written once per
// combination of its cells' keys by the first answer that needs it and
// copied whole by every later one.
//
// Why across answers: within one answer, a combination first seen was
// written cell by cell (a cell's bytes and keys copied a byte at a time, at
// about a nanosecond a byte here), and one government's all-categories
// answer sees a new combination in about one row of five. Kept, every row
// is one copy per run.
//
// Bounded: a run keeps pieces only when its combined keys are at most
// KEPT_KEYS (its view table), each run's pieces hold at most KEPT_BYTES,
// and a memo holds at most KEPT_RUNS runs; past a bound, pieces are written
// as they were (and kept for the answer only), so memory never grows with
// what clients ask.

import type { ByteMemo } from './byte-writer.js';
import type { MemoCell } from './column-table.js';

/** Bytes of pieces one run keeps at most. */
export const KEPT_BYTES = 4 << 20;
/** Runs kept per memo (one per table shape the run appears in: routes and options): past it, pieces last one answer. */
const KEPT_RUNS = 64;
/** Pieces are copied into chunks of this size (a piece never spans two), so a view made once stays valid. */
const CHUNK = 64 << 10;

/** One run's pieces by combined key: each a view of its bytes, made once. */
export class KeptPieces {
  readonly views: (Uint8Array | undefined)[];
  private chunk = new Uint8Array(0);
  private used = 0;
  /** Bytes kept, across chunks. */
  bytes = 0;

  constructor(keys: number) {
    this.views = new Array<Uint8Array | undefined>(keys);
  }

  /** Keeps src[from, to) as key k's piece, unless it is longer than a chunk or the run holds KEPT_BYTES already. */
  keep(k: number, src: Uint8Array, from: number, to: number): void {
    const len = to - from;
    if (len > CHUNK || this.bytes + len > KEPT_BYTES) return;
    if (this.used + len > this.chunk.length) {
      this.chunk = new Uint8Array(CHUNK);
      this.used = 0;
    }
    this.chunk.set(src.subarray(from, to), this.used);
    this.views[k] = this.chunk.subarray(this.used, this.used + len);
    this.used += len;
    this.bytes += len;
  }
}

/** Per memo (the run's first cell's: it lives as long as the corpus's context), the runs kept, by signature. */
const byMemo = new WeakMap<ByteMemo, Map<string, KeptPieces>>();

/**
 * The kept pieces of a run: the same object for every answer whose run has
 * the same columns (names: the cells' and the tail's), head, memos, keys
 * and cells keyed alike, since those fix a piece's bytes for a combined key
 * (a memo's text for a key never changes: ByteMemo keeps it forever). The head is `{"name":` on a
 * first column and `,"name":` after: the signature tells the two apart.
 */
export function keptPieces(cells: MemoCell[], factors: MemoCell[], span: number, head: Uint8Array | null, names: string[]): KeptPieces {
  const first = cells[0]!.memo;
  let signature = `${JSON.stringify(names)}\u0002${head === null ? 0 : head[0] === 0x7b ? 2 : 1}`;
  for (const m of cells) signature += `\u0002${m.memo.id}.${factors.findIndex((f) => f.key === m.key)}`;
  for (const f of factors) signature += `\u0003${f.keys}`;
  let runs = byMemo.get(first);
  if (runs === undefined) byMemo.set(first, (runs = new Map()));
  let kept = runs.get(signature);
  if (kept === undefined) {
    kept = new KeptPieces(span);
    if (runs.size < KEPT_RUNS) runs.set(signature, kept);
  }
  return kept;
}

/** What one memo's kept runs hold, for tests and the start figures: runs, and bytes of pieces. */
export function keptOf(memo: ByteMemo): { runs: number; bytes: number } {
  const runs = byMemo.get(memo);
  let bytes = 0;
  for (const k of runs?.values() ?? []) bytes += k.bytes;
  return { runs: runs?.size ?? 0, bytes };
}
