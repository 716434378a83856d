// What writing a money table needs (moneyTable): names, CPI and the memos of
// escaped cells. The main thread's FinanceCtx is one; each worker builds its
// own from TableNames, which crosses once, at start, in workerData, so that
// a CSV page can be written where its rows are computed.

import { ByteMemo, jsonText } from '../server/csv.js';
import type { Catalog } from './catalog.js';
import type { EngineCatalog } from './engine-catalog.js';

/**
 * Cell text escaped once for CSV and for JSON, reused across requests: names and ids by gid, codes by
 * id, categories, subtypes and flows by the keys moneyTable gives them.
 */
export interface TextMemo {
  csvGovName: ByteMemo; csvGovId: ByteMemo; csvCode: ByteMemo; csvCategory: ByteMemo; csvSubtype: ByteMemo; csvFlow: ByteMemo;
  jsonGovName: ByteMemo; jsonGovId: ByteMemo; jsonCode: ByteMemo; jsonCategory: ByteMemo; jsonSubtype: ByteMemo; jsonFlow: ByteMemo;
  /** Two or three codes' joined text, by their ids (money.ts codeSetKey): bounded by the code sets the corpus has. */
  csvCodeSet: Map<number, Uint8Array>;
  /** The same sets for JSON, each given a memo key past the codes' (money-table.ts), and their text by that key. */
  jsonCodeSetKey: Map<number, number>; jsonCodeSetText: string[];
  /** aggregate_fallback's JSON (null, false, true) and an empty note's. */
  jsonFlag: ByteMemo; jsonNote: ByteMemo;
}

export interface TableCtx {
  engine: EngineCatalog;
  catalog: {
    codes: readonly string[];
    recipes: readonly { recipe_id: string; label: string }[];
    governments: readonly { canonical_govid: string; gov_name: string }[];
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
  cpi: [number, number][];
}

export function tableNames(catalog: Catalog): TableNames {
  return {
    codes: catalog.codes,
    recipes: catalog.recipes.map((r) => ({ recipe_id: r.recipe_id, label: r.label })),
    govIds: catalog.governments.map((g) => g.canonical_govid),
    govNames: catalog.governments.map((g) => g.gov_name),
    cpi: [...catalog.cpi.index],
  };
}

export function tableCtxOf(engine: EngineCatalog, names: TableNames): TableCtx {
  return {
    engine,
    catalog: {
      codes: names.codes,
      recipes: names.recipes,
      governments: names.govIds.map((canonical_govid, gid) => ({ canonical_govid, gov_name: names.govNames[gid]! })),
      cpi: { index: new Map(names.cpi) },
    },
    textMemo: newTextMemo(engine, names.govIds.length, names.codes.length, names.recipes.length),
  };
}

export function newTextMemo(engine: EngineCatalog, nGov: number, nCodes: number, nRecipes: number): TextMemo {
  // Category names: the all-categories label, the categories, each recipe's label (money.ts categoryKey).
  const nNames = 1 + engine.categories.length + nRecipes;
  const memos = (escape?: (s: string | null) => string) => ({
    govName: new ByteMemo(nGov, escape), govId: new ByteMemo(nGov, escape), code: new ByteMemo(nCodes, escape),
    category: new ByteMemo(nNames, escape), subtype: new ByteMemo(engine.subtypes.length + 1, escape), flow: new ByteMemo(4, escape),
  });
  const csv = memos(), json = memos(jsonText);
  return {
    csvGovName: csv.govName, csvGovId: csv.govId, csvCode: csv.code, csvCategory: csv.category, csvSubtype: csv.subtype, csvFlow: csv.flow,
    jsonGovName: json.govName, jsonGovId: json.govId, jsonCode: json.code, jsonCategory: json.category, jsonSubtype: json.subtype, jsonFlow: json.flow,
    csvCodeSet: new Map(), jsonCodeSetKey: new Map(), jsonCodeSetText: [],
    jsonFlag: new ByteMemo(3, (s) => s ?? 'null'), jsonNote: new ByteMemo(1, jsonText),
  };
}
