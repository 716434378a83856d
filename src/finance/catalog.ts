// The finance catalog: every domain rule as a table, read once at load from
// the corpus's metadata tables (plus the few the service defines itself, each
// marked as such). Nothing on the request path re-derives any of it.

import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LoadError, parquetTable, readBytes, sha256, tableRows } from '../corpus/parquet.js';
import { STATE_BY_FIPS, type StateInfo } from '../geo/states.js';
import { WIDE_ERA_LAST_YEAR } from './eras.js';
import { readCodeSet, readFormerIds, type CodeSet } from './catalog-columns.js';
import { SCHEMAS, tableFile, type Manifest, type SchemaRules, type TableName } from './manifest.js';

export type Flow = 'expenditure' | 'revenue' | 'balance';

export interface CodeClass {
  item_code: string;
  category: string;
  category_type: Flow;
  subtype: string;
}

export interface CategoryRow {
  category: string;
  category_type: Flow;
  subtype: string;
  n_codes: number;
  item_codes: string[];
}

export interface RecipeComponent {
  component_code: string;
  gov_type_scope: string;
  year_min: number;
  year_max: number;
  weight: number;
  source_break_ids: string[];
  notes: string | null;
}

export interface Recipe {
  recipe_id: string;
  label: string;
  n_components: number;
  year_min: number;
  year_max: number;
  source: 'corpus' | 'service';
  components: RecipeComponent[];
  /** Recipes this one makes redundant as a suggestion (a whole leg covers its residual parts). */
  supersedes: string[];
}

export interface Government {
  canonical_govid: string;
  gov_name: string;
  type: number;
  type_label: string;
  fips_state: string;
  state: string | null;
  fips_county: string | null;
  fips_place: string | null;
  census_geoid: string | null;
  population_acs: number | null;
  pop_confidence: string | null;
  first_year: number | null;
  last_year: number | null;
  legacy_govs_id: string | null;
  id_source: string | null;
}

export interface LineageEvent {
  predecessor_canonical: string;
  successor_canonical: string;
  event_year: number;
  relation: string;
  evidence: string | null;
}

export const GOV_TYPES = ['state', 'county', 'city', 'township'] as const;

export interface Catalog {
  dir: string;
  manifest: Manifest;
  rules: SchemaRules;
  /** Published years: the partitions of the manifest, ascending. */
  years: number[];
  minYear: number;
  maxYear: number;
  holes: number[];
  /** Global item-code dictionary; ids index the corpus's code columns. */
  codes: string[];
  codeId: Map<string, number>;
  classes: Map<string, CodeClass>;
  categories: CategoryRow[];
  recipes: Recipe[];
  /** Governments ordered by population_acs (largest first, unknown last), then id. Index = gid. */
  governments: Government[];
  govId: Map<string, number>;
  /** 12-digit former ids (pid_12 crosswalk aliases) to the canonical id they became. */
  formerIds: Map<string, string>;
  lineage: LineageEvent[];
  states: StateInfo[];
  /** The metadata tables as rows, but for the registry (governments), canonical_alias (formerIds) and code_set (codeSet). */
  tables: Partial<Record<Exclude<TableName, 'canonical_alias' | 'code_set'>, Record<string, unknown>[]>>;
  /** code_set as columns, null when the corpus publishes none (before schema_version 6). */
  codeSet: CodeSet | null;
  cpi: { series: string; source: string; index: Map<number, number> };
  sourceFiles: Set<TableName>;
}

const ALL_TABLES: TableName[] = [
  'summary_categories', 'harmonization_map', 'harmonization_recipes', 'series_breaks', 'representation',
  'code_set', 'canonical_fips_xwalk', 'canonical_alias', 'lineage_events', 'census_collection_coverage',
];

export async function loadCatalog(dir: string, manifest: Manifest): Promise<Catalog> {
  const rules = SCHEMAS[manifest.schemaVersion]!;
  const tables: Catalog['tables'] = {};
  const sourceFiles = new Set<TableName>();
  let codeSet: CodeSet | null = null;
  let formerIds = new Map<string, string>();
  for (const name of ALL_TABLES) {
    const entry = tableFile(manifest, name);
    if (entry === undefined) {
      if (rules.requiredTables.includes(name)) {
        throw new LoadError(path.join(dir, 'manifest.json'), `lists no ${name}.parquet, which schema_version ${manifest.schemaVersion} requires`);
      }
      continue;
    }
    const file = path.join(dir, entry.path);
    const bytes = await readBytes(file);
    if (entry.sha256 !== null && sha256(bytes) !== entry.sha256) throw new LoadError(file, 'sha256 does not match the manifest (corrupt or truncated file)');
    if (name === 'code_set') codeSet = readCodeSet(await parquetTable(file, bytes, ['item_code', 'year', 'type', 'is_aggregate']));
    else if (name === 'canonical_alias') formerIds = readFormerIds(await parquetTable(file, bytes, ['alias_id', 'id_kind', 'canonical_govid']));
    else tables[name] = tableRows(await parquetTable(file, bytes));
    sourceFiles.add(name);
  }

  const classes = new Map<string, CodeClass>();
  for (const r of tables.summary_categories!) {
    const flow = r.category_type as Flow;
    const subtype = (flow === 'expenditure' ? r.spend_subtype : flow === 'revenue' ? r.revenue_subtype : r.balance_subtype) as string | null;
    classes.set(String(r.item_code), { item_code: String(r.item_code), category: String(r.category), category_type: flow, subtype: subtype ?? 'unclassified' });
  }

  const years = manifest.partitions.map((p) => p.year).filter((y, i, a) => a.indexOf(y) === i);
  const minYear = years[0]!, maxYear = years[years.length - 1]!;
  const holes: number[] = [];
  for (let y = minYear; y <= maxYear; y++) if (!years.includes(y)) holes.push(y);

  const codes: string[] = [];
  const codeId = new Map<string, number>();
  const addCode = (c: string): void => { if (!codeId.has(c)) { codeId.set(c, codes.length); codes.push(c); } };
  for (const c of [...classes.keys()].sort()) addCode(c);
  // Every code the metadata names gets its id here, so parallel loaders agree on ids without talking.
  const named = new Set<string>();
  for (const c of codeSet?.codes ?? []) named.add(c);
  for (const r of tables.harmonization_map ?? []) { named.add(String(r.item_code)); if (r.harmonized_code !== null) named.add(String(r.harmonized_code)); }
  for (const c of [...named].sort()) addCode(c);

  const governments = (tables.canonical_fips_xwalk!).map(toGovernment).sort(byPopulation);
  const govId = new Map(governments.map((g, i) => [g.canonical_govid, i]));
  const lineage = (tables.lineage_events ?? []).map((r) => ({
    predecessor_canonical: String(r.predecessor_canonical).padStart(12, '0'),
    successor_canonical: String(r.successor_canonical).padStart(12, '0'),
    event_year: Number(r.event_year),
    relation: String(r.relation),
    evidence: r.evidence === null ? null : String(r.evidence),
  }));
  const stateFips = [...new Set(governments.map((g) => g.fips_state))].sort();
  const states = stateFips.map((f) => STATE_BY_FIPS.get(f)).filter((s): s is StateInfo => s !== undefined);

  const catalog: Catalog = {
    dir, manifest, rules, years, minYear, maxYear, holes, codes, codeId, classes,
    categories: categoryRows(classes), recipes: [], governments, govId, formerIds, lineage, states, tables, codeSet,
    cpi: loadCpi(), sourceFiles,
  };
  catalog.recipes = buildRecipes(catalog);
  // The registry lives on as governments and govId; its raw rows were the bulk
  // of the catalog's heap and nothing reads them again.
  delete tables.canonical_fips_xwalk;
  for (const r of catalog.recipes) for (const c of r.components) addCode(c.component_code);
  return catalog;
}

function toGovernment(r: Record<string, unknown>): Government {
  const s = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
  const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  const fips = String(r.fips_state).padStart(2, '0');
  return {
    canonical_govid: String(r.canonical_govid),
    gov_name: String(r.gov_name),
    type: Number(r.govs_type),
    type_label: String(r.type_label),
    fips_state: fips,
    state: STATE_BY_FIPS.get(fips)?.code ?? null,
    fips_county: s(r.fips_county),
    fips_place: s(r.fips_place),
    census_geoid: s(r.census_geoid),
    population_acs: n(r.population_acs),
    pop_confidence: s(r.pop_confidence),
    first_year: n(r.first_year),
    last_year: n(r.last_year),
    legacy_govs_id: s(r.legacy_govs_id),
    id_source: s(r.id_source),
  };
}

function byPopulation(a: Government, b: Government): number {
  const pa = a.population_acs ?? -1, pb = b.population_acs ?? -1;
  if (pa !== pb) return pb - pa;
  return a.canonical_govid < b.canonical_govid ? -1 : a.canonical_govid > b.canonical_govid ? 1 : 0;
}

function categoryRows(classes: Map<string, CodeClass>): CategoryRow[] {
  const groups = new Map<string, CategoryRow>();
  for (const c of classes.values()) {
    const key = `${c.category_type}\u0000${c.category}\u0000${c.subtype}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { category: c.category, category_type: c.category_type, subtype: c.subtype, n_codes: 0, item_codes: [] }));
    g.item_codes.push(c.item_code);
  }
  const out = [...groups.values()];
  for (const g of out) { g.item_codes.sort(); g.n_codes = g.item_codes.length; }
  const order: Record<Flow, number> = { expenditure: 0, revenue: 1, balance: 2 };
  return out.sort((a, b) => order[a.category_type] - order[b.category_type] || a.category.localeCompare(b.category) || a.subtype.localeCompare(b.subtype));
}

/**
 * The service's own recipes for intergovernmental revenue, one per leg. Each
 * is a whole leg: through FY2011 the wide-era family total (`B--`, `C--`,
 * `D--`, aggregate rows that already bundle B47/B89 and the leaves), from
 * FY2012 every code of the family, which from FY2022 collapse to B89/C89/D89.
 */
const IG_TOTAL_RECIPES = [
  { recipe_id: 'ig_federal_total_wide', family: 'B', label: 'Federal IG revenue, whole leg (B-- wide, all B codes modern)', supersedes: ['ig_federal_b89_wide', 'ig_federal_b47_wide'] },
  { recipe_id: 'ig_state_total_wide', family: 'C', label: 'State IG revenue, whole leg (C-- wide, all C codes modern)', supersedes: ['ig_state_c89_wide', 'ig_state_c47_wide'] },
  { recipe_id: 'ig_local_total_wide', family: 'D', label: 'Local IG revenue, whole leg (D-- wide, all D codes modern)', supersedes: ['ig_local_d89_wide', 'ig_local_d47_wide'] },
] as const;


function buildRecipes(cat: Catalog): Recipe[] {
  const byId = new Map<string, RecipeComponent[]>();
  const labels = new Map<string, string>();
  for (const r of cat.tables.harmonization_recipes ?? []) {
    const id = String(r.recipe_id);
    labels.set(id, String(r.label));
    const list = byId.get(id) ?? [];
    list.push({
      component_code: String(r.component_code),
      gov_type_scope: String(r.gov_type_scope),
      year_min: Number(r.year_min),
      year_max: Number(r.year_max),
      weight: Number(r.weight),
      source_break_ids: r.source_break_ids ? String(r.source_break_ids).split(';').filter(Boolean) : [],
      notes: r.notes === null ? null : String(r.notes),
    });
    byId.set(id, list);
  }
  const recipes: Recipe[] = [...byId].map(([id, comps]) => makeRecipe(id, labels.get(id)!, 'corpus', comps));

  const modernEnd = Math.max(cat.maxYear, ...recipes.map((r) => r.year_max));
  for (const ig of IG_TOTAL_RECIPES) {
    const members = [...cat.classes.values()].filter((c) => c.item_code.startsWith(ig.family) && c.category_type === 'revenue').map((c) => c.item_code).sort();
    const comps: RecipeComponent[] = [
      { component_code: `${ig.family}--`, gov_type_scope: 'all', year_min: 1967, year_max: WIDE_ERA_LAST_YEAR, weight: 1, source_break_ids: [], notes: 'Wide-era family total (aggregate row)' },
      ...members.map((code) => ({ component_code: code, gov_type_scope: 'all', year_min: WIDE_ERA_LAST_YEAR + 1, year_max: modernEnd, weight: 1, source_break_ids: [], notes: 'Modern family member' })),
    ];
    recipes.push({ ...makeRecipe(ig.recipe_id, ig.label, 'service', comps), supersedes: [...ig.supersedes] });
  }
  return recipes.sort((a, b) => a.recipe_id.localeCompare(b.recipe_id));
}

function makeRecipe(id: string, label: string, source: Recipe['source'], components: RecipeComponent[]): Recipe {
  components.sort((a, b) => a.year_min - b.year_min || a.component_code.localeCompare(b.component_code));
  return {
    recipe_id: id, label,
    n_components: components.length,
    year_min: Math.min(...components.map((c) => c.year_min)),
    year_max: Math.max(...components.map((c) => c.year_max)),
    source, components, supersedes: [],
  };
}

/** The CPI series bundled with the project (data/cpi), index by calendar year. */
function loadCpi(): Catalog['cpi'] {
  const file = fileURLToPath(new URL('../../../data/cpi/cpiaucsl-annual-mean.tsv', import.meta.url));
  const index = new Map<number, number>();
  for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
    const [y, v] = line.split('\t');
    if (y && v) index.set(Number(y), Number(v));
  }
  return { series: 'FRED CPIAUCSL, annual mean of monthly values (1982-84=100)', source: 'data/cpi/cpiaucsl-annual-mean.tsv', index };
}
