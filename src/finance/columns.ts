// The finance corpus's shared column layout and row flags. Kept apart from
// the loader so workers import it without pulling in parquet-wasm.

import type { SharedColumn } from '../corpus/shared.js';

/** Marks a missing harmonized_code (and, in the engine, any missing code). */
export const NO_CODE = 0xffff;
export const FLAG_AGGREGATE = 1;
export const FLAG_AMT_NULL = 2;

/**
 * The order of rows inside a (government, year) group: by the category of
 * their harmonized code (rows without a harmonized code last, those whose
 * code has no category just before them). A harmonized query for a few
 * categories then reads only their runs instead of scanning each group:
 * where each run starts is kept at load (key-starts.ts), and a group too long
 * for those offsets is binary-searched. The loader sorts with this key, and
 * the key starts and the search read it, so it lives here, the one place all read.
 */
export function rowCategoryKey(hcode: number, codeCat: Int16Array, nCategories: number): number {
  if (hcode === NO_CODE) return unmappedKey(nCategories);
  const c = hcode < codeCat.length ? codeCat[hcode]! : -1;
  return c >= 0 ? c : nCategories;
}

/** The key of the rows without a harmonized code: the last, after those whose code has no category (nCategories). */
export const unmappedKey = (nCategories: number): number => nCategories + 1;

/** rowCategoryKey of every possible code id, built once: the loader's sort and the job's search each read one lookup a row. */
export function rowCategoryKeys(codeCat: Int16Array, nCategories: number): Uint16Array {
  const keys = new Uint16Array(NO_CODE + 1);
  for (let h = 0; h <= NO_CODE; h++) keys[h] = rowCategoryKey(h, codeCat, nCategories);
  return keys;
}

export interface FinanceColumns {
  nRows: number;
  nGroups: number;
  nGov: number;
  code: SharedColumn;
  hcode: SharedColumn;
  /** amt as published: whole thousands of dollars. */
  amt: SharedColumn;
  flags: SharedColumn;
  gGov: SharedColumn;
  gYear: SharedColumn;
  /** nGroups + 1 offsets into the row columns. */
  gStart: SharedColumn;
  /** Population of the group's rows (-1 when none), and its popyear (0 when none). */
  gPop: SharedColumn;
  gPopYear: SharedColumn;
  /** nGov + 1 offsets into govGroups. */
  govGroupStart: SharedColumn;
  govGroups: SharedColumn;
  /**
   * Derived at load (never cached): each government's groups in govGroups
   * order as four i32 [start, end, pop, year << 16 | popYear] (start and end
   * read back with >>> 0: row offsets are unsigned). Groups are
   * government-major (corpus-layout.ts governmentMajor), so govGroups is the
   * identity; the job reads its groups through govMeta all the same.
   */
  govMeta: SharedColumn;
  /**
   * Derived at load (never cached, key-starts.ts): per group k, at k * keyStride, where each category
   * key's rows start as offsets from the group's start, then the group's length, then 1 when one of its
   * rows without a harmonized code could count as not applicable (LONG_GROUP first for a group too long
   * for a byte: its other entries are not written).
   */
  keyStart: SharedColumn;
  keyStride: number;
}

export type StoredFinanceColumns = Omit<FinanceColumns, 'govMeta' | 'keyStart' | 'keyStride'>;
/** The columns laid out, before the key starts (which need the engine catalog's category keys) are added. */
export type LaidOutColumns = Omit<FinanceColumns, 'keyStart' | 'keyStride'>;
