// A page of money rows as named columns (moneyTable), the one source of both
// its JSON rows and its CSV records. Written on the main thread for JSON
// answers and in a worker for CSV pages (workers/finance/money-csv.ts), from
// a TableCtx either way.

import { csvField, memoJson, plainCsv, plainJson, utf8, type ColumnTable, type CsvCell, type JsonCell, type MemoCell } from '../server/csv.js';
import type { Flow } from './catalog.js';
import { ALL_CATEGORIES, type RecipeChoice } from './money-params.js';
import {
  ALL_CATEGORIES_ID, RECIPE_CATEGORY_ID, ROW_AGGREGATE, ROW_DIRECT_SUPPRESSED, VS_CENSUS_ZERO, VS_NONE, VS_NOT_REPORTED, type MoneyResult,
} from './plan.js';
import type { TableCtx } from './table-ctx.js';

export interface MoneyRoute {
  verb: string;
  flows: Flow[];
  /** The row's subtype field: spend_subtype, revenue_subtype, balance_subtype, or subtype (with flow) on /profile. */
  subtypeField: string;
  withFlow: boolean;
}

/** aggregate_fallback's JSON by its memo key: a filled row's null, then false and true. */
const FLAG_JSON = ['null', 'false', 'true'];
/** Code sets given a JSON memo key, at most: the corpus has a few hundred; past this they are written per row. */
const CODE_SETS = 4096;
const FLOW_NAME: Record<number, string> = { 0: 'recipe', 1: 'expenditure', 2: 'revenue', 3: 'balance' };
const VALUE_SOURCE = ['reported', 'reported', 'census_zero', 'not_reported'];

export const MONEY_NOTES = {
  aggregate: 'Aggregate fallback applied: includes aggregate-published codes (legacy intergovernmental families)',
  noPopulation: 'No population denominator for this government and year',
} as const;

/** The parameters moneyTable reads: all that crosses to a worker beside a CSV page's plan. */
export const tableParams = (p: Record<string, unknown>): Record<string, unknown> =>
  ({ recipe: p.recipe, adjust: p.adjust, per_capita: p.per_capita, base_year: p.base_year, complete: p.complete });

/**
 * The page of a job result as named columns: the field order of the spec's
 * row, with real and per-capita amounts and notes derived per row. JSON rows
 * and CSV records are both read from this, so they cannot disagree.
 */
export function moneyTable(ctx: TableCtx, route: MoneyRoute, params: Record<string, unknown>, res: MoneyResult, extra: { name: string; get: (i: number) => unknown; csv?: CsvCell }[] = []): ColumnTable {
  const { catalog, engine: e } = ctx;
  const r = res.rows;
  const recipe = params.recipe as RecipeChoice | undefined;
  const label = recipe ? catalog.recipes[recipe.index]!.label : '';
  const real = params.adjust === 'real';
  const perCapita = params.per_capita === true;
  const baseCpi = catalog.cpi.index.get(params.base_year as number) ?? Number.NaN;
  const amt = (i: number): number | null => (Number.isNaN(r.amt[i]!) ? null : r.amt[i]! * 1000);
  const cpiRatio = (i: number): number | null => {
    const cpi = catalog.cpi.index.get(r.year[i]!);
    return cpi === undefined ? null : baseCpi / cpi;
  };
  const perCap = (i: number): number | null => {
    const a = amt(i), pop = r.pop[i]!;
    return a === null || pop <= 0 ? null : a / pop;
  };
  const filled = (i: number): boolean => r.valueSource[i] === VS_CENSUS_ZERO || r.valueSource[i] === VS_NOT_REPORTED;
  const gov = (i: number) => catalog.governments[r.gov[i]!]!;
  const catName = (cat: number): string => (cat === RECIPE_CATEGORY_ID ? label : cat === ALL_CATEGORIES_ID ? ALL_CATEGORIES : e.categories[cat]!);
  const categoryName = (i: number): string => catName(r.cat[i]!);
  const subtypeName = (i: number): string => (r.cat[i] === RECIPE_CATEGORY_ID ? 'recipe' : e.subtypes[r.sub[i]!]!);
  const subtypeKey = (i: number): number => (r.cat[i] === RECIPE_CATEGORY_ID ? e.subtypes.length : r.sub[i]!);
  const subtypeOfKey = (k: number): string => (k === e.subtypes.length ? 'recipe' : e.subtypes[k]!);
  // Every name a cell can hold is keyed over the catalog and escaped once for the server's life
  // (ctx.textMemo). Category keys: 0 the all-categories label, 1..n the categories, then each recipe's label.
  // Each cell reads its key inline: one shared closure calling many key functions is a megamorphic call per cell.
  const nCat = e.categories.length, recipeKey = nCat + 1 + (recipe?.index ?? 0);
  const categoryKey = (i: number): number => (r.cat[i] === RECIPE_CATEGORY_ID ? recipeKey : r.cat[i]! + 1);
  const catOfKey = (k: number): string => (k === 0 ? ALL_CATEGORIES : k <= nCat ? e.categories[k - 1]! : catalog.recipes[k - nCat - 1]!.label);
  const tm = ctx.textMemo;
  // One key function for a government's id and name: a JSON run then counts the government once (csv.ts jsonRows).
  const nGov = catalog.governments.length, govKey = (i: number): number => r.gov[i]!;
  const govIdOf = (gid: number): string => catalog.governments[gid]!.canonical_govid;
  const govNameOf = (gid: number): string => catalog.governments[gid]!.gov_name;
  const flowOf = (f: number): string => FLOW_NAME[f]!;
  type Col = { name: string; get: (i: number) => unknown; csv?: CsvCell; json?: JsonCell | MemoCell };
  // Columns that can never need quoting write their plain text; names are escaped once per government or category.
  const plain = (name: string, get: (i: number) => unknown): Col => ({ name, get, csv: plainCsv(get), json: plainJson(get) });
  const cols: Col[] = [
    plain('year', (i) => r.year[i]),
    {
      name: 'canonical_govid', get: (i) => gov(i).canonical_govid,
      csv: (i, w) => tm.csvGovId.write(w, r.gov[i]!, govIdOf),
      json: memoJson(govKey, nGov, govIdOf, tm.jsonGovId),
    },
    {
      name: 'gov_name', get: (i) => gov(i).gov_name,
      csv: (i, w) => tm.csvGovName.write(w, r.gov[i]!, govNameOf),
      json: memoJson(govKey, nGov, govNameOf, tm.jsonGovName),
    },
    ...extra,
    { name: 'category', get: categoryName, csv: (i, w) => tm.csvCategory.write(w, categoryKey(i), catOfKey), json: memoJson(categoryKey, nCat + 1 + catalog.recipes.length, catOfKey, tm.jsonCategory) },
    {
      name: route.subtypeField, get: subtypeName,
      csv: (i, w) => tm.csvSubtype.write(w, subtypeKey(i), subtypeOfKey),
      json: memoJson(subtypeKey, e.subtypes.length + 1, subtypeOfKey, tm.jsonSubtype),
    },
  ];
  if (route.withFlow) {
    cols.push({ name: 'flow', get: (i) => FLOW_NAME[r.flow[i]!], csv: (i, w) => tm.csvFlow.write(w, r.flow[i]!, flowOf), json: memoJson((i) => r.flow[i]!, 4, flowOf, tm.jsonFlow) });
  }
  cols.push(plain('amt_nominal', amt));
  if (real) cols.push(plain('amt_real', (i) => { const a = amt(i), k = cpiRatio(i); return a === null || k === null ? null : a * k; }));
  if (perCapita) {
    cols.push(plain('amt_per_capita_nominal', perCap));
    if (real) cols.push(plain('amt_per_capita_real', (i) => { const a = perCap(i), k = cpiRatio(i); return a === null || k === null ? null : a * k; }));
    cols.push(plain('pop_source', (i) => (r.pop[i]! > 0 ? 'census_f33' : 'unavailable')));
  }
  const codesOf = (i: number): string | null => {
    if (filled(i)) return null;
    const s = r.codesStart[i]!, n = r.codesStart[i + 1]! - s;
    if (n === 1) return catalog.codes[r.codes[s]!]!;
    const codes: string[] = [];
    for (let k = s; k < s + n; k++) codes.push(catalog.codes[r.codes[k]!]!);
    return codes.sort().join(',');
  };
  const notesOf = (i: number): string => {
    const notes: string[] = [];
    if (r.flags[i]! & ROW_AGGREGATE) notes.push(MONEY_NOTES.aggregate);
    if (perCapita && r.pop[i]! <= 0) notes.push(MONEY_NOTES.noPopulation);
    if (r.flags[i]! & ROW_DIRECT_SUPPRESSED) {
      const ids = res.summary.suppressedRecipes[`${r.year[i]}:${r.cat[i]}`] ?? [];
      notes.push(`Direct component is unavailable through this basis for this year; recover it via recipe = '${ids.map((x) => catalog.recipes[x]!.recipe_id).join("', '")}' (see /recipes)`);
    }
    return notes.join('; ');
  };
  // Most rows carry one code and no note: those cells are memoized text, the rest are written per row.
  const oneCode = (i: number): number => (!filled(i) && r.codesStart[i + 1]! - r.codesStart[i]! === 1 ? r.codes[r.codesStart[i]!]! : -1);
  const noNote = (i: number): boolean => r.flags[i] === 0 && !(perCapita && r.pop[i]! <= 0);
  // Two or three codes (a category's Direct codes) repeat as well: keyed by their ids, which the job
  // sorted, as a numeral in base 65536 of digits id + 1 (1..65536, ids being uint16), so keys of
  // different lengths cannot collide and three digits stay below 2^49. One code keeps its own memo
  // indexed by id: a Map lookup of a non-Smi key costs more, and one code is most rows.
  const codeSetKey = (i: number): number => {
    const s = r.codesStart[i]!, n = r.codesStart[i + 1]! - s;
    if (n < 2 || n > 3 || filled(i)) return -1;
    let k = 0;
    for (let j = s; j < s + n; j++) k = k * 65536 + r.codes[j]! + 1;
    return k;
  };
  const { csvCode, jsonCode, csvCodeSet, jsonCodeSetKey, jsonCodeSetText } = tm;
  const codeName = (c: number): string => catalog.codes[c]!;
  // JSON keys the cells too, so that they join the run of memo cells that ends a row (csv.ts jsonRows):
  // a code by its id, a set of two or three by a key past the codes', anything else (a filled row's
  // null, more codes) written as it is.
  const nCodes = catalog.codes.length;
  const jsonCodesKey = (i: number): number => {
    const c = oneCode(i);
    if (c >= 0) return c;
    const set = codeSetKey(i);
    if (set < 0) return -1;
    let k = jsonCodeSetKey.get(set);
    if (k === undefined) {
      if (jsonCodeSetText.length >= CODE_SETS) return -1;
      jsonCodeSetKey.set(set, (k = nCodes + jsonCodeSetText.length));
      jsonCodeSetText.push(codesOf(i)!);
    }
    return k;
  };
  const aggregateOf = (i: number): boolean | null => (filled(i) ? null : (r.flags[i]! & ROW_AGGREGATE) !== 0);
  const flagKey = (i: number): number => { const a = aggregateOf(i); return a === null ? 0 : a ? 2 : 1; };
  cols.push(
    {
      name: 'codes_included', get: codesOf,
      csv: (i, w) => {
        const c = oneCode(i);
        if (c >= 0) { csvCode.write(w, c, codeName); return; }
        const k = codeSetKey(i);
        if (k < 0) { w.text(csvField(codesOf(i))); return; }
        let b = csvCodeSet.get(k);
        if (b === undefined) csvCodeSet.set(k, (b = utf8(csvField(codesOf(i)))));
        w.bytes(b);
      },
      json: memoJson(jsonCodesKey, nCodes + CODE_SETS, (k) => (k < nCodes ? codeName(k) : jsonCodeSetText[k - nCodes]!), jsonCode, (i, w) => w.text(JSON.stringify(codesOf(i)))),
    },
    { name: 'aggregate_fallback', get: aggregateOf, csv: plainCsv(aggregateOf), json: memoJson(flagKey, 3, (k) => FLAG_JSON[k]!, tm.jsonFlag) },
    {
      name: 'notes', get: notesOf, csv: (i, w) => { if (!noNote(i)) w.text(csvField(notesOf(i))); },
      json: memoJson((i) => (noNote(i) ? 0 : -1), 1, () => '', tm.jsonNote, (i, w) => w.text(JSON.stringify(notesOf(i)))),
    },
  );
  if (params.complete === true) cols.push(plain('value_source', (i) => VALUE_SOURCE[r.valueSource[i] === VS_NONE ? 1 : r.valueSource[i]!]));
  return { names: cols.map((c) => c.name), get: cols.map((c) => c.get), csv: cols.map((c) => c.csv), json: cols.map((c) => c.json), n: r.n };
}

