// Columns in SharedArrayBuffers. The main thread allocates and fills them once;
// each worker receives the same buffers through workerData and wraps them in
// typed-array views without copying, so the corpus is resident once however
// many workers run.

import v8 from 'node:v8';
import vm from 'node:vm';

export type Kind = 'u8' | 'u16' | 'u32' | 'i32' | 'f64';

export interface SharedColumn {
  kind: Kind;
  length: number;
  buffer: SharedArrayBuffer;
}

type View<K extends Kind> = K extends 'u8' ? Uint8Array : K extends 'u16' ? Uint16Array : K extends 'u32' ? Uint32Array : K extends 'i32' ? Int32Array : Float64Array;

const CTORS = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array, f64: Float64Array } as const;

export function allocColumn<K extends Kind>(kind: K, length: number): { column: SharedColumn; view: View<K> } {
  const ctor = CTORS[kind];
  const buffer = new SharedArrayBuffer(Math.max(1, length) * ctor.BYTES_PER_ELEMENT);
  const column = { kind, length, buffer };
  return { column, view: viewOf(column) as View<K> };
}

export function viewOf<K extends Kind>(col: SharedColumn & { kind: K }): View<K> {
  // TS types typed-array constructors over ArrayBuffer only; SharedArrayBuffer works the same.
  return new CTORS[col.kind](col.buffer as unknown as ArrayBuffer, 0, col.length) as View<K>;
}

/** Copies a finished array into shared memory. */
export function share<K extends Kind>(kind: K, source: ArrayLike<number>): SharedColumn {
  const { column, view } = allocColumn(kind, source.length);
  (view as unknown as { set(a: ArrayLike<number>): void }).set(source);
  return column;
}

export const sharedBytes = (cols: Iterable<SharedColumn>): number => {
  let n = 0;
  for (const c of cols) n += c.buffer.byteLength;
  return n;
};

/**
 * Runs a full garbage collection now, and frees what it found. Columns
 * replaced at load (the year-major rows that governmentMajor copied, ~450 MB
 * at full scale) are freed only when V8 next collects their
 * SharedArrayBuffers, which its heuristics had not done by the time the
 * server answered /health: RSS then counted them twice. One collection only
 * queues the buffers for a background sweeper (RSS at /health was still
 * 1.5 GB, 1.1 GB two seconds later); a second one finishes that sweep first.
 * Start-up is the one moment a full GC costs nothing a client would see.
 */
export function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  gc();
  gc();
}
