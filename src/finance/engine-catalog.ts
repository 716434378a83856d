// The catalog as the engine reads it: every rule the money jobs apply turned
// into small typed arrays indexed by global code id, category id and
// subtype id, built once after load and handed to every worker. Strings stay
// on the main thread; jobs see only ids.

import type { Catalog, Flow } from './catalog.js';
import { rowCategoryKeys } from './columns.js';
import { WIDE_ERA_LAST_YEAR } from './eras.js';
import { notSummedFrom } from './codes-not-summed.js';

export const FLOWS: readonly Flow[] = ['expenditure', 'revenue', 'balance'];
export const FLOW_ID = { expenditure: 1, revenue: 2, balance: 3 } as const;

/** Subtypes by flow, in the order the spec lists them. */
export const SUBTYPES: Record<Flow, readonly string[]> = {
  expenditure: ['operations', 'capital', 'assistance', 'interest', 'insurance_benefits', 'intergovernmental'],
  revenue: ['own_source', 'federal', 'state', 'local_aid', 'utility', 'liquor_store', 'insurance_trust'],
  balance: ['general', 'unemployment_trust', 'workers_comp_trust', 'other_insurance_trust', 'employee_retirement'],
};

/** The concepts as subtype sets (nested: each contains the one before). */
export const EXPENDITURE_CONCEPTS = {
  primary: ['operations', 'capital', 'assistance'],
  direct: ['operations', 'capital', 'assistance', 'interest', 'insurance_benefits'],
  total: ['operations', 'capital', 'assistance', 'interest', 'insurance_benefits', 'intergovernmental'],
} as const;
export const REVENUE_CONCEPTS = {
  general: ['own_source', 'federal', 'state', 'local_aid'],
  total: ['own_source', 'federal', 'state', 'local_aid', 'utility', 'liquor_store', 'insurance_trust'],
} as const;
export type ExpenditureConcept = keyof typeof EXPENDITURE_CONCEPTS;
export type RevenueConcept = keyof typeof REVENUE_CONCEPTS;

export const SCOPE_ALL = 0, SCOPE_STATE = 1, SCOPE_LOCAL = 2;

export interface EngineRecipe {
  /** Component code ids, type scopes, year windows and weights, parallel arrays. */
  code: number[];
  scope: number[];
  yearMin: number[];
  yearMax: number[];
  weight: number[];
  /** Made only of intergovernmental expenditure (M/L) codes: never a Direct coverage hint. */
  intergovernmental: boolean;
}

export interface EngineCatalog {
  nCodes: number;
  /** Per code id: FLOW_ID of its category (0 when unclassified). */
  codeFlow: Uint8Array;
  /** Per code id: category id, -1 when unclassified. */
  codeCat: Int16Array;
  /** Per code id: subtype id, -1 when unclassified. */
  codeSub: Int16Array;
  /** Per code id (NO_CODE included): the in-group row order key (rowCategoryKeys). */
  codeKey: Uint16Array;
  categories: string[];
  categoryFlow: Uint8Array;
  /** Rank of each category name in ascending order, for row ordering. */
  categoryRank: Uint16Array;
  subtypes: string[];
  subtypeRank: Uint16Array;
  /** Per gid: government type 0-3 and rank of canonical_govid in ascending order. */
  govType: Uint8Array;
  govRank: Uint32Array;
  /** Per gid: the registry lifespan (first_year, last_year), 0 where the registry gives none (no bound). */
  govFirstYear: Uint16Array;
  govLastYear: Uint16Array;
  recipes: EngineRecipe[];
  /** Per category id: recipes that share a component code with it (intergovernmental ones excluded). */
  categoryRecipes: number[][];
  /** Per recipe: recipes it supersedes in suggestions (a whole leg covers its residual parts). */
  supersedes: number[][];
  /** Completion grid: year -> type -> packed (category id << 8 | subtype id) cells, non-aggregate codes only. */
  grid: Record<number, number[][]>;
  /** Years whose absent cells mean census_zero (dense source); the rest are not_reported. */
  censusZeroYears: number[];
  /** Whether the corpus publishes the representation contract (complete=true possible). */
  hasRepresentation: boolean;
  /** Per code id: the first year its rows are not summed (codes-not-summed.ts), 0xffff where never. */
  codeNotSummedFrom: Uint16Array;
}

/**
 * The engine catalog of a catalog, built once per thread: the load cache's key, the load and the service's
 * context each asked for it, and each build took 100-250 ms of a start (profiled). A catalog copied with a
 * field replaced (financeCtx's years) keeps the same tables, so it finds the same build; one whose codes grew
 * since (codes found in the partitions) is built again.
 */
export function buildEngineCatalog(cat: Catalog): EngineCatalog {
  const kept = built.get(cat.codes);
  if (kept !== undefined && kept.nCodes === cat.codes.length && kept.classes === cat.classes && kept.categories === cat.categories
    && kept.recipes === cat.recipes && kept.governments === cat.governments && kept.tables === cat.tables && kept.codeSet === cat.codeSet
    && kept.sourceFiles === cat.sourceFiles && kept.years.length === cat.years.length && kept.years.every((y, i) => y === cat.years[i])) {
    return kept.engine;
  }
  const engine = makeEngineCatalog(cat);
  built.set(cat.codes, {
    nCodes: cat.codes.length, classes: cat.classes, categories: cat.categories, recipes: cat.recipes, governments: cat.governments,
    tables: cat.tables, codeSet: cat.codeSet, sourceFiles: cat.sourceFiles, years: [...cat.years], engine,
  });
  return engine;
}

type Built = Pick<Catalog, 'classes' | 'categories' | 'recipes' | 'governments' | 'tables' | 'codeSet' | 'sourceFiles' | 'years'> & { nCodes: number; engine: EngineCatalog };
const built = new WeakMap<string[], Built>();

function makeEngineCatalog(cat: Catalog): EngineCatalog {
  const nCodes = cat.codes.length;
  const categories = [...new Set(cat.categories.map((c) => c.category))].sort();
  const catId = new Map(categories.map((c, i) => [c, i]));
  const subtypes = FLOWS.flatMap((f) => SUBTYPES[f]).filter((s, i, a) => a.indexOf(s) === i);
  for (const c of cat.classes.values()) if (!subtypes.includes(c.subtype)) subtypes.push(c.subtype);
  const subId = new Map(subtypes.map((s, i) => [s, i]));

  const codeFlow = new Uint8Array(nCodes), codeCat = new Int16Array(nCodes).fill(-1), codeSub = new Int16Array(nCodes).fill(-1);
  const categoryFlow = new Uint8Array(categories.length);
  for (const c of cat.classes.values()) {
    const id = cat.codeId.get(c.item_code)!;
    codeFlow[id] = FLOW_ID[c.category_type];
    codeCat[id] = catId.get(c.category)!;
    codeSub[id] = subId.get(c.subtype)!;
    categoryFlow[catId.get(c.category)!] = FLOW_ID[c.category_type];
  }

  const rank = (names: string[]): Uint16Array => {
    const order = names.map((_, i) => i).sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
    const r = new Uint16Array(names.length);
    order.forEach((id, k) => { r[id] = k; });
    return r;
  };

  const govType = Uint8Array.from(cat.governments, (g) => g.type);
  const byId = cat.governments.map((g, gid) => [g.canonical_govid, gid] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const govRank = new Uint32Array(cat.governments.length);
  byId.forEach(([, gid], k) => { govRank[gid] = k; });

  const recipes: EngineRecipe[] = cat.recipes.map((r) => ({
    code: r.components.map((c) => cat.codeId.get(c.component_code)!),
    scope: r.components.map((c) => (c.gov_type_scope === 'state' ? SCOPE_STATE : c.gov_type_scope === 'local' ? SCOPE_LOCAL : SCOPE_ALL)),
    yearMin: r.components.map((c) => c.year_min),
    yearMax: r.components.map((c) => c.year_max),
    weight: r.components.map((c) => c.weight),
    intergovernmental: r.components.some((c) => c.component_code[0] === 'M' || c.component_code[0] === 'L'),
  }));
  const categoryRecipes = categories.map(() => [] as number[]);
  recipes.forEach((r, ri) => {
    if (r.intergovernmental) return;
    const cats = new Set(r.code.map((c) => codeCat[c]!).filter((c) => c >= 0));
    for (const c of cats) categoryRecipes[c]!.push(ri);
  });
  const recipeIndex = new Map(cat.recipes.map((r, i) => [r.recipe_id, i]));
  const supersedes = cat.recipes.map((r) => (r.supersedes ?? []).map((id) => recipeIndex.get(id)).filter((i): i is number => i !== undefined));

  const grid: Record<number, number[][]> = {};
  const set = cat.codeSet;
  // code_set's codes to global ids, once per distinct code.
  const setCodeId = (set?.codes ?? []).map((c) => cat.codeId.get(c) ?? -1);
  for (let r = 0; set !== null && r < set.code.length; r++) {
    if (set.aggregate[r] === 1 || set.code[r]! < 0) continue;
    const id = setCodeId[set.code[r]!]!;
    if (id < 0 || codeCat[id]! < 0) continue;
    const year = set.year[r]!, type = set.type[r]!;
    const byType = (grid[year] ??= [[], [], [], []]);
    const cell = (codeCat[id]! << 8) | codeSub[id]!;
    if (type >= 0 && type <= 3 && !byType[type]!.includes(cell)) byType[type]!.push(cell);
  }
  const rep = cat.tables.representation ?? [];
  const censusZeroYears = rep.length
    ? rep.filter((r) => r.absence_means === 'census_zero').map((r) => Number(r.year))
    : cat.years.filter((y) => y <= WIDE_ERA_LAST_YEAR);

  return {
    nCodes, codeFlow, codeCat, codeSub, codeKey: rowCategoryKeys(codeCat, categories.length), categories, categoryFlow, categoryRank: rank(categories), subtypes, subtypeRank: rank(subtypes),
    govType, govRank, govFirstYear: Uint16Array.from(cat.governments, (g) => g.first_year ?? 0),
    govLastYear: Uint16Array.from(cat.governments, (g) => g.last_year ?? 0), recipes, categoryRecipes, supersedes, grid, censusZeroYears,
    hasRepresentation: cat.sourceFiles.has('representation') && cat.codeSet !== null,
    codeNotSummedFrom: notSummedFrom(cat.codeId, nCodes),
  };
}
