// The provenance record of a money answer: every key of the spec's table,
// filled from the plan, the job's summary and the catalog.

import { CODES_NOT_SUMMED } from './codes-not-summed.js';
import type { Catalog, Flow } from './catalog.js';
import type { FinanceCtx } from './context.js';
import { manifestBlock } from './provenance.js';
import { fixedJson } from '../bytes/json-value.js';
import type { MoneySummary } from './plan.js';

export interface ProvenanceInput {
  verb: string;
  call: string;
  govids: string[];
  govNames: string[];
  years: number[];
  category: string | string[] | null;
  basis: 'raw' | 'harmonized' | 'recipe';
  basisNote: string | null;
  flows: Flow[];
  expenditureConcept: string | null;
  revenueConcept: string | null;
  igLeg: boolean;
  allCategories: boolean;
  recipeIndex: number | null;
  perCapita: boolean;
  adjust: 'nominal' | 'real';
  baseYear: number;
  complete: boolean;
  sql: string;
  /** Per-government routes report years_present and the category coverage of the series. */
  perGovernment: boolean;
  govidsMissing?: string[];
}

const IG_NOTE =
  'Total = Direct + intergovernmental (M to local governments, L to the state, Q11/Q12/Q18 state payments to school systems). ' +
  'Legacy-era (FY2011 and before) intergovernmental dollars are assembled from aggregate-flagged rows, which are year-disjoint from their modern leaf codes; the L-- family total is excluded.';

export function moneyProvenance(ctx: FinanceCtx, p: ProvenanceInput, s: MoneySummary, suggestions: unknown[]): Record<string, unknown> {
  const cat = ctx.catalog, e = ctx.engine;
  const codes = s.codesObserved.map((id) => cat.codes[id]!).sort();
  const recipe = p.recipeIndex === null ? null : cat.recipes[p.recipeIndex]!;
  const minY = Math.min(...p.years), maxY = Math.max(...p.years);
  const seriesRefs = seriesRefsOf(ctx, codes, minY, maxY);

  // Only a per-government answer reads its years (a flat one makes none); one government's come in order already.
  const lists = p.perGovernment ? s.yearsPresent.map(([, years]) => years) : null;
  const years = lists === null ? [] : lists.length === 1 ? lists[0]! : [...new Set(lists.flat())].sort((a, b) => a - b);
  // One government's route names its id missing when it contributed no row of the years and categories asked
  // (the spec's govids_missing, as the flat routes' govid list does; an audit of 2026-11-28 found it found).
  const scope: Record<string, unknown> = govidsScope(p.govids, p.govidsMissing ?? (p.perGovernment ? (years.length === 0 ? p.govids : []) : undefined));
  if (p.perGovernment) {
    scope.years_present = years;
    scope.categories_found = s.categoriesFound.map((c) => e.categories[c]);
    scope.categories_missing = s.categoriesMissing.map(([c, ys]) => ({ category: e.categories[c], years: ys }));
    if (recipe && years.length) scope.categories_found = [recipe.label];
  }

  const direct = p.flows.includes('expenditure') && p.expenditureConcept !== null;
  let conceptNote: string | null = null;
  if (p.igLeg) {
    conceptNote = IG_NOTE;
    if (p.allCategories && s.directSuppressed) conceptNote += ' NOTE: for at least one requested (year, category) summed into All Categories the Direct leg has no rows in this corpus (a legacy aggregate-only family), so those years\' totals lack its Direct dollars. Query the categories by name to see which, and each row\'s notes for the recipe that recovers them.';
    else if (p.allCategories) conceptNote += ' Direct-leg suppression was checked category by category (a second pass of the same query): none of the summed categories lacks its Direct leg.';
    else if (s.directSuppressed) conceptNote += ' NOTE: for at least one requested (year, category) the Direct leg has no rows in this corpus (a legacy aggregate-only family): those rows report the intergovernmental leg alone. See each row\'s notes for the recipe that recovers the Direct dollars.';
  }

  // Only complete=true answers say what an absent cell means.
  const absence: Record<string, string> = {};
  if (p.complete) for (const y of p.years) absence[String(y)] = e.censusZeroYears.includes(y) ? 'census_zero' : 'not_reported';

  // One literal (spreads for the optional keys), not keys added to an object one by one: past a dozen added
  // keys V8 keeps an object as a dictionary, and JSON.stringify then takes its slow path through every key.
  return {
    verb: p.verb,
    call: p.call,
    target: { canonical_govid: p.govids, gov_name: p.govNames },
    years: p.years,
    category: p.category,
    basis: p.basis,
    basis_note: p.basisNote,
    ...(direct
      ? {
          expenditure_concept: p.expenditureConcept,
          expenditure_concept_note: conceptNote,
          expenditure_concept_direct_suppressed: p.igLeg ? s.directSuppressed : false,
        }
      : {}),
    ...(p.flows.includes('revenue') && p.revenueConcept !== null ? { revenue_concept: p.revenueConcept } : {}),
    harmonization: {
      applied: p.basis === 'harmonized',
      na_rows_excluded: p.basis === 'harmonized' ? s.naRows : 0,
      na_amount_excluded: p.basis === 'harmonized' ? s.naAmount * 1000 : 0,
      note: p.basis === 'recipe' ? 'basis and harmonization do not apply to recipe results; see the recipe block.' : p.basisNote,
    },
    recipe: recipe && {
      recipe_id: recipe.recipe_id, label: recipe.label, source: recipe.source,
      components: recipe.components,
    },
    suggestions,
    scope,
    codes_summed: { observed: codes, subtype_column: p.flows.length > 1 ? 'subtype' : subtypeColumn(p.flows[0]!) },
    aggregate_fallback: s.aggregateYears.length > 0 ? { applied: true, years: s.aggregateYears } : NO_FALLBACK,
    transformations: transformations(cat, p, s),
    series_break_refs: seriesRefs,
    corpus_break_refs: corpusRefsOf(ctx, minY, maxY),
    completion: p.complete || s.rowsFilled !== 0
      ? {
        applied: p.complete, rows_filled: s.rowsFilled, absence_means: p.complete ? absence : {}, not_in_survey: p.complete ? notInSurvey(ctx, s) : [],
        // The other exception to a dense year's census_zero: cells the corpus holds rows of that this answer does not sum.
        published_not_summed: p.complete ? s.unsummedCells.map(([year, n]) => ({ year, n_cells: n })) : [],
      }
      : NO_COMPLETION,
    balance_caveats: p.flows.includes('balance') ? balanceCaveats(ctx, s, p.years) : null,
    manifest: manifestBlock(ctx),
    sql_query: p.sql,
  };
}

/**
 * A govid list's ids split in two (issue 22): found, those that contributed rows; missing, those unknown or
 * that contributed none. Found listed every id that resolved, so an id without rows was in both.
 */
function govidsScope(govids: string[], missingIds: string[] | undefined): Record<string, unknown> {
  if (missingIds === undefined) return { gov_types_included: GOV_TYPES, govids_found: govids };
  const missing = new Set(missingIds);
  return { gov_types_included: GOV_TYPES, govids_found: govids.filter((id) => !missing.has(id)), govids_missing: missingIds };
}

/** The series breaks of the observed codes within the years, sorted and once each: a loop, as most codes have none. */
function seriesRefsOf(ctx: FinanceCtx, codes: string[], minY: number, maxY: number): string[] {
  let refs: string[] = [];
  for (const code of codes) {
    const breaks = ctx.breaks.byCode.get(code);
    if (breaks !== undefined) for (const b of breaks) if (b.year >= minY && b.year <= maxY) refs.push(b.id);
  }
  if (refs.length > 1) refs = [...new Set(refs)].sort();
  return refs;
}

/** Governments named a year at most in completion.not_in_survey; n_governments counts them all. */
export const NOT_IN_SURVEY_LISTED = 1000;

/**
 * The exceptions to absence_means (issue 22, item 2): per dense year, the governments with no row at all in
 * that year's survey, whose cells are not_reported, not census_zero. Their count, and their ids up to
 * NOT_IN_SURVEY_LISTED (in the walk's order), so a national answer stays bounded and says what it cut.
 */
function notInSurvey(ctx: FinanceCtx, s: MoneySummary): { year: number; n_governments: number; canonical_govids: string[] }[] {
  const byYear = new Map<number, number[]>();
  for (const [gov, year] of s.notInSurvey) {
    let list = byYear.get(year);
    if (list === undefined) byYear.set(year, (list = []));
    list.push(gov);
  }
  return [...byYear].sort(([a], [b]) => a - b).map(([year, govs]) => ({
    year, n_governments: govs.length, canonical_govids: govs.slice(0, NOT_IN_SURVEY_LISTED).map((g) => ctx.catalog.governments[g]!.canonical_govid),
  }));
}

/** The one conversion every money amount goes through: the corpus stores $1,000s. */
export const UNITS_CONVERSION = fixedJson({ applied: true, source_unit: '$1,000s (raw Census)', target_unit: 'USD', multiplier: 1000 } as const);

// The parts of the record that are the same in every answer that carries them, their JSON written once
// (fixedJson: the serializer copies it; issue 32). Frozen: no answer may change them.
const GOV_TYPES = fixedJson([0, 1, 2, 3]);
const NO_FALLBACK = fixedJson({ applied: false, years: [] });
const NO_COMPLETION = fixedJson({ applied: false, rows_filled: 0, absence_means: {}, not_in_survey: [], published_not_summed: [] });
const NO_PER_CAPITA = fixedJson({ applied: false });
const NOMINAL = fixedJson({ applied: false, base_year: null, index: null });
const UNTRANSFORMED = fixedJson({ units_conversion: UNITS_CONVERSION, per_capita: NO_PER_CAPITA, inflation: NOMINAL });

/** The corpus-wide series breaks within a window of years, sorted: per context and window, made once. */
function corpusRefsOf(ctx: FinanceCtx, minY: number, maxY: number): string[] {
  let byWindow = corpusRefMemo.get(ctx);
  if (byWindow === undefined) corpusRefMemo.set(ctx, (byWindow = new Map()));
  const key = minY * 100_000 + maxY;
  let refs = byWindow.get(key);
  if (refs === undefined) {
    // Windows are pairs of corpus years: a few hundred at most on any corpus.
    refs = fixedJson([...new Set(ctx.breaks.corpus.filter((b) => b.year >= minY && b.year <= maxY).map((b) => b.id))].sort());
    byWindow.set(key, refs);
  }
  return refs;
}
const corpusRefMemo = new WeakMap<FinanceCtx, Map<number, string[]>>();

/** inflation for adjust=real: per catalog and base year, made once. */
function realInflation(cat: Catalog, baseYear: number): Record<string, unknown> {
  let byYear = inflationMemo.get(cat);
  if (byYear === undefined) inflationMemo.set(cat, (byYear = new Map()));
  let block = byYear.get(baseYear);
  if (block === undefined) {
    block = fixedJson({ applied: true, base_year: baseYear, index: cat.cpi.series, base_year_index: cat.cpi.index.get(baseYear) ?? null, source: cat.cpi.source });
    byYear.set(baseYear, block);
  }
  return block;
}
const inflationMemo = new WeakMap<Catalog, Map<number, Record<string, unknown>>>();

export const subtypeColumn = (flow: Flow): string => (flow === 'expenditure' ? 'spend_subtype' : flow === 'revenue' ? 'revenue_subtype' : 'balance_subtype');

/**
 * Fiscal year -> the four-digit years of the population counts its rows divide by (the corpus's popyear is two
 * digits: 7 is 2007; 67-99 are 1967-1999). FY2011's rows carry the 2007 count, which a reader of per-resident
 * figures should know. A popyear of 0 (the load's value for none, also how 2000 would read) is left out.
 */
function populationYearByYear(pairs: number[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const k of pairs) {
    const year = Math.floor(k / 10000), py = k % 10000;
    if (py === 0) continue;
    (out[String(year)] ??= []).push(py >= 100 ? py : py >= 50 ? 1900 + py : 2000 + py);
  }
  return out;
}

function transformations(cat: Catalog, p: ProvenanceInput, s: MoneySummary): Record<string, unknown> {
  if (!p.perCapita && p.adjust !== 'real') return UNTRANSFORMED;
  return {
    units_conversion: UNITS_CONVERSION,
    per_capita: p.perCapita
      ? {
          applied: true,
          denominator_source: 'census_f33: Census F-33 population carried per year by the long table (population, popyear)',
          population_years: p.years,
          popyear_values: s.popYears,
          population_year_by_year: populationYearByYear(s.popYearPairs),
          pop_source_counts: s.popCounts,
        }
      : NO_PER_CAPITA,
    inflation: p.adjust === 'real' ? realInflation(cat, p.baseYear) : NOMINAL,
  };
}

/** The holdings caveats: not GAAP, and each balance subtype's measured coverage window. */
function balanceCaveats(ctx: FinanceCtx, s: MoneySummary, years: number[]): Record<string, unknown> {
  const windows = ctx.balanceWindows;
  const observed = s.balanceSubtypes.map((id) => ctx.engine.subtypes[id]!);
  const minY = Math.min(...years), maxY = Math.max(...years);
  const truncated = observed.filter((sub) => {
    const w = windows[sub];
    return w !== undefined && (minY < w[0] || maxY > w[1]);
  }).sort();
  return {
    not_gaap: true,
    not_gaap_note: 'Census holdings are gross (no liabilities netted) and are not GAAP fund balance; a reserve ratio built from them overstates what is available. They are stocks, not summable with flows.',
    coverage_window: fixedJson(windows),
    truncated,
    codes_not_summed: { rows: s.notSummedRows, amount: s.notSummedAmount * 1000, rules: NOT_SUMMED_RULES },
  };
}

/** The rules as the answer states them (codes-not-summed.ts); from_year null where every year. */
const NOT_SUMMED_RULES = fixedJson(CODES_NOT_SUMMED.map((c) => ({ code: c.code, from_year: c.fromYear === 0 ? null : c.fromYear, reason: c.reason, series_break_refs: c.breakIds })));

export function truncatedFamilies(ctx: FinanceCtx, s: MoneySummary, years: number[]): string[] {
  return (balanceCaveats(ctx, s, years).truncated as string[]);
}
