// The pieces of a run of memo cells kept for the server's life, for the JSON
// rows (json-rows.ts) and the CSV records (csv-writer.ts):
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
// as they were (past KEPT_RUNS a run keeps none, not even for its answer), so
// memory never grows with what clients ask.

import type { ByteMemo, ByteWriter } from './byte-writer.js';
import type { MemoCell } from './column-table.js';

/**
 * A run whose combined keys are at most this many keeps its pieces across
 * answers: a government's id and name (40,330 governments at full scale), a
 * category and subtype, a row's codes and flags. Runs are cut at this bound
 * so that each fits.
 */
export const KEPT_KEYS = 2 ** 17;
/** Bytes of pieces one run keeps at most. */
export const KEPT_BYTES = 4 << 20;
/** Runs kept per memo (one per table shape the run appears in: routes and options): past it, a new run keeps no piece. */
const KEPT_RUNS = 64;
/** What a view costs beside its bytes. */
const VIEW_BYTES = 96;
/** Pieces are copied into chunks of this size (a piece never spans two), so a view made once stays valid. */
const CHUNK = 64 << 10;

/** One run's pieces by combined key: each a view of its bytes, made once. */
export class KeptPieces {
  readonly views: (Uint8Array | undefined)[];
  private chunk = new Uint8Array(0);
  private used = 0;
  /** Memory held: the chunks made and a view's object per piece (the view table, 8 bytes a key, beside). */
  bytes = 0;

  /**
   * A run past its memo's KEPT_RUNS keeps nothing (keeps false): its view table is empty, not `keys` slots
   * (up to 2^17, a megabyte) made and dropped by every answer, and each of its rows is written as a miss.
   */
  constructor(keys: number, private readonly keeps = true) {
    this.views = keeps ? new Array<Uint8Array | undefined>(keys) : [];
  }

  /**
   * Row i's piece of the run: copied whole when an answer wrote it before; else written by cells(s, i, w) (each
   * format's cells and separators, the run's step s passed through, so no closure is made a row) and kept.
   */
  write<S>(factors: MemoCell[], i: number, w: ByteWriter, s: S, cells: (s: S, i: number, w: ByteWriter) => void): void {
    const k = runKey(factors, i);
    const piece = k < 0 ? undefined : this.views[k];
    if (piece !== undefined) { w.piece(piece); return; }
    this.miss(k, i, w, s, cells);
  }

  /** Row i's piece under key k (-1: none), not kept yet: written by cells(s, i, w), and kept. The compiled JSON rows call it on a miss. */
  miss<S>(k: number, i: number, w: ByteWriter, s: S, cells: (s: S, i: number, w: ByteWriter) => void): void {
    const from = w.n;
    cells(s, i, w);
    if (k >= 0) this.keep(k, w.buf, from, w.n);
  }

  /** Keeps src[from, to) as key k's piece, unless it is longer than a chunk or the run holds KEPT_BYTES already. */
  keep(k: number, src: Uint8Array, from: number, to: number): void {
    const len = to - from;
    if (!this.keeps || len > CHUNK || this.bytes + CHUNK + VIEW_BYTES > KEPT_BYTES) return;
    if (this.used + len > this.chunk.length) {
      this.chunk = new Uint8Array(CHUNK);
      this.used = 0;
      // Counted whole when made (a chunk's tail may stay unused), so the bound holds on memory, not on piece bytes.
      this.bytes += CHUNK;
    }
    this.chunk.set(src.subarray(from, to), this.used);
    this.views[k] = this.chunk.subarray(this.used, this.used + len);
    this.used += len;
    // A view is an object of about this many bytes in V8, whatever the length of its piece.
    this.bytes += VIEW_BYTES;
  }
}

/**
 * The runs kept per memo (the run's first cell's: it lives as long as the corpus's context), in a trie
 * keyed by the parts that fix a piece's bytes: its head, each cell's key before it, memo, factor and keys,
 * and its tail. Every part is an object made once (the column keys' bytes are made once per name) or a
 * number, so an answer finds its runs with a few Map lookups and builds no string: a signature string
 * built per answer cost about 10 us of one government's answer (profile-issue32.md).
 */
interface Trie { next: Map<unknown, Trie>; kept?: KeptPieces }
const byMemo = new WeakMap<ByteMemo, { root: Trie; runs: number; all: KeptPieces[] }>();
const NONE = {};

/**
 * The kept pieces of a run: the same object for every answer whose run has
 * the same head, cells (their keys before them, memos, keys and which are
 * keyed alike) and tail, since those fix a piece's bytes for a combined key
 * (a memo's text for a key never changes: ByteMemo keeps it forever). A
 * head is `{"name":` on a first column and `,"name":` after: two objects.
 */
export function keptPieces(cells: MemoCell[], factors: MemoCell[], span: number, head: Uint8Array | null, prefixes: Uint8Array[], tail: Uint8Array | null): KeptPieces {
  const first = cells[0]!.memo;
  let memo = byMemo.get(first);
  if (memo === undefined) byMemo.set(first, (memo = { root: { next: new Map() }, runs: 0, all: [] }));
  // Past KEPT_RUNS, runs already kept are still found, but no new node is made: the trie stays bounded.
  const grow = memo.runs < KEPT_RUNS;
  let node: Trie | undefined = memo.root;
  for (let j = 0; j < cells.length && node !== undefined; j++) {
    const m = cells[j]!;
    let f = 0;
    while (factors[f]!.key !== m.key) f++;
    node = step(node, prefixes[j]!, grow);
    // The cell's memo, factor and keys, and (first cell) whether the run writes its own key, as one exact integer:
    // keys <= KEPT_KEYS < 2^18, a run's factors < 32 (takeRun stops at 31), memo ids < 2^28.
    if (node !== undefined) node = step(node, (((m.memo.id * 32 + f) * 2 ** 18 + factors[f]!.keys) * 2) + (j === 0 && head === null ? 1 : 0), grow);
  }
  if (node !== undefined) node = step(node, tail ?? NONE, grow);
  if (node?.kept !== undefined) return node.kept;
  if (node === undefined) return new KeptPieces(span, false);
  const kept = new KeptPieces(span);
  node.kept = kept; memo.runs++; memo.all.push(kept);
  return kept;
}

function step(node: Trie, part: unknown, grow: boolean): Trie | undefined {
  let next = node.next.get(part);
  if (next === undefined && grow) node.next.set(part, (next = { next: new Map() }));
  return next;
}

/** What one memo's kept runs hold, for tests and the start figures: runs, and bytes of pieces. */
export function keptOf(memo: ByteMemo): { runs: number; bytes: number } {
  const m = byMemo.get(memo);
  return { runs: m?.runs ?? 0, bytes: m?.all.reduce((n, k) => n + k.bytes, 0) ?? 0 };
}

/** A run of adjacent memo cells from column c: its cells, their distinct key functions (factors), and its combined keys. */
export interface MemoRun { cells: MemoCell[]; factors: MemoCell[]; span: number; columns: number[] }

/**
 * The memo cells from column c on while their combined keys stay within bound
 * (cells keyed alike, such as a government's id and name, count once). The
 * first cell is always taken, so a caller moves on even past a cell of more
 * keys than a run holds.
 */
export function takeRun(memoAt: (c: number) => MemoCell | null, c: number, bound: number): MemoRun {
  const run: MemoRun = { cells: [], factors: [], span: 1, columns: [] };
  for (let m = memoAt(c); m !== null; m = memoAt(++c)) {
    const alike = run.factors.some((f) => f.key === m!.key);
    // At most 31 factors: the trie's number for a cell holds a factor's index in five bits.
    if (!alike && run.cells.length > 0 && (run.span * m.keys > bound || run.factors.length === 31)) break;
    if (!alike) { run.span *= m.keys; run.factors.push(m); }
    run.cells.push(m);
    run.columns.push(c);
  }
  return run;
}

/** A run's key for row i: its factors' keys combined, or -1 when a cell does not key the row (its fallback writes it). */
export function runKey(factors: MemoCell[], i: number): number {
  let k = 0;
  for (let j = 0; j < factors.length; j++) {
    const f = factors[j]!.key(i);
    // A key out of its cell's range would collide with another combination's: written as it is, not kept.
    if (f < 0 || f >= factors[j]!.keys) return -1;
    k = k * factors[j]!.keys + f;
  }
  return k;
}
