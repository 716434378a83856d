// Loads the long table into shared memory, laid out for per-government work.
//
// Each loader writes its partitions' rows at their offsets, by government id
// within a year, so each (government, year) is one contiguous run: a group.
// Assembly (corpus-layout.ts) then moves rows and groups into government
// order, so one government's whole history is contiguous. Strings never reach
// the row columns: item codes and government ids are global integer ids,
// remapped from each file's own dictionary once, here.

import path from 'node:path';
import { LoadError, boolAt, chunks, internUtf8, isValid, parquetTable, readBytes, sha256 } from '../corpus/parquet.js';
import { viewOf } from '../corpus/shared.js';
import type { PartitionGroups, PartitionJob } from './corpus-layout.js';
import { FLAG_AGGREGATE, FLAG_AMT_NULL, NO_CODE } from './columns.js';

/** The shared row columns a loader writes, as typed views. */
interface RowViews { code: Uint16Array; hcode: Uint16Array; amt: Int32Array; flags: Uint8Array }
type Part = PartitionJob['parts'][number];

/** Loads partitions into the shared row columns at their offsets; returns each partition's groups. */
export async function loadPartitions(job: PartitionJob): Promise<{ groups: PartitionGroups[]; extraCodes: string[] }> {
  const govId = new Map(job.govIds.map((id, gid) => [id, gid]));
  const codeId = new Map(job.codes.map((c, i) => [c, i]));
  const extraCodes: string[] = [];
  const internCode = (s: string): number => {
    let id = codeId.get(s);
    if (id === undefined) {
      id = job.extraBase + extraCodes.length;
      extraCodes.push(s);
      codeId.set(s, id);
    }
    return id;
  };
  const v: RowViews = {
    code: viewOf(job.columns.code as never) as Uint16Array, hcode: viewOf(job.columns.hcode as never) as Uint16Array,
    amt: viewOf(job.columns.amt as never) as Int32Array, flags: viewOf(job.columns.flags as never) as Uint8Array,
  };
  const orderGroup = groupSorter(job, v);
  const groups: PartitionGroups[] = [];
  for (const part of job.parts) groups.push(await loadPartition(job, part, v, govId, internCode, orderGroup));
  return { groups, extraCodes };
}

/**
 * Orders one written group's rows by key, in place: a stable counting sort over the
 * group's contiguous rows (groups are small, often already in order, and stay in cache).
 */
function groupSorter(job: PartitionJob, v: RowViews): (s: number, e: number) => void {
  const { code, hcode, amt, flags } = v;
  const keyOf = job.codeKey, nKeys = job.nKeys;
  const keyStart = new Int32Array(nKeys + 1);
  let idx = new Int32Array(1024), tmpCode = new Uint16Array(1024), tmpH = new Uint16Array(1024), tmpAmt = new Int32Array(1024), tmpFlags = new Uint8Array(1024);
  return (s, e) => {
    let inOrder = true;
    for (let r = s + 1; r < e && inOrder; r++) inOrder = keyOf[hcode[r]!]! >= keyOf[hcode[r - 1]!]!;
    if (inOrder) return;
    const len = e - s;
    if (idx.length < len) { idx = new Int32Array(len); tmpCode = new Uint16Array(len); tmpH = new Uint16Array(len); tmpAmt = new Int32Array(len); tmpFlags = new Uint8Array(len); }
    keyStart.fill(0);
    for (let r = s; r < e; r++) keyStart[keyOf[hcode[r]!]! + 1]!++;
    for (let k = 0; k < nKeys; k++) keyStart[k + 1]! += keyStart[k]!;
    for (let j = 0; j < len; j++) idx[keyStart[keyOf[hcode[s + j]!]!]!++] = j;
    tmpCode.set(code.subarray(s, e)); tmpH.set(hcode.subarray(s, e)); tmpAmt.set(amt.subarray(s, e)); tmpFlags.set(flags.subarray(s, e));
    for (let j = 0; j < len; j++) {
      const from = idx[j]!;
      code[s + j] = tmpCode[from]!; hcode[s + j] = tmpH[from]!; amt[s + j] = tmpAmt[from]!; flags[s + j] = tmpFlags[from]!;
    }
  };
}

/** Reads, verifies and writes one partition at its offset, by government; returns its groups. */
async function loadPartition(
  job: PartitionJob, part: Part, v: RowViews, govId: Map<string, number>, internCode: (s: string) => number, orderGroup: (s: number, e: number) => void,
): Promise<PartitionGroups> {
  const file = path.join(job.dir, part.path);
  const bytes = await readBytes(file);
  if (part.sha256 !== null && sha256(bytes) !== part.sha256) throw new LoadError(file, 'sha256 does not match the manifest (corrupt or truncated file)');
  const table = await parquetTable(file, bytes, job.longColumns);
  const n = table.numRows;
  if (n !== part.rowCount) throw new LoadError(file, `has ${n} rows; the manifest says ${part.rowCount}`);

  const gov = toGlobal(file, 'canonical_govid', internUtf8(chunks(table, 'canonical_govid'), n), (s) => {
    const id = govId.get(s);
    if (id === undefined) throw new LoadError(file, `canonical_govid '${s}' is not in canonical_fips_xwalk`);
    return id;
  });
  const codeIds = toGlobal(file, 'item_code', internUtf8(chunks(table, 'item_code'), n), internCode);
  const hcodeIds = job.harmonized ? toGlobal(file, 'harmonized_code', internUtf8(chunks(table, 'harmonized_code'), n), internCode, true) : null;

  // Counting sort by government; each group's rows are then ordered by category key in place (orderGroup).
  const nGov = job.govIds.length;
  const counts = new Uint32Array(nGov + 1);
  for (let i = 0; i < n; i++) counts[gov[i]! + 1]!++;
  for (let g = 0; g < nGov; g++) counts[g + 1]! += counts[g]!;
  const pos = counts.slice(0, nGov);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[pos[gov[i]!]!++] = i;

  const { code, hcode, amt, flags } = v;
  const aggChunks = chunks(table, 'is_aggregate');
  const amtAt = columnReader(chunks(table, 'amt')), popAt = columnReader(chunks(table, 'population')), popYearAt = columnReader(chunks(table, 'popyear'));
  const aggAt = (i: number): boolean => { const [d, j] = locate(aggChunks, i); return isValid(d, j) && boolAt(d, j); };
  const base = part.base;
  for (let k = 0; k < n; k++) {
    const i = order[k]!, r = base + k;
    code[r] = codeIds[i]!;
    hcode[r] = hcodeIds === null || hcodeIds[i]! < 0 ? NO_CODE : hcodeIds[i]!;
    const a = amtAt(i);
    amt[r] = a ?? 0;
    flags[r] = (aggAt(i) ? FLAG_AGGREGATE : 0) | (a === null ? FLAG_AMT_NULL : 0);
  }
  const gGov: number[] = [], gStart: number[] = [], gPop: number[] = [], gPopYear: number[] = [];
  for (let g = 0; g < nGov; g++) {
    const s = counts[g]!, e = counts[g + 1]!;
    if (s === e) continue;
    orderGroup(base + s, base + e);
    let pop = -1, popYear = 0;
    for (let k = s; k < e && pop < 0; k++) {
      const p = popAt(order[k]!);
      if (p !== null) { pop = p; popYear = popYearAt(order[k]!) ?? 0; }
    }
    gGov.push(g); gStart.push(base + s); gPop.push(pop); gPopYear.push(popYear);
  }
  return { year: part.year, gov: Uint32Array.from(gGov), start: Uint32Array.from(gStart), pop: Int32Array.from(gPop), popYear: Uint16Array.from(gPopYear) };
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
