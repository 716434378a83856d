// A page of money rows as named columns (moneyTable), the one source of both
// its JSON rows and its CSV records. Written on the thread serving the
// request for JSON answers and in a worker for CSV pages
// (workers/finance/money-page.ts), from a TableCtx either way.
//
// Each column is declared once, by its kind, with one function per rule:
// plain (numbers, booleans and words that never need quoting), text (any
// value, escaped per row), or keyed (one of a known set of texts, named by a
// key: the writers copy each key's escaped bytes from the memo of their
// format, and write a row without a key from the column's value). The byte
// writers take their memo keys from the declaration, so a money rule is
// changed here without reading them.

import type { Cell } from '../bytes/byte-writer.js';
import type { ArrowType, ColumnTable, MemoCell } from '../bytes/column-table.js';
import { csvField, plainCsv } from '../bytes/csv-writer.js';
import { plainJson } from '../bytes/json-rows.js';
import type { Flow } from './catalog.js';
import { ALL_CATEGORIES, type RecipeChoice } from './money-choices.js';
import {
  ALL_CATEGORIES_ID, RECIPE_CATEGORY_ID, ROW_AGGREGATE, ROW_DIRECT_SUPPRESSED, VS_CENSUS_ZERO, VS_NONE, VS_NOT_REPORTED, type MoneyRows, type MoneySummary,
} from './plan.js';
import { CODE_SETS, type MemoPair, type TableCtx } from './table-ctx.js';

export interface MoneyRoute {
  verb: string;
  flows: Flow[];
  /** The row's subtype field: spend_subtype, revenue_subtype, balance_subtype, or subtype (with flow) on /profile. */
  subtypeField: string;
  withFlow: boolean;
}

/** What moneyTable reads of a query beside its rows: all that crosses to a worker with a CSV page's plan. */
export interface MoneyTableOptions {
  recipe: RecipeChoice | null;
  /** adjust=real: amounts in base-year dollars too. */
  real: boolean;
  perCapita: boolean;
  baseYear: number | null;
  complete: boolean;
  /** identity=true: each row's state, government type and population of the year beside its name. */
  identity: boolean;
}

/** The validated parameters moneyTable's options come from (a route declares a subset: the others are absent). */
export interface TableParams {
  recipe?: RecipeChoice;
  adjust?: 'nominal' | 'real';
  per_capita?: boolean;
  base_year?: number;
  complete?: boolean;
  identity?: boolean;
}

/** A money query's validated parameters as moneyTable reads them. */
export const tableOptions = (p: TableParams): MoneyTableOptions => ({
  recipe: p.recipe ?? null,
  real: p.adjust === 'real',
  perCapita: p.per_capita === true,
  baseYear: p.base_year ?? null,
  complete: p.complete === true,
  identity: p.identity === true,
});

/** A column beside the money ones (a rollup's fips_state, a comparison's role): text escaped per row. */
export interface ExtraColumn {
  name: string;
  get: (i: number) => unknown;
}

/**
 * What moneyTable reads of a job's result: its rows, and the recipes of the rows it flagged as suppressed
 * Direct legs (their notes). A page written in steps has no summary: its fast path flags no such row.
 */
export interface TableRows {
  rows: MoneyRows;
  summary: Pick<MoneySummary, 'suppressedRecipes'>;
}

/** arrow: the column's type in Arrow and Parquet answers (utf8 when absent). */
type Column =
  | { kind: 'plain' | 'text'; name: string; value: (i: number) => unknown; arrow?: ArrowType }
  | { kind: 'keyed'; name: string; key: (i: number) => number; keys: number; text: (k: number) => string | null; memo: MemoPair; value?: (i: number) => unknown; arrow: ArrowType };

const FLOW_NAME: Record<number, string> = { 0: 'recipe', 1: 'expenditure', 2: 'revenue', 3: 'balance' };
const VALUE_SOURCE = ['reported', 'reported', 'census_zero', 'not_reported'];
/** aggregate_fallback by its key: a filled row's null, then false and true (literals in JSON: see TextMemo.flag). */
const FLAG_TEXT = [null, 'false', 'true'];

const MONEY_NOTES = {
  aggregate: 'Aggregate fallback applied: includes aggregate-published codes (legacy intergovernmental families)',
  noPopulation: 'No population denominator for this government and year',
} as const;
/** A row's notes as bits, each one note: the row's own flags, and no population. A row with none (most) writes the memoized empty note. */
const NOTE_AGGREGATE = ROW_AGGREGATE, NOTE_SUPPRESSED = ROW_DIRECT_SUPPRESSED, NOTE_NO_POPULATION = 4;

/**
 * The page of a job result as named columns: the field order of the spec's
 * row, with real and per-capita amounts and notes derived per row. JSON rows
 * and CSV records are both read from this, so they cannot disagree.
 */
export function moneyTable(ctx: TableCtx, route: MoneyRoute, o: MoneyTableOptions, res: TableRows, extra: ExtraColumn[] = []): ColumnTable {
  const { catalog, engine: e, textMemo: tm } = ctx;
  const r = res.rows;
  const baseCpi = o.baseYear === null ? Number.NaN : catalog.cpi.index.get(o.baseYear) ?? Number.NaN;
  const amt = (i: number): number | null => (Number.isNaN(r.amt[i]!) ? null : r.amt[i]! * 1000);
  const perCap = (i: number): number | null => {
    const a = amt(i), pop = r.pop[i]!;
    return a === null || pop <= 0 ? null : a / pop;
  };
  /** An amount in base-year dollars: null without the amount or the year's CPI. */
  const inBaseYear = (a: number | null, i: number): number | null => {
    const cpi = catalog.cpi.index.get(r.year[i]!);
    return a === null || cpi === undefined ? null : a * (baseCpi / cpi);
  };
  const filled = (i: number): boolean => r.valueSource[i] === VS_CENSUS_ZERO || r.valueSource[i] === VS_NOT_REPORTED;
  const plain = (name: string, value: (i: number) => unknown, arrow: ArrowType): Column => ({ kind: 'plain', name, value, arrow });

  // Every name a cell can hold is keyed over the catalog and escaped once for the server's life (ctx.textMemo).
  // Each key function reads its column inline: one shared closure calling many key functions is a megamorphic call per cell.
  // One key function for a government's id and name: a JSON run then counts the government once (json-rows.ts).
  const govKey = (i: number): number => r.gov[i]!;
  // Category keys: 0 the all-categories label, 1..n the categories, then each recipe's label.
  const nCat = e.categories.length, recipeKey = nCat + 1 + (o.recipe?.index ?? 0);
  const categoryKey = (i: number): number => (r.cat[i] === RECIPE_CATEGORY_ID ? recipeKey : r.cat[i]! + 1);
  const categoryText = (k: number): string => (k === ALL_CATEGORIES_ID + 1 ? ALL_CATEGORIES : k <= nCat ? e.categories[k - 1]! : catalog.recipes[k - nCat - 1]!.label);
  const subtypeKey = (i: number): number => (r.cat[i] === RECIPE_CATEGORY_ID ? e.subtypes.length : r.sub[i]!);
  const subtypeText = (k: number): string => (k === e.subtypes.length ? 'recipe' : e.subtypes[k]!);

  const govs = catalog.governments;
  const cols: Column[] = [
    plain('year', (i) => r.year[i], 'int32'),
    { kind: 'keyed', name: 'canonical_govid', key: govKey, keys: govs.length, text: (g) => govs[g]!.canonical_govid, memo: tm.govId, arrow: 'dict' },
    { kind: 'keyed', name: 'gov_name', key: govKey, keys: govs.length, text: (g) => govs[g]!.gov_name, memo: tm.govName, arrow: 'dict' },
  ];
  // Who a row is, for a national pull: two WASHINGTON COUNTYs differ by state. Words that never need quoting.
  if (o.identity) {
    cols.push(
      plain('state', (i) => govs[r.gov[i]!]!.state, 'dict'),
      plain('type', (i) => govs[r.gov[i]!]!.type_label, 'dict'),
      plain('population', (i) => (r.pop[i]! > 0 ? r.pop[i] : null), 'int32'),
    );
  }
  cols.push(
    ...extra.map((x): Column => ({ kind: 'text', name: x.name, value: x.get })),
    { kind: 'keyed', name: 'category', key: categoryKey, keys: nCat + 1 + catalog.recipes.length, text: categoryText, memo: tm.category, arrow: 'dict' },
    { kind: 'keyed', name: route.subtypeField, key: subtypeKey, keys: e.subtypes.length + 1, text: subtypeText, memo: tm.subtype, arrow: 'dict' },
  );
  if (route.withFlow) cols.push({ kind: 'keyed', name: 'flow', key: (i) => r.flow[i]!, keys: 4, text: (f) => FLOW_NAME[f]!, memo: tm.flow, arrow: 'dict' });
  cols.push(plain('amt_nominal', amt, 'float64'));
  if (o.real) cols.push(plain('amt_real', (i) => inBaseYear(amt(i), i), 'float64'));
  if (o.perCapita) {
    cols.push(plain('amt_per_capita_nominal', perCap, 'float64'));
    if (o.real) cols.push(plain('amt_per_capita_real', (i) => inBaseYear(perCap(i), i), 'float64'));
    cols.push(plain('pop_source', (i) => (r.pop[i]! > 0 ? 'census_f33' : 'unavailable'), 'dict'));
  }
  cols.push(codesColumn(ctx, res, filled), aggregateColumn(ctx, res, filled), notesColumn(ctx, res, o));
  if (o.complete) cols.push(plain('value_source', (i) => VALUE_SOURCE[r.valueSource[i] === VS_NONE ? 1 : r.valueSource[i]!], 'dict'));
  return tableOf(cols, r.n);
}

/**
 * codes_included: the row's codes, sorted and joined; null on a filled row. One code is keyed by its
 * id; a set of a few (a category's Direct codes, an all-categories total's), which repeat as well, by a
 * key past the codes' given on first sight; anything longer is written per row.
 */
function codesColumn(ctx: TableCtx, res: TableRows, filled: (i: number) => boolean): Column {
  const { catalog: { codes }, textMemo: { codeSetKey, codeSetText } } = ctx;
  const r = res.rows, nCodes = codes.length;
  // A set's ids (the job sorted them) as a numeral in base nCodes + 1 of digits id + 1: sets of different
  // lengths cannot collide, and a set of up to maxSet digits stays an exact integer (below 2^53). About 500
  // codes give sets of five; all categories' totals are sets of two to five codes.
  const base = nCodes + 1, maxSet = Math.floor(53 / Math.log2(base + 1));
  const value = (i: number): string | null => {
    if (filled(i)) return null;
    const s = r.codesStart[i]!, n = r.codesStart[i + 1]! - s;
    if (n === 1) return codes[r.codes[s]!]!;
    const list: string[] = [];
    for (let k = s; k < s + n; k++) list.push(codes[r.codes[k]!]!);
    return list.sort().join(',');
  };
  const key = (i: number): number => {
    const s = r.codesStart[i]!, n = r.codesStart[i + 1]! - s;
    if (n === 1 && !filled(i)) return r.codes[s]!;
    if (n < 2 || n > maxSet || filled(i)) return -1;
    let id = 0;
    for (let j = s; j < s + n; j++) id = id * base + r.codes[j]! + 1;
    let k = codeSetKey.get(id);
    if (k === undefined) {
      if (codeSetText.length >= CODE_SETS) return -1;
      codeSetKey.set(id, (k = nCodes + codeSetText.length));
      codeSetText.push(value(i)!);
    }
    return k;
  };
  const text = (k: number): string => (k < nCodes ? codes[k]! : codeSetText[k - nCodes]!);
  return { kind: 'keyed', name: 'codes_included', key, keys: nCodes + CODE_SETS, text, memo: ctx.textMemo.codes, value, arrow: 'dict' };
}

/** aggregate_fallback: whether the row includes aggregate-published codes; null on a filled row. */
function aggregateColumn(ctx: TableCtx, res: TableRows, filled: (i: number) => boolean): Column {
  const r = res.rows;
  const value = (i: number): boolean | null => (filled(i) ? null : (r.flags[i]! & ROW_AGGREGATE) !== 0);
  const key = (i: number): number => { const a = value(i); return a === null ? 0 : a ? 2 : 1; };
  return { kind: 'keyed', name: 'aggregate_fallback', key, keys: 3, text: (k) => FLAG_TEXT[k]!, memo: ctx.textMemo.flag, value, arrow: 'bool' };
}

/** notes: each note the row's bits name, joined by '; '; the empty note (most rows) is memoized. */
function notesColumn(ctx: TableCtx, res: TableRows, o: MoneyTableOptions): Column {
  const { catalog } = ctx, r = res.rows;
  const bits = (i: number): number => (r.flags[i]! & (NOTE_AGGREGATE | NOTE_SUPPRESSED)) | (o.perCapita && r.pop[i]! <= 0 ? NOTE_NO_POPULATION : 0);
  const value = (i: number): string => {
    const b = bits(i);
    if (b === 0) return '';
    const notes: string[] = [];
    if (b & NOTE_AGGREGATE) notes.push(MONEY_NOTES.aggregate);
    if (b & NOTE_NO_POPULATION) notes.push(MONEY_NOTES.noPopulation);
    if (b & NOTE_SUPPRESSED) {
      const ids = res.summary.suppressedRecipes[`${r.year[i]}:${r.cat[i]}`] ?? [];
      notes.push(`Direct component is unavailable through this basis for this year; recover it via recipe = '${ids.map((x) => catalog.recipes[x]!.recipe_id).join("', '")}' (see /recipes)`);
    }
    return notes.join('; ');
  };
  return { kind: 'keyed', name: 'notes', key: (i) => (bits(i) === 0 ? 0 : -1), keys: 1, text: () => '', memo: ctx.textMemo.note, value, arrow: 'dict' };
}

/** The columns as the byte writers read them: a keyed column is a memo cell per format, sharing its key and text. */
function tableOf(cols: Column[], n: number): ColumnTable {
  const t: ColumnTable = { names: [], get: [], csv: [], json: [], arrow: [], n };
  for (const c of cols) {
    t.names.push(c.name);
    t.arrow!.push(c.arrow ?? 'utf8');
    if (c.kind === 'keyed') {
      const { key, keys, text, value } = c;
      t.get.push(value ?? ((i) => text(key(i))));
      // A row without a key (only a column with a value of its own has one) is its value, escaped.
      // Every memo cell of one shape (fallback present, if undefined), so the writers' reads of them stay monomorphic.
      const csv: Cell | undefined = value && ((i, w) => w.text(csvField(value(i))));
      const json: Cell | undefined = value && ((i, w) => w.text(JSON.stringify(value(i) ?? null)));
      t.csv!.push({ key, keys, text, memo: c.memo.csv, fallback: csv } satisfies MemoCell);
      t.json!.push({ key, keys, text, memo: c.memo.json, fallback: json } satisfies MemoCell);
    } else {
      t.get.push(c.value);
      t.csv!.push(c.kind === 'plain' ? plainCsv(c.value) : undefined);
      t.json!.push(c.kind === 'plain' ? plainJson(c.value) : undefined);
    }
  }
  return t;
}
