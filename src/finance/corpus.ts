// Loads the long table into shared memory, laid out for per-government work.
//
// Rows are stored year by year (the partition order) and, within a year, by
// government id, so each (government, year) is one contiguous run: a group.
// govGroups lists each government's groups in year order, so a query for one
// government over all years touches only its own rows. Strings never reach
// the row columns: item codes and government ids are global integer ids,
// remapped from each file's own dictionary once, here.

import path from 'node:path';
import { LoadError, boolAt, chunks, internUtf8, isValid, parquetTable, readBytes, sha256 } from '../corpus/parquet.js';
import { allocColumn, share, sharedBytes, type SharedColumn } from '../corpus/shared.js';
import type { Catalog } from './catalog.js';
import { FLAG_AGGREGATE, FLAG_AMT_NULL, NO_CODE, type FinanceColumns } from './columns.js';

export { FLAG_AGGREGATE, FLAG_AMT_NULL, NO_CODE, type FinanceColumns };

export interface LoadStats {
  rows: number;
  groups: number;
  sharedBytes: number;
  ms: number;
}

export async function loadFinanceColumns(cat: Catalog): Promise<{ columns: FinanceColumns; stats: LoadStats }> {
  const t0 = performance.now();
  const { manifest } = cat;
  const seen = new Set<number>();
  for (const p of manifest.partitions) {
    if (seen.has(p.year)) throw new LoadError(path.join(cat.dir, 'manifest.json'), `lists more than one partition for year ${p.year}`);
    seen.add(p.year);
  }
  const nRows = manifest.partitions.reduce((n, p) => n + p.rowCount, 0);
  if (nRows >= 2 ** 32) throw new LoadError(path.join(cat.dir, 'manifest.json'), 'more rows than this server can index');
  const code = allocColumn('u16', nRows);
  const hcode = allocColumn('u16', nRows);
  const amt = allocColumn('i32', nRows);
  const flags = allocColumn('u8', nRows);
  const nGov = cat.governments.length;
  const gGov: number[] = [], gYear: number[] = [], gStart: number[] = [], gPop: number[] = [], gPopYear: number[] = [];

  let base = 0;
  for (const part of manifest.partitions) {
    const file = path.join(cat.dir, part.path);
    const bytes = await readBytes(file);
    if (part.sha256 !== null && sha256(bytes) !== part.sha256) throw new LoadError(file, 'sha256 does not match the manifest (corrupt or truncated file)');
    const table = await parquetTable(file, bytes, cat.rules.longColumns);
    const n = table.numRows;
    if (n !== part.rowCount) throw new LoadError(file, `has ${n} rows; the manifest says ${part.rowCount}`);

    const gov = toGlobal(file, 'canonical_govid', internUtf8(chunks(table, 'canonical_govid'), n), (s) => {
      const id = cat.govId.get(s);
      if (id === undefined) throw new LoadError(file, `canonical_govid '${s}' is not in canonical_fips_xwalk`);
      return id;
    });
    const codeIds = toGlobal(file, 'item_code', internUtf8(chunks(table, 'item_code'), n), (s) => internCode(cat, s));
    const hcodeIds = cat.rules.harmonized
      ? toGlobal(file, 'harmonized_code', internUtf8(chunks(table, 'harmonized_code'), n), (s) => internCode(cat, s), true)
      : null;

    // Counting sort by government: stable, so file order is kept within a group.
    const counts = new Uint32Array(nGov + 1);
    for (let i = 0; i < n; i++) counts[gov[i]! + 1]!++;
    for (let g = 0; g < nGov; g++) counts[g + 1]! += counts[g]!;
    const pos = counts.slice(0, nGov);
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[pos[gov[i]!]!++] = i;

    const amtChunks = chunks(table, 'amt'), aggChunks = chunks(table, 'is_aggregate');
    const popChunks = chunks(table, 'population'), popYearChunks = chunks(table, 'popyear');
    const amtAt = columnReader(amtChunks), popAt = columnReader(popChunks), popYearAt = columnReader(popYearChunks);
    const aggAt = (i: number): boolean => { const [d, j] = locate(aggChunks, i); return isValid(d, j) && boolAt(d, j); };

    for (let k = 0; k < n; k++) {
      const i = order[k]!, r = base + k;
      code.view[r] = codeIds[i]!;
      hcode.view[r] = hcodeIds === null ? NO_CODE : hcodeIds[i]! < 0 ? NO_CODE : hcodeIds[i]!;
      const a = amtAt(i);
      amt.view[r] = a ?? 0;
      flags.view[r] = (aggAt(i) ? FLAG_AGGREGATE : 0) | (a === null ? FLAG_AMT_NULL : 0);
    }
    for (let g = 0; g < nGov; g++) {
      const s = counts[g]!, e = counts[g + 1]!;
      if (s === e) continue;
      let pop = -1, popYear = 0;
      for (let k = s; k < e && pop < 0; k++) {
        const p = popAt(order[k]!);
        if (p !== null) { pop = p; popYear = popYearAt(order[k]!) ?? 0; }
      }
      gGov.push(g); gYear.push(part.year); gStart.push(base + s); gPop.push(pop); gPopYear.push(popYear);
    }
    base += n;
  }
  gStart.push(base);

  const nGroups = gGov.length;
  const govCount = new Uint32Array(nGov + 1);
  for (let i = 0; i < nGroups; i++) govCount[gGov[i]! + 1]!++;
  for (let g = 0; g < nGov; g++) govCount[g + 1]! += govCount[g]!;
  const fill = govCount.slice(0, nGov);
  const govGroups = new Uint32Array(nGroups);
  for (let i = 0; i < nGroups; i++) govGroups[fill[gGov[i]!]!++] = i;

  if (cat.codes.length >= NO_CODE) throw new LoadError(cat.dir, 'more distinct item codes than the engine supports');
  const columns: FinanceColumns = {
    nRows, nGroups, nGov,
    code: code.column, hcode: hcode.column, amt: amt.column, flags: flags.column,
    gGov: share('u32', gGov), gYear: share('u16', gYear), gStart: share('u32', gStart),
    gPop: share('i32', gPop), gPopYear: share('u16', gPopYear),
    govGroupStart: share('u32', govCount), govGroups: share('u32', govGroups),
  };
  const all = Object.values(columns).filter((v): v is SharedColumn => typeof v === 'object');
  return { columns, stats: { rows: nRows, groups: nGroups, sharedBytes: sharedBytes(all), ms: performance.now() - t0 } };
}

function internCode(cat: Catalog, s: string): number {
  let id = cat.codeId.get(s);
  if (id === undefined) {
    id = cat.codes.length;
    cat.codes.push(s);
    cat.codeId.set(s, id);
  }
  return id;
}

/** Remaps a file's local dictionary ids to global ids, once per distinct value. */
function toGlobal(file: string, column: string, local: { ids: Int32Array; dict: string[] }, map: (s: string) => number, nullable = false): Int32Array {
  const remap = local.dict.map(map);
  const out = new Int32Array(local.ids.length);
  for (let i = 0; i < out.length; i++) {
    const l = local.ids[i]!;
    if (l < 0) {
      if (!nullable) throw new LoadError(file, `${column} is null in row ${i}`);
      out[i] = -1;
    } else out[i] = remap[l]!;
  }
  return out;
}

type Chunk = ReturnType<typeof chunks>[number];

function locate(parts: Chunk[], i: number): [Chunk, number] {
  let j = i;
  for (const d of parts) {
    if (j < d.length) return [d, j];
    j -= d.length;
  }
  throw new RangeError(`row ${i} out of range`);
}

/** An Int32 column reader that returns null for nulls, fast on a single chunk. */
function columnReader(parts: Chunk[]): (i: number) => number | null {
  if (parts.length === 1) {
    const d = parts[0]!, v = d.values as Int32Array;
    return (i) => (isValid(d, i) ? v[i]! : null);
  }
  return (i) => {
    const [d, j] = locate(parts, i);
    return isValid(d, j) ? (d.values as Int32Array)[j]! : null;
  };
}
