// The two largest metadata tables read as columns, never as row objects.
// code_set (84,693 rows in the real mirror) feeds only the completion grid,
// and canonical_alias (118,518) only the few hundred former ids; as rows they
// cost a start about 350 ms to build, and the code_set rows were copied
// between threads with the catalog three times a start (about 145 ms each,
// profiled 2026-11-28). As typed arrays a copy is a memcpy.

import type { Data, Table } from 'apache-arrow';
import { boolAt, chunks, internUtf8, isValid } from '../corpus/parquet.js';

/** code_set as the completion grid reads it: per row, a code (an index into `codes`), the year, the government type (-1 when null) and whether the code is an aggregate. */
export interface CodeSet {
  codes: string[];
  code: Int32Array;
  year: Int16Array;
  type: Int16Array;
  aggregate: Uint8Array;
}

/** The columns item_code, year, type and is_aggregate of a code_set table; a null code is -1. */
export function readCodeSet(t: Table): CodeSet {
  const n = t.numRows;
  const { ids, dict } = internUtf8(chunks(t, 'item_code'), n);
  const year = new Int16Array(n), type = new Int16Array(n), aggregate = new Uint8Array(n);
  // Number(): an INT64 column (pandas writes them) reads as bigint.
  const int = (d: Data, i: number): number => Number((d.values as ArrayLike<number | bigint>)[i]!);
  eachRow(chunks(t, 'year'), (d, i, row) => { year[row] = isValid(d, i) ? int(d, i) : 0; });
  eachRow(chunks(t, 'type'), (d, i, row) => { type[row] = isValid(d, i) ? int(d, i) : -1; });
  eachRow(chunks(t, 'is_aggregate'), (d, i, row) => { aggregate[row] = isValid(d, i) && boolAt(d, i) ? 1 : 0; });
  return { codes: dict, code: ids, year, type, aggregate };
}

/** canonical_alias's 12-digit former ids (id_kind pid_12, differing from the canonical id) to the canonical id they became. */
export function readFormerIds(t: Table): Map<string, string> {
  const n = t.numRows;
  const kind = internUtf8(chunks(t, 'id_kind'), n);
  const pid12 = kind.dict.indexOf('pid_12');
  const out = new Map<string, string>();
  if (pid12 < 0) return out;
  const alias = t.getChild('alias_id')!, canonical = t.getChild('canonical_govid')!;
  for (let row = 0; row < n; row++) {
    if (kind.ids[row] !== pid12) continue;
    // Decoded only for the rows kept: a few hundred of 118,518.
    const a = alias.get(row) as string | null, c = canonical.get(row) as string | null;
    if (a !== c) out.set(String(a), String(c));
  }
  return out;
}

function eachRow(parts: Data[], f: (d: Data, i: number, row: number) => void): void {
  let row = 0;
  for (const d of parts) for (let i = 0; i < d.length; i++, row++) f(d, i, row);
}
