// The finance corpus's layout in shared memory and its assembly: the row
// columns allocated for a manifest, filled by loader threads at each
// partition's offset, then the group and government indexes built from what
// the loaders report. No parquet here: this runs on the main thread.
//
// The loaders write rows year by year (the partition order) and, within a
// year, by government id, so each (government, year) is one contiguous run: a
// group. Assembly then reorders rows and groups government by government
// (governmentMajor), so a query for one government over all years reads one
// contiguous run per column.

import path from 'node:path';
import { LoadError } from '../corpus/load-error.js';
import { allocColumn, share, sharedBytes, viewOf, type SharedColumn } from '../corpus/shared.js';
import type { Catalog } from './catalog.js';
import { NO_CODE, type FinanceColumns, type LaidOutColumns, type StoredFinanceColumns } from './columns.js';

export interface LoadStats {
  rows: number;
  groups: number;
  /** Shared memory the corpus columns and the count index hold (each mapped by every thread, never copied). */
  sharedBytes: number;
  /** Of sharedBytes, the count index's (count-index-build.ts). */
  countIndexBytes?: number;
  ms: number;
  /** Loader threads that decoded the parquet (0 when started from the load cache). */
  loaders: number;
}

/** What a partition loader needs: where to write and how to name things. */
export interface PartitionJob {
  dir: string;
  parts: { year: number; path: string; sha256: string | null; rowCount: number; base: number }[];
  longColumns: string[];
  harmonized: boolean;
  /** canonical_govid by gid, and the code dictionary as the catalog seeded it. */
  govIds: string[];
  codes: string[];
  /** Codes the catalog did not know get ids from here up (a range per loader thread), remapped by the caller. */
  extraBase: number;
  columns: Pick<FinanceColumns, 'code' | 'hcode' | 'amt' | 'flags'>;
  /** The in-group row order key of every code id (EngineCatalog.codeKey), and the number of keys. */
  codeKey: Uint16Array;
  nKeys: number;
}

export interface PartitionGroups {
  year: number;
  gov: Uint32Array;
  start: Uint32Array;
  pop: Int32Array;
  popYear: Uint16Array;
}

/** The row columns for a manifest: allocated once, filled by partition loaders at each partition's offset. */
export function allocRows(cat: Catalog): { rows: PartitionJob['columns']; bases: number[]; nRows: number } {
  const { manifest } = cat;
  const seen = new Set<number>();
  for (const p of manifest.partitions) {
    if (seen.has(p.year)) throw new LoadError(path.join(cat.dir, 'manifest.json'), `lists more than one partition for year ${p.year}`);
    seen.add(p.year);
  }
  const nRows = manifest.partitions.reduce((n, p) => n + p.rowCount, 0);
  if (nRows >= 2 ** 32) throw new LoadError(path.join(cat.dir, 'manifest.json'), 'more rows than this server can index');
  const bases: number[] = [];
  manifest.partitions.reduce((b, p) => { bases.push(b); return b + p.rowCount; }, 0);
  return {
    rows: { code: allocColumn('u16', nRows).column, hcode: allocColumn('u16', nRows).column, amt: allocColumn('i32', nRows).column, flags: allocColumn('u8', nRows).column },
    bases, nRows,
  };
}

/**
 * Assembles the loaders' groups (in partition order) into the group and
 * government indexes, after giving the codes no catalog knew their final ids,
 * and lays rows and groups out government by government.
 */
export function assemble(cat: Catalog, rows: PartitionJob['columns'], nRows: number, results: { groups: PartitionGroups[]; extraCodes: string[]; extraBase: number }[]): LaidOutColumns {
  const code = viewOf(rows.code as never) as Uint16Array, hcode = viewOf(rows.hcode as never) as Uint16Array;
  for (const r of results) {
    if (r.extraCodes.length === 0) continue;
    const remap = r.extraCodes.map((s) => {
      let id = cat.codeId.get(s);
      if (id === undefined) { id = cat.codes.length; cat.codes.push(s); cat.codeId.set(s, id); }
      return id;
    });
    // Rare: a code outside every metadata table. Rewrite the rows to its final id.
    for (let i = 0; i < nRows; i++) {
      const c = code[i]!, h = hcode[i]!;
      if (c >= r.extraBase && c < r.extraBase + remap.length) code[i] = remap[c - r.extraBase]!;
      if (h !== NO_CODE && h >= r.extraBase && h < r.extraBase + remap.length) hcode[i] = remap[h - r.extraBase]!;
    }
  }
  if (cat.codes.length >= NO_CODE) throw new LoadError(cat.dir, 'more distinct item codes than the engine supports');
  const all = results.flatMap((r) => r.groups).sort((a, b) => a.year - b.year);
  const nGroups = all.reduce((n, g) => n + g.gov.length, 0);
  const nGov = cat.governments.length;
  const gGov = allocColumn('u32', nGroups), gYear = allocColumn('u16', nGroups), gStart = allocColumn('u32', nGroups + 1);
  const gPop = allocColumn('i32', nGroups), gPopYear = allocColumn('u16', nGroups);
  let at = 0;
  for (const g of all) {
    gGov.view.set(g.gov, at); gStart.view.set(g.start, at); gPop.view.set(g.pop, at); gPopYear.view.set(g.popYear, at);
    gYear.view.fill(g.year, at, at + g.gov.length);
    at += g.gov.length;
  }
  gStart.view[nGroups] = nRows;
  const govCount = new Uint32Array(nGov + 1);
  for (let i = 0; i < nGroups; i++) govCount[gGov.view[i]! + 1]!++;
  for (let g = 0; g < nGov; g++) govCount[g + 1]! += govCount[g]!;
  const fill = govCount.slice(0, nGov);
  const govGroups = new Uint32Array(nGroups);
  for (let i = 0; i < nGroups; i++) govGroups[fill[gGov.view[i]!]!++] = i;
  return withGovMeta(governmentMajor({
    nRows, nGroups, nGov, ...rows,
    gGov: gGov.column, gYear: gYear.column, gStart: gStart.column, gPop: gPop.column, gPopYear: gPopYear.column,
    govGroupStart: share('u32', govCount), govGroups: share('u32', govGroups),
  }));
}

/**
 * Reorders the loaded (year-major) rows and groups government by government,
 * each government's groups in year order: group k becomes govGroups[k], so
 * govGroups is then the identity. A government's history is then one
 * contiguous run per column, which the hardware prefetcher streams; year-major,
 * its 56 groups lay apart and each cost its own cache misses, which bounded
 * the per-government query by memory latency. A fleet query walks groups
 * year by year either way and pays one jump per group instead.
 * The year-major columns stay allocated until V8 collects them: start-up
 * (http/service.ts) runs one full GC right after, so RSS does not count both.
 */
export function governmentMajor(c: StoredFinanceColumns): StoredFinanceColumns {
  const n = c.nGroups;
  const order = viewOf(c.govGroups as never) as Uint32Array;
  const from = viewOf(c.gStart as never) as Uint32Array;
  const start = allocColumn('u32', n + 1);
  let at = 0;
  for (let k = 0; k < n; k++) {
    const g = order[k]!;
    start.view[k] = at;
    at += from[g + 1]! - from[g]!;
  }
  start.view[n] = at;
  const rows = (col: SharedColumn): SharedColumn => {
    const src = viewOf(col as never) as Uint8Array, out = allocColumn(col.kind, col.length), dst = out.view as Uint8Array;
    for (let k = 0; k < n; k++) {
      const g = order[k]!;
      for (let r = from[g]!, e = from[g + 1]!, w = start.view[k]!; r < e; r++, w++) dst[w] = src[r]!;
    }
    return out.column;
  };
  const groups = (col: SharedColumn): SharedColumn => {
    const src = viewOf(col as never) as Uint32Array, out = allocColumn(col.kind, col.length), dst = out.view as Uint32Array;
    for (let k = 0; k < n; k++) dst[k] = src[order[k]!]!;
    return out.column;
  };
  const identity = allocColumn('u32', n);
  for (let k = 0; k < n; k++) identity.view[k] = k;
  return {
    ...c,
    code: rows(c.code), hcode: rows(c.hcode), amt: rows(c.amt), flags: rows(c.flags),
    gGov: groups(c.gGov), gYear: groups(c.gYear), gPop: groups(c.gPop), gPopYear: groups(c.gPopYear),
    gStart: start.column, govGroups: identity.column,
  };
}

/** Adds the government-major copy of the group columns (FinanceColumns.govMeta). */
export function withGovMeta(c: StoredFinanceColumns): LaidOutColumns {
  const groups = new Uint32Array(c.govGroups.buffer as unknown as ArrayBuffer, 0, c.nGroups);
  const start = new Uint32Array(c.gStart.buffer as unknown as ArrayBuffer, 0, c.nGroups + 1);
  const year = new Uint16Array(c.gYear.buffer as unknown as ArrayBuffer, 0, c.nGroups);
  const pop = new Int32Array(c.gPop.buffer as unknown as ArrayBuffer, 0, c.nGroups);
  const popYear = new Uint16Array(c.gPopYear.buffer as unknown as ArrayBuffer, 0, c.nGroups);
  const meta = allocColumn('i32', 4 * c.nGroups);
  const m = meta.view;
  for (let k = 0; k < c.nGroups; k++) {
    const g = groups[k]!;
    m[4 * k] = start[g]!; m[4 * k + 1] = start[g + 1]!; m[4 * k + 2] = pop[g]!; m[4 * k + 3] = (year[g]! << 16) | popYear[g]!;
  }
  return { ...c, govMeta: meta.column };
}

export const statsOf = (columns: LaidOutColumns | FinanceColumns, ms: number, loaders: number): LoadStats => ({
  rows: columns.nRows, groups: columns.nGroups, ms, loaders,
  sharedBytes: sharedBytes(Object.values(columns).filter((v): v is SharedColumn => typeof v === 'object')),
});

