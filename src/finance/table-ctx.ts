// What writing a money table needs (money-table.ts): names, CPI and the
// memos of escaped cells. The FinanceCtx of a thread serving requests is
// one; each worker builds its own from TableNames, which crosses once, at
// start, in workerData, so that a CSV page can be written where its rows are
// computed (workers/finance/money-page.ts).

import { ByteMemo } from '../bytes/byte-writer.js';
import { csvField } from '../bytes/csv-writer.js';
import { jsonText } from '../bytes/json-rows.js';
import type { Catalog } from './catalog.js';
import type { EngineCatalog } from './engine-catalog.js';

/** A memoized column's cells, escaped once for each format. */
export interface MemoPair {
  csv: ByteMemo;
  json: ByteMemo;
}

/**
 * Cell text escaped once for CSV and for JSON, reused across requests, by
 * the keys money-table.ts gives them: names and ids by gid, codes by id
 * (and sets of codes past them), categories, subtypes, flows,
 * aggregate_fallback and an empty note.
 */
export interface TextMemo {
  govId: MemoPair; govName: MemoPair; codes: MemoPair; category: MemoPair; subtype: MemoPair; flow: MemoPair;
  /** aggregate_fallback (null, false, true): literals, not texts, in JSON. */
  flag: MemoPair;
  note: MemoPair;
  /**
   * Sets of a few codes (up to five with about 500 codes), keyed by their ids as one numeral
   * (money-table.ts codesColumn), each given a memo key past the codes', and their joined text
   * by that key past the codes: bounded by CODE_SETS.
   */
  codeSetKey: Map<number, number>;
  codeSetText: string[];
}

export interface TableCtx {
  engine: EngineCatalog;
  catalog: {
    codes: readonly string[];
    recipes: readonly { recipe_id: string; label: string }[];
    /** state and type_label: the flat routes' identity columns (identity=true). */
    governments: readonly { canonical_govid: string; gov_name: string; state: string | null; type_label: string }[];
    cpi: { index: ReadonlyMap<number, number> };
  };
  textMemo: TextMemo;
}

/** The names a worker's TableCtx is built from: plain arrays, cheap to clone. */
export interface TableNames {
  codes: string[];
  recipes: { recipe_id: string; label: string }[];
  govIds: string[];
  govNames: string[];
  govStates: (string | null)[];
  govTypes: string[];
  cpi: [number, number][];
}

export function tableNames(catalog: Catalog): TableNames {
  return {
    codes: catalog.codes,
    recipes: catalog.recipes.map((r) => ({ recipe_id: r.recipe_id, label: r.label })),
    govIds: catalog.governments.map((g) => g.canonical_govid),
    govNames: catalog.governments.map((g) => g.gov_name),
    govStates: catalog.governments.map((g) => g.state),
    govTypes: catalog.governments.map((g) => g.type_label),
    cpi: [...catalog.cpi.index],
  };
}

export function tableCtxOf(engine: EngineCatalog, names: TableNames): TableCtx {
  return {
    engine,
    catalog: {
      codes: names.codes,
      recipes: names.recipes,
      governments: names.govIds.map((canonical_govid, gid) => ({
        canonical_govid, gov_name: names.govNames[gid]!, state: names.govStates[gid]!, type_label: names.govTypes[gid]!,
      })),
      cpi: { index: new Map(names.cpi) },
    },
    textMemo: newTextMemo(engine, names.govIds.length, names.codes.length, names.recipes.length),
  };
}

/** Code sets given a memo key, at most: the corpus has a few hundred; past this they are written per row. */
export const CODE_SETS = 4096;

export function newTextMemo(engine: EngineCatalog, nGov: number, nCodes: number, nRecipes: number): TextMemo {
  const pair = (keys: number, json: (s: string | null) => string = jsonText): MemoPair => ({ csv: new ByteMemo(keys, csvField), json: new ByteMemo(keys, json) });
  return {
    govId: pair(nGov), govName: pair(nGov), codes: pair(nCodes + CODE_SETS),
    // Category names: the all-categories label, the categories, each recipe's label (money-table.ts categoryKey).
    category: pair(1 + engine.categories.length + nRecipes),
    subtype: pair(engine.subtypes.length + 1), flow: pair(4),
    flag: pair(3, (s) => s ?? 'null'), note: pair(1),
    codeSetKey: new Map(), codeSetText: [],
  };
}
