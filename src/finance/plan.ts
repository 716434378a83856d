// The plan of a money query: what the thread serving it hands a job after
// validation. Only ids and small arrays; the worker needs nothing else.

export const ALL_CATEGORIES_ID = -1;
/** Rows of a recipe carry this category id (their category is the recipe's label). */
export const RECIPE_CATEGORY_ID = -2;
/** Subtype id of recipe rows. */
export const RECIPE_SUBTYPE_ID = 255;

export interface MoneyPlan {
  govs: number[];
  /** Ascending, as the years parser gives them: the job lists the years it finds in the order it walks them. */
  years: number[];
  /** Flow ids to compute (1 expenditure, 2 revenue, 3 balance). /profile asks for two. */
  flows: number[];
  harmonized: boolean;
  /** Subtype ids each flow may return (the concept's scope). Indexed by flow id (FLOW_ID; 0 is unused and empty). */
  scope: number[][];
  /** Add the intergovernmental expenditure leg (expenditure_concept=total). */
  igLeg: boolean;
  /** Category ids to keep; null keeps every category. */
  categories: number[] | null;
  allCategories: boolean;
  recipe: number | null;
  /** The API-layer subtype filter, applied after the summary is taken. */
  subtype: number | null;
  complete: boolean;
  suggest: boolean;
  offset: number;
  limit: number;
  /** coverage=consistent: keep only governments with rows in every requested year (keepGovs exempt). */
  consistent: boolean;
  keepGovs: number[];
  /** Drop rows with no population (per-capita rollups), listing their governments. */
  dropNoPopulation: boolean;
  /** Peer comparison: the target; percentile cells and ranks are taken over the other governments. */
  peerTarget: number | null;
  /**
   * The caller already knows the total (and needs no summary): stop once the
   * page is full. The result's total and summary then cover only the rows walked.
   */
  stopAtPage: boolean;
}

/**
 * The job's fast path: rows are counted, and only the page's kept, one
 * group at a time. Only it can stop once the page is full (stopAtPage);
 * completion, the IG leg of named categories, peers and dropped
 * populations need whole groups or the whole walk first.
 */
export const fastPath = (p: MoneyPlan): boolean =>
  !p.complete && !(p.igLeg && !p.allCategories) && p.peerTarget === null && !p.dropNoPopulation;

/**
 * Whether a plan's total is the count job's (workers/finance/money-count.ts): what the fast path walks,
 * without coverage=consistent, whose governments are known only after a first pass over all their years.
 */
export const countable = (p: MoneyPlan): boolean => fastPath(p) && !p.consistent;

/**
 * A query's count with its coverage, per plan.years index: reporting, governments with a row of the query
 * that year; outsideLifespan, those of them whose registry lifespan does not cover the year (a unit that
 * reported is expected by definition, so expected = lifespan count + these). For a bulk page's headers.
 */
export interface MoneyCount {
  total: number;
  reporting: number[];
  outsideLifespan: number[];
}

/**
 * The lifespan rule, the one copy: a registry lifespan first_year to last_year covers a year between them,
 * inclusive; a bound the registry does not give (null, or 0 in the engine's arrays) does not limit it.
 * Coverage's n_units_expected (coverage.ts) and complete=true's fill (workers/finance/money.ts) both ask it.
 */
export const spanCovers = (first: number | null, last: number | null, year: number): boolean =>
  (!first || first <= year) && (!last || year <= last);

/** Whether the registry lifespan of gid (0 = no bound) covers year. */
export const inLifespan = (e: { govFirstYear: Uint16Array; govLastYear: Uint16Array }, gid: number, year: number): boolean =>
  spanCovers(e.govFirstYear[gid]!, e.govLastYear[gid]!, year);

/** The coverage of a summary's [gid, years] presence, per plan.years index, as MoneyCount has it. */
export function countOfSummary(e: { govFirstYear: Uint16Array; govLastYear: Uint16Array }, years: number[], total: number, s: Pick<MoneySummary, 'reporting' | 'yearsPresent'>): MoneyCount {
  const outsideLifespan: number[] = [];
  for (let i = 0; i < years.length; i++) outsideLifespan.push(0);
  const index = new Map(years.map((y, i) => [y, i]));
  for (const [gid, ys] of s.yearsPresent) for (const y of ys) if (!inLifespan(e, gid, y)) outsideLifespan[index.get(y)!]!++;
  return { total, reporting: [...s.reporting], outsideLifespan };
}

export const planDefaults: Pick<MoneyPlan, 'consistent' | 'keepGovs' | 'dropNoPopulation' | 'peerTarget' | 'stopAtPage'> = {
  consistent: false, keepGovs: [], dropNoPopulation: false, peerTarget: null, stopAtPage: false,
};

export interface PeerCell {
  year: number;
  sub: number;
  cat: number;
  /** Peers with a per-capita value in the cell. */
  n: number;
  /** Per-capita nominal dollars (type-7 quantiles). */
  p25: number;
  p50: number;
  p75: number;
  /** The target's rank by per-capita value in the cell among itself and the peers (1 = highest), 0 when it has no value. */
  targetRank: number;
}

export const VS_NONE = 0, VS_REPORTED = 1, VS_CENSUS_ZERO = 2, VS_NOT_REPORTED = 3;
export const ROW_AGGREGATE = 1, ROW_DIRECT_SUPPRESSED = 2;

export interface MoneyRows {
  n: number;
  year: Uint16Array;
  gov: Uint32Array;
  flow: Uint8Array;
  cat: Int16Array;
  sub: Uint8Array;
  /** Thousands of dollars as published; NaN for not_reported cells. */
  amt: Float64Array;
  flags: Uint8Array;
  valueSource: Uint8Array;
  /** Population of the row's government and year, -1 when none. */
  pop: Int32Array;
  codesStart: Uint32Array;
  codes: Uint16Array;
}

/** The rows as they cross threads: one buffer (cloned as one object), its views made on arrival (rowsOf). */
export interface PackedMoneyRows {
  n: number;
  nCodes: number;
  buffer: ArrayBuffer;
}

/**
 * Rows packed on this thread carry their views under this key (packRows): rowsOf gives a job run inline
 * (Pool.runSmall) the views it packed, not eleven new ones (issue 32). A structured clone (a buffer that
 * crossed threads) copies only string keys, so a clone never has it. (A WeakMap by buffer did the same at
 * about 1.5 us a job: a new key each job, in an ephemeron table.)
 */
const VIEWS = Symbol('money rows views');

/**
 * Views over a packed rows buffer (or a fresh one of the right size when buffer is omitted). Widest elements
 * first, so every view is aligned: amt, gov, pop, codesStart (n + 1), year, cat, codes (nCodes), flow, sub,
 * flags, valueSource. Written out rather than looped over a table of constructors: the loop's one call site
 * for eleven constructors cost about 3 us of a small job.
 */
export function rowsOf(p: { n: number; nCodes: number; buffer?: ArrayBuffer }): MoneyRows {
  const n = p.n, nc = p.nCodes;
  if (p.buffer !== undefined) {
    const views = (p as { [VIEWS]?: MoneyRows })[VIEWS];
    if (views !== undefined && views.n === n) return views;
  }
  const gov = 8 * n, pop = gov + 4 * n, codesStart = pop + 4 * n, year = codesStart + 4 * (n + 1), cat = year + 2 * n, codes = cat + 2 * n;
  const flow = codes + 2 * nc, sub = flow + n, flags = sub + n, vs = flags + n;
  const b = p.buffer ?? new ArrayBuffer(vs + n);
  return {
    n, amt: new Float64Array(b, 0, n), gov: new Uint32Array(b, gov, n), pop: new Int32Array(b, pop, n), codesStart: new Uint32Array(b, codesStart, n + 1),
    year: new Uint16Array(b, year, n), cat: new Int16Array(b, cat, n), codes: new Uint16Array(b, codes, nc),
    flow: new Uint8Array(b, flow, n), sub: new Uint8Array(b, sub, n), flags: new Uint8Array(b, flags, n), valueSource: new Uint8Array(b, vs, n),
  };
}

/** For rows made by rowsOf: every view shares one buffer, so the buffer is the rows. */
export const packRows = (r: MoneyRows): PackedMoneyRows => {
  const packed: PackedMoneyRows & { [VIEWS]?: MoneyRows } = { n: r.n, nCodes: r.codes.length, buffer: r.amt.buffer as ArrayBuffer };
  packed[VIEWS] = r;
  return packed;
};

export interface MoneySummary {
  /**
   * Per government with rows: [gid, the years with rows (before the subtype filter)]. Pairs, not an
   * object keyed by gid: an integer key past an object's elements makes them a dictionary, about
   * 4.5 KB of garbage a job.
   */
  yearsPresent: [number, number[]][];
  categoriesFound: number[];
  /** Category id -> years of years_present in which it has no row. */
  categoriesMissing: [number, number[]][];
  codesObserved: number[];
  aggregateYears: number[];
  naRows: number;
  /**
   * Corpus rows the job covers (its cost): a category query covers only those categories' rows and the rows
   * without a harmonized code of each group (it reads the latter only where the key starts say one could count).
   */
  rowsRead: number;
  naAmount: number;
  /** Rows (and their thousands of dollars) of holdings codes not summed (codes-not-summed.ts). */
  notSummedRows: number;
  notSummedAmount: number;
  /** [recipe index, years it would fill] for category-scoped gaps. */
  suggestions: [number, number[]][];
  directSuppressed: boolean;
  /** "year:category" -> recipe indexes recovering the suppressed Direct leg. */
  suppressedRecipes: Record<string, number[]>;
  rowsFilled: number;
  /** With completion: [gov, year] of each government with no row at all in a dense year of the query (its cells not_reported). */
  notInSurvey: [number, number][];
  /** With completion: [year, cells] for each dense year whose filled cells the corpus holds rows of that the answer does not sum (filled not_reported, money-complete.ts). */
  unsummedCells: [number, number][];
  popYears: number[];
  /** The (fiscal year, population year) pairs of the rows counted with a population, as year * 10000 + popYear, ascending. */
  popYearPairs: number[];
  popCounts: { census_f33: number; unavailable: number };
  balanceSubtypes: number[];
  /** Governments of the plan with no row at all (for scope.govids_missing). */
  govsWithoutRows: number[];
  /** Governments left out by coverage=consistent, and by dropNoPopulation. */
  inconsistentGovs: number[];
  noPopulationGovs: number[];
  /** Per plan year (aligned with plan.years): governments contributing rows (the peer target not counted). */
  reporting: number[];
  peerCells: PeerCell[];
}

export interface MoneyResult {
  total: number;
  rows: MoneyRows;
  summary: MoneySummary;
}
