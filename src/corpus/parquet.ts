// Reading parquet with parquet-wasm into Arrow, and the column accessors the
// loaders use. Strings are never decoded per row: Utf8 columns are interned
// straight from their bytes into per-file dictionaries, which the loaders
// remap to global ids once per distinct value.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ParquetFile } from 'parquet-wasm';
import { tableFromIPC, type Data, type Table } from 'apache-arrow';

import { LoadError } from './load-error.js';

export { LoadError };

/** Told the name of each file before it is read, so a fault that escapes the reader (a wasm trap) can still be reported against it. */
export let onRead: (file: string) => void = () => {};
export const setOnRead = (f: (file: string) => void): void => { onRead = f; };

export async function readBytes(file: string): Promise<Uint8Array> {
  onRead(file);
  try {
    return await readFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new LoadError(file, code === 'ENOENT' ? 'file is missing' : `cannot be read (${code ?? String(e)})`);
  }
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Reads the named columns (all when omitted) of a parquet file held in memory. */
export async function parquetTable(file: string, bytes: Uint8Array, columns?: string[]): Promise<Table> {
  let table: Table;
  try {
    const pf = await ParquetFile.fromFile(new Blob([bytes]));
    // One large batch: parquet-wasm's default of 1024 rows makes thousands of
    // tiny Arrow batches and is several times slower to read and to walk.
    const wasmTable = await pf.read({ batchSize: 1 << 21, ...(columns ? { columns } : {}) });
    table = tableFromIPC(wasmTable.intoIPCStream());
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const missing = /Column (\S+) not found/.exec(msg);
    if (missing) throw new LoadError(file, `schema is missing column(s) ${missing[1]}`);
    throw new LoadError(file, `not a readable parquet file (${msg})`);
  }
  if (columns) {
    const have = new Set(table.schema.fields.map((f) => f.name));
    const missing = columns.filter((c) => !have.has(c));
    if (missing.length > 0) throw new LoadError(file, `schema is missing column(s) ${missing.join(', ')}`);
  }
  return table;
}

/** The chunks of one column, each checked to start at offset 0 as IPC reads do. */
export function chunks(table: Table, name: string): Data[] {
  const col = table.getChild(name);
  if (col === null) throw new Error(`column ${name} missing`);
  for (const d of col.data) if (d.offset !== 0) throw new Error(`column ${name}: unexpected sliced chunk`);
  return col.data as Data[];
}

export const isValid = (d: Data, i: number): boolean =>
  d.nullCount === 0 || d.nullBitmap === undefined || d.nullBitmap === null || ((d.nullBitmap[i >> 3]! >> (i & 7)) & 1) === 1;

export const boolAt = (d: Data, i: number): boolean => ((((d.values as Uint8Array)[i >> 3]!) >> (i & 7)) & 1) === 1;

/**
 * Interns the strings of Utf8 chunks into a per-file dictionary, hashing
 * bytes (FNV-1a) and comparing only on collision. Returns, per row, the local
 * id (-1 for null) and the dictionary of distinct strings.
 */
export function internUtf8(parts: Data[], total: number): { ids: Int32Array; dict: string[] } {
  const ids = new Int32Array(total);
  const dict: string[] = [];
  const dictBytes: Uint8Array[] = [];
  const buckets = new Map<number, number[]>();
  const decoder = new TextDecoder();
  const intern = (values: Uint8Array, s: number, e: number): number => {
    let h = 0x811c9dc5;
    for (let k = s; k < e; k++) h = Math.imul(h ^ values[k]!, 0x01000193);
    const bucket = buckets.get(h);
    if (bucket) {
      for (const cand of bucket) {
        const b = dictBytes[cand]!;
        if (b.length === e - s && sameBytes(b, 0, values, s, e - s)) return cand;
      }
    }
    const id = dict.length;
    const bytes = values.slice(s, e);
    dictBytes.push(bytes);
    dict.push(decoder.decode(bytes));
    if (bucket) bucket.push(id); else buckets.set(h, [id]);
    return id;
  };
  let row = 0;
  let prevStart = -1, prevEnd = -1, prevId = -1;
  let prevValues: Uint8Array | null = null;
  for (const d of parts) {
    if (d.dictionary) {
      // Dictionary-encoded: intern the dictionary's strings once, then map each row's index.
      const encoder = new TextEncoder();
      const globalOf = Array.from({ length: d.dictionary.length }, (_, i) => {
        const str = d.dictionary!.get(i) as string | null;
        if (str === null) return -1;
        const b = encoder.encode(str);
        return intern(b, 0, b.length);
      });
      const idx = d.values as Int32Array;
      for (let i = 0; i < d.length; i++, row++) ids[row] = isValid(d, i) ? globalOf[idx[i]!]! : -1;
      continue;
    }
    const offsets = d.valueOffsets as Int32Array;
    const values = d.values as Uint8Array;
    for (let i = 0; i < d.length; i++, row++) {
      if (!isValid(d, i)) { ids[row] = -1; continue; }
      const s = offsets[i]!, e = offsets[i + 1]!;
      // Sorted files repeat the same value row after row: compare to the previous one first.
      if (prevValues === values && e - s === prevEnd - prevStart && sameBytes(values, s, values, prevStart, e - s)) {
        ids[row] = prevId;
        continue;
      }
      const id = intern(values, s, e);
      ids[row] = id;
      prevValues = values; prevStart = s; prevEnd = e; prevId = id;
    }
  }
  return { ids, dict };
}

function sameBytes(a: Uint8Array, ai: number, b: Uint8Array, bi: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (a[ai + k] !== b[bi + k]) return false;
  return true;
}

/** Plain JS rows of a small table (metadata), with bigint turned into number. */
export function tableRows(table: Table): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const names = table.schema.fields.map((f) => f.name);
  const cols = names.map((n) => table.getChild(n)!);
  for (let i = 0; i < table.numRows; i++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < names.length; c++) {
      const v = cols[c]!.get(i);
      row[names[c]!] = typeof v === 'bigint' ? Number(v) : v ?? null;
    }
    out.push(row);
  }
  return out;
}

/** Reads and parses a mirror's manifest.json; a missing or unparsable file is a LoadError naming it. */
export async function readManifestJson(dir: string, missingHint: string): Promise<{ file: string; text: string; raw: any }> {
  const file = path.join(dir, 'manifest.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new LoadError(file, code === 'ENOENT' ? `file is missing (${missingHint})` : `cannot be read (${code})`);
  }
  try {
    const raw = JSON.parse(text);
    if (raw === null || typeof raw !== 'object') throw new Error('not a JSON object');
    return { file, text, raw };
  } catch (e) {
    throw new LoadError(file, `does not parse as JSON (${(e as Error).message})`);
  }
}
