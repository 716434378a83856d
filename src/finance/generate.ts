// A full-scale finance mirror grown from the real fixture, in the real layout
// (manifest.json with sha256 and row counts, data/long/year=YYYY/part-0.parquet
// with the 28 long columns, the metadata tables copied from the fixture).
//
// For each fiscal year 1967-2024 but 1968 and 1969:
//   * which governments report: the corpus's code_set gives how many units of
//     each type reported that year (max n_units over codes); they are drawn
//     from the registry's governments alive that year, the largest with
//     certainty (as the Census samples them), the rest at random;
//   * which item codes each reports: in sparse years (FY2012 on) a code is
//     reported with probability n_units / units of the code_set; in dense
//     years (FY2011 and before) with the share of governments of that type
//     that carried the code in the fixture's FY2011 file (absent = published
//     zero, as the representation table says); family totals X-- are the sum
//     of the family, as they are in the real wide-era files;
//   * amounts: drawn from the fixture's real per-code, per-type distribution
//     of dollars per resident, times the government's population that year,
//     times CPI(year) / CPI(fixture year);
//   * harmonized_code from the corpus's harmonization_map (identity for
//     leaves, none for aggregates).
// Deterministic (seeded per year); one year per worker task.

import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TaskPool } from '../task-pool.js';
import { parquetTable, readBytes, tableRows, chunks, internUtf8, isValid, boolAt } from '../corpus/parquet.js';
import { writeParquetFile, type ColumnSpec } from '../corpus/parquet-write.js';
import { Progress } from '../progress.js';
import { Rng } from '../random.js';

export interface FinanceGenOptions {
  fixture: string;
  out: string;
  seed: number;
  /** Scales the number of reporting local governments (1 = about 46 million rows; scaleForRows picks it for a size). */
  scale: number;
  quiet?: boolean;
}

export const FULL_YEARS = Array.from({ length: 2024 - 1967 + 1 }, (_, i) => 1967 + i).filter((y) => y !== 1968 && y !== 1969);

interface Gov { id: string; name: string; type: number; fips: number; county: number; place: number | null; legacy: number; pop: number; first: number; last: number }
interface Profile {
  govs: Gov[];
  /** year -> type -> [code, n_units][] (sparse years) and units per type. */
  codeSet: Map<number, { units: number[]; codes: Map<number, [string, number, boolean][]> }>;
  /** Dense-era probability of a nonzero row, by type then code (from the fixture's FY2011). */
  dense: Map<number, Map<string, number>>;
  /** Per type and code: sorted log dollars per resident (thousands), and the fixture year of each. */
  amounts: Map<string, { logs: Float64Array; years: Uint16Array }>;
  harmonization: { item_code: string; scope: string; lo: number; hi: number; target: string | null }[];
  cpi: Map<number, number>;
}

let profile: { key: string; p: Profile } | null = null;

async function loadProfile(o: FinanceGenOptions): Promise<Profile> {
  const key = o.fixture;
  if (profile?.key === key) return profile.p;
  const table = async (name: string) => {
    const f = path.join(o.fixture, 'data', `${name}.parquet`);
    return tableRows(await parquetTable(f, await readBytes(f)));
  };
  const govs: Gov[] = (await table('canonical_fips_xwalk')).map((r) => ({
    id: String(r.canonical_govid), name: String(r.gov_name), type: Number(r.govs_type), fips: Number(r.fips_state), county: Number(r.fips_county ?? 0),
    place: r.fips_place === null ? null : Number(r.fips_place), legacy: Number(String(r.legacy_govs_id ?? '0').slice(-6)) || 0,
    pop: Number(r.population_acs ?? 0), first: Number(r.first_year ?? 1967), last: Number(r.last_year ?? 2024),
  }));
  const codeSet = new Map<number, { units: number[]; codes: Map<number, [string, number, boolean][]> }>();
  for (const r of await table('code_set')) {
    const y = Number(r.year), t = Number(r.type);
    const e = codeSet.get(y) ?? codeSet.set(y, { units: [0, 0, 0, 0], codes: new Map() }).get(y)!;
    e.units[t] = Math.max(e.units[t]!, Number(r.n_units));
    (e.codes.get(t) ?? e.codes.set(t, []).get(t)!).push([String(r.item_code), Number(r.n_units), r.is_aggregate === true]);
  }
  const cpi = new Map<number, number>();
  for (const line of readFileSync(new URL('../../../data/cpi/cpiaucsl-annual-mean.tsv', import.meta.url), 'utf8').split('\n').slice(1)) {
    const [y, v] = line.split('\t');
    if (y && v) cpi.set(Number(y), Number(v));
  }

  // The fixture's long table: per (type, code) the per-resident amounts, and FY2011 presence.
  const manifest = JSON.parse(readFileSync(path.join(o.fixture, 'manifest.json'), 'utf8'));
  const samples = new Map<string, { logs: number[]; years: number[] }>();
  const dense = new Map<number, Map<string, number>>();
  for (const p of manifest.files.long_partitions) {
    const f = path.join(o.fixture, p.path);
    const t = await parquetTable(f, await readBytes(f), ['type', 'item_code', 'amt', 'population', 'canonical_govid', 'is_aggregate']);
    const n = t.numRows;
    const code = internUtf8(chunks(t, 'item_code'), n), gov = internUtf8(chunks(t, 'canonical_govid'), n);
    const type = (chunks(t, 'type')[0]!.values as Int32Array), amt = chunks(t, 'amt')[0]!, pop = chunks(t, 'population')[0]!;
    const agg = chunks(t, 'is_aggregate')[0]!;
    const govsOfType = [new Set<number>(), new Set<number>(), new Set<number>(), new Set<number>()];
    const presence = new Map<string, Set<number>>();
    for (let i = 0; i < n; i++) {
      const ty = type[i]!, c = code.dict[code.ids[i]!]!;
      govsOfType[ty]!.add(gov.ids[i]!);
      if (p.year === 2011) {
        const k = `${ty}|${c}`;
        (presence.get(k) ?? presence.set(k, new Set()).get(k)!).add(gov.ids[i]!);
      }
      const a = (amt.values as Int32Array)[i]!, pp = isValid(pop, i) ? (pop.values as Int32Array)[i]! : 0;
      if (a <= 0 || pp <= 0 || (isValid(agg, i) && boolAt(agg, i) && c.endsWith('--'))) continue;
      const k = `${ty}|${c}`;
      const s = samples.get(k) ?? samples.set(k, { logs: [], years: [] }).get(k)!;
      if (s.logs.length < 400 || (i * 2654435761) % 7 === 0) { s.logs.push(Math.log(a / pp)); s.years.push(p.year); }
    }
    if (p.year === 2011) {
      for (const [k, set] of presence) {
        const [ty, c] = k.split('|');
        const m = dense.get(Number(ty)) ?? dense.set(Number(ty), new Map()).get(Number(ty))!;
        m.set(c!, set.size / Math.max(1, govsOfType[Number(ty)]!.size));
      }
    }
  }
  const amounts = new Map<string, { logs: Float64Array; years: Uint16Array }>();
  for (const [k, s] of samples) amounts.set(k, { logs: Float64Array.from(s.logs), years: Uint16Array.from(s.years) });
  const harmonization = (await table('harmonization_map')).map((r) => ({
    item_code: String(r.item_code), scope: String(r.gov_type_scope), lo: Number(r.year_min), hi: Number(r.year_max), target: r.harmonized_code === null ? null : String(r.harmonized_code),
  }));
  const p: Profile = { govs, codeSet, dense, amounts, harmonization, cpi };
  profile = { key, p };
  return p;
}

const famTotal = (c: string): boolean => c.length === 3 && c.endsWith('--');
/** Local governments drawn per code_set unit at scale 1, which gives about 46 million rows, the published corpus's size (see scaleForRows for other sizes). */
const CALIBRATION = 0.755;
const LATEST_VINTAGE = 2023;

/** The registry's governments of a type alive in a year, largest first (lifespans end at the latest vintage: alive then, alive later). */
const aliveIn = (p: Profile, type: number, year: number): Gov[] =>
  p.govs.filter((g) => g.type === type && g.first <= year && (year <= g.last || g.last >= LATEST_VINTAGE)).sort((x, y) => y.pop - x.pop || (x.id < y.id ? -1 : 1));

/** Reporting governments of a type in a year: every state; local types scaled. */
const wanted = (p: Profile, alive: number, units: number, type: number, scale: number): number =>
  Math.min(alive, Math.round(units * (type === 0 ? 1 : scale * CALIBRATION)));

/** The probability that a government of this type reports a code this year (0 for codes with no amounts to draw). */
function reportProbability(p: Profile, type: number, code: string, n: number, units: number, dense: boolean): number {
  if (famTotal(code)) return 0;
  if (!(p.amounts.has(`${type}|${code}`) || p.amounts.has(`2|${code}`) || p.amounts.has(`1|${code}`) || p.amounts.has(`0|${code}`))) return 0;
  return dense ? (p.dense.get(type)?.get(code) ?? 0) : n / units;
}

/**
 * The expected row count of a scale, from the same probabilities the draw
 * uses (no draw): each government-year's expected codes, and in dense years
 * a family total wherever some member of the family is drawn.
 */
function expectedRows(p: Profile, scale: number, alive: Map<string, number>): number {
  let rows = 0;
  for (const year of FULL_YEARS) {
    const cs = p.codeSet.get(year) ?? p.codeSet.get(2023)!;
    const dense = year <= 2011;
    for (let type = 0; type <= 3; type++) {
      const units = Math.max(1, cs.units[type] ?? 1);
      const want = wanted(p, alive.get(`${year}|${type}`)!, cs.units[type] ?? 0, type, scale);
      if (want === 0) continue;
      let perGov = 0;
      const none = new Map<string, number>();
      for (const [code, n] of cs.codes.get(type) ?? []) {
        const q = reportProbability(p, type, code, n, units, dense);
        perGov += q;
        none.set(code[0]!, (none.get(code[0]!) ?? 1) * (1 - q));
      }
      if (dense) for (const [code] of cs.codes.get(type) ?? []) if (famTotal(code)) perGov += 1 - (none.get(code[0]!) ?? 1);
      rows += want * perGov;
    }
  }
  return rows;
}

/**
 * The scale whose expected size is `rows` (the draw lands within a few
 * percent of it). Every state reports every year whatever the scale, so a
 * size below the states' own rows is refused with that floor named.
 */
export async function scaleForRows(fixture: string, rows: number): Promise<number> {
  const p = await loadProfile({ fixture, out: '', seed: 0, scale: 1 });
  const alive = new Map<string, number>();
  for (const year of FULL_YEARS) for (let type = 0; type <= 3; type++) alive.set(`${year}|${type}`, aliveIn(p, type, year).length);
  const floor = expectedRows(p, 0, alive), most = expectedRows(p, 4, alive);
  if (rows < floor) throw new Error(`--rows ${rows}: the states alone give about ${Math.round(floor).toLocaleString('en-US')} rows (every state reports every year); ask for at least that`);
  if (rows > most) throw new Error(`--rows ${rows}: at most about ${Math.round(most).toLocaleString('en-US')} rows (scale 4)`);
  let lo = 0, hi = 4;
  for (let k = 0; k < 40; k++) {
    const mid = (lo + hi) / 2;
    if (expectedRows(p, mid, alive) < rows) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

type GenRow = { gov: Gov; code: string; amt: number; agg: boolean; pop: number };

/** Writes one year's partition; returns its manifest entry. */
export async function generateFinanceYear(a: { options: FinanceGenOptions; year: number }): Promise<{ year: number; path: string; sha256: string; row_count: number; size_bytes: number }> {
  const o = a.options, year = a.year;
  const p = await loadProfile(o);
  const rows = yearRows(p, new Rng(o.seed, `finance:${year}`), year, o.scale);
  const rel = `data/long/year=${year}/part-0.parquet`;
  const bytes = writeParquetFile(path.join(o.out, rel), yearColumns(p, rows, year));
  return { year, path: rel, sha256: createHash('sha256').update(bytes).digest('hex'), row_count: rows.length, size_bytes: bytes.byteLength };
}

/** One year's rows: for each type, the governments that report, and each one's items drawn from the profile. */
function yearRows(p: Profile, r: Rng, year: number, scale: number): GenRow[] {
  const cs = p.codeSet.get(year) ?? p.codeSet.get(2023)!;
  const dense = year <= 2011;
  const growth = Math.pow(1.009, year - 2020);
  const cpiRatio = (src: number): number => (p.cpi.get(year) ?? 1) / (p.cpi.get(src) ?? 1);
  const rows: GenRow[] = [];
  for (let type = 0; type <= 3; type++) {
    const alive = aliveIn(p, type, year);
    const want = wanted(p, alive.length, cs.units[type] ?? 0, type, scale);
    const certain = Math.floor(want * 0.3);
    const chosen = alive.slice(0, certain);
    const rest = alive.slice(certain);
    for (let k = rest.length - 1; k > 0; k--) { const j = r.u32() % (k + 1); [rest[k], rest[j]] = [rest[j]!, rest[k]!]; }
    chosen.push(...rest.slice(0, want - certain));
    const codes = cs.codes.get(type) ?? [];
    const units = Math.max(1, cs.units[type] ?? 1);
    for (const gov of chosen.sort((x, y) => (x.id < y.id ? -1 : 1))) {
      const pop = Math.max(50, Math.round((gov.pop || 2000) * growth * (1 + 0.05 * r.normal())));
      const mine: GenRow[] = [];
      for (const [code, n, agg] of codes) {
        if (famTotal(code)) continue;
        const prob = dense ? (p.dense.get(type)?.get(code) ?? 0) : n / units;
        if (r.next() >= prob) continue;
        const s = p.amounts.get(`${type}|${code}`) ?? p.amounts.get(`2|${code}`) ?? p.amounts.get(`1|${code}`) ?? p.amounts.get(`0|${code}`);
        if (!s) continue;
        const j = r.u32() % s.logs.length;
        const thousands = Math.exp(s.logs[j]! + 0.15 * r.normal()) * pop * cpiRatio(s.years[j]!);
        const amt = Math.max(1, Math.min(2_000_000_000, Math.round(thousands)));
        mine.push({ gov, code, amt, agg, pop });
      }
      // Family totals are the sums of their families, as in the real wide-era files.
      if (dense) addFamilyTotals(mine, codes, gov, pop);
      rows.push(...mine.sort((x, y) => (x.code < y.code ? -1 : 1)));
    }
  }
  return rows;
}

function addFamilyTotals(mine: GenRow[], codes: [string, number, boolean][], gov: Gov, pop: number): void {
  for (const [code] of codes) {
    if (!famTotal(code)) continue;
    const fam = code[0]!;
    const sum = mine.reduce((t, x) => t + (x.code[0] === fam ? x.amt : 0), 0);
    if (sum > 0) mine.push({ gov, code, amt: Math.min(2_000_000_000, sum), agg: true, pop });
  }
}

/** The year's rows as the mirror's long-table columns. */
function yearColumns(p: Profile, rows: GenRow[], year: number): ColumnSpec[] {
  const harmonized = (code: string, agg: boolean, type: number): string | null => {
    for (const h of p.harmonization) {
      if (h.item_code === code && year >= h.lo && year <= h.hi && (h.scope === 'all' || (h.scope === 'state' ? type === 0 : type > 0))) return h.target;
    }
    return agg ? null : code;
  };
  const n = rows.length;
  const i32 = (f: (x: GenRow) => number) => Int32Array.from(rows, f);
  const legacy = year >= 2002 && year <= 2016;
  return [
    { name: 'fips_state', type: 'int32', values: i32((x) => x.gov.fips) },
    { name: 'type', type: 'int32', values: i32((x) => x.gov.type) },
    { name: 'fips_county', type: 'int32', values: i32((x) => x.gov.county) },
    { name: 'govid', type: 'int32', values: i32((x) => x.gov.legacy) },
    { name: 'gov_blank', type: 'int32', values: new Int32Array(n) },
    { name: 'gov_name', type: 'dict', values: rows.map((x) => x.gov.name) },
    { name: 'county_name', type: 'utf8', values: rows.map(() => null) },
    { name: 'fips_state_asof', type: 'int32', values: i32((x) => x.gov.fips) },
    { name: 'fips_county_asof', type: 'int32', values: i32((x) => x.gov.county) },
    { name: 'cog_legacy_state', type: 'float64', values: rows.map((x) => (legacy ? x.gov.fips : null)) },
    { name: 'cog_legacy_county', type: 'float64', values: rows.map((x) => (legacy ? x.gov.county : null)) },
    { name: 'fips_place_code', type: 'float64', values: rows.map((x) => x.gov.place) },
    { name: 'population', type: 'int32', values: i32((x) => x.pop) },
    { name: 'popyear', type: 'int32', values: i32(() => year % 100) },
    { name: 'enrollment', type: 'float64', values: rows.map(() => null) },
    { name: 'enrollyear', type: 'float64', values: rows.map(() => null) },
    { name: 'function_code', type: 'float64', values: rows.map(() => null) },
    { name: 'sch_level_code', type: 'float64', values: rows.map(() => null) },
    { name: 'fiscal_year_end', type: 'int32', values: i32(() => 630) },
    { name: 'srvy_year', type: 'int32', values: i32(() => year % 100) },
    { name: 'item_code', type: 'dict', values: rows.map((x) => x.code) },
    { name: 'amt', type: 'int32', values: i32((x) => x.amt) },
    { name: 'srv_data', type: 'int32', values: i32(() => year) },
    { name: 'impute_flag', type: 'utf8', values: rows.map(() => 'R') },
    { name: 'is_aggregate', type: 'bool', values: rows.map((x) => x.agg) },
    { name: 'canonical_govid', type: 'dict', values: rows.map((x) => x.gov.id) },
    { name: 'harmonized_code', type: 'utf8', values: rows.map((x) => harmonized(x.code, x.agg, x.gov.type)) },
    { name: 'survey_weight', type: 'float64', values: rows.map(() => null) },
    { name: 'year', type: 'int32', values: i32(() => year) },
  ];
}

export async function generateFinanceFull(o: FinanceGenOptions, workers: number): Promise<{ rows: number; years: number }> {
  rmSync(path.join(o.out, 'data'), { recursive: true, force: true });
  mkdirSync(path.join(o.out, 'data'), { recursive: true });
  const fixtureManifest = JSON.parse(readFileSync(path.join(o.fixture, 'manifest.json'), 'utf8'));
  for (const m of fixtureManifest.files.metadata) copyFileSync(path.join(o.fixture, m.path), path.join(o.out, m.path));
  const progress = new Progress('generate finance corpus', FULL_YEARS.length, o.quiet);
  const pool = new TaskPool<{ generateFinanceYear: typeof generateFinanceYear }>(new URL('../../workers/finance/generate.js', import.meta.url), workers);
  try {
    const parts = await Promise.all(FULL_YEARS.map(async (year) => {
      const r = await pool.run('generateFinanceYear', { options: o, year });
      progress.tick(1, `FY${year}: ${r.row_count.toLocaleString('en-US')} rows`);
      return r;
    }));
    progress.finish();
    const rows = parts.reduce((s, p) => s + p.row_count, 0);
    const manifest = {
      ...fixtureManifest,
      built_at: new Date(0).toISOString(),
      pipeline_commit: 'synthetic',
      fixture_note: `SYNTHETIC full-scale corpus grown from the real fixture by src/finance/generate.ts (seed ${o.seed}, scale ${o.scale}): real registry, code sets and per-code amount distributions; not real data.`,
      files: { long_partitions: parts.map(({ year, path: p, sha256, row_count, size_bytes }) => ({ year, path: p, sha256, row_count, size_bytes })), metadata: fixtureManifest.files.metadata },
    };
    writeFileSync(path.join(o.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    return { rows, years: parts.length };
  } finally {
    await pool.close();
  }
}
