// The synthetic school arrest-rate mirror, in the real layout, from a real
// generative story (seeded, deterministic):
//
//   district enrollment by race and sex (lognormal size, state-flavoured race
//   mix) -> a true arrest rate per district and group on the logit scale
//   (state, race, sex and year effects plus a district effect) -> observed
//   arrests ~ Binomial(enrollment, rate), small counts suppressed as the CRDC
//   does -> for each model, posterior draws of pred from a partially pooled
//   beta-binomial posterior: rate ~ Beta(k*m + y, k*(1-m) + n - y) around the
//   model's fixed-effect mean m with the model's pooling strength k (the
//   stratified family pools within each race-by-sex group and less hard),
//   then pred ~ Binomial(n, rate).
//
// Layout: parquet/model_id=<model>_mod/YEAR=<yy-yy>/LEA_STATE=<ST>/part-0.parquet
// (LEAID, RACE, SEX, pred, draw_id, subgroup_id, batch_num; sorted by LEAID,
// RACE, SEX, draw_id), districts.parquet, enrollment.parquet, manifest.json.

import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeParquetFile } from '../corpus/parquet-write.js';
import { STATE_GEO } from '../geo/state-geography.js';
import { pointInState } from '../geo/state-outline.js';
import { STATE_BY_CODE } from '../geo/states.js';
import { Progress } from '../progress.js';
import { Rng } from '../random.js';
import { TaskPool } from '../task-pool.js';
import { DRAWS, MODELS, RACES, SEXES, YEARS, partitionId, type ModelInfo, type SchoolYear } from './models.js';

export interface GenerateOptions {
  out: string;
  states: string[];
  districts: number;
  seed: number;
  quiet?: boolean;
  models?: string[];
}

export interface District {
  leaid: string;
  lea_name: string;
  state: string;
  state_name: string;
  lat: number;
  lon: number;
}

interface Cell {
  leaid: string;
  race: string;
  sex: string;
  year: SchoolYear;
  n: number;
  /** True arrests (unsuppressed; what the models were fit on). */
  y: number;
  /** The fixed-effect mean rate of the cell. */
  mean: number;
}

const RACE_EFFECT: Record<string, number> = { AM: 0.5, BL: 0.9, HI: 0.1, WH: 0 };
const SEX_EFFECT: Record<string, number> = { F: 0, M: 0.6 };
const YEAR_EFFECT: Record<string, number> = { '15-16': 0.1, '17-18': 0.05, '21-22': -0.1 };
const YEAR_SIZE: Record<string, number> = { '15-16': 1.02, '17-18': 1.01, '21-22': 0.97 };
const BASE_LOGIT = Math.log(0.0025 / 0.9975);
const expit = (x: number): number => 1 / (1 + Math.exp(-x));
const SUPPRESS = (n: number, y: number): boolean => n < 10 || (y >= 1 && y <= 2);

const SYLLABLES = ['ash', 'bel', 'cor', 'dun', 'el', 'fair', 'glen', 'har', 'ing', 'jef', 'ken', 'lin', 'mar', 'nor', 'oak', 'pine', 'quin', 'riv', 'sal', 'ton', 'ux', 'val', 'wes', 'york'];
const SUFFIX = ['School District', 'Public Schools', 'Unified School District', 'County Schools', 'City Schools', 'Independent School District', 'Regional School Unit'];

function districtName(r: Rng): string {
  const n = 2 + (r.u32() % 2);
  let w = '';
  for (let i = 0; i < n; i++) w += SYLLABLES[r.u32() % SYLLABLES.length];
  const word = w[0]!.toUpperCase() + w.slice(1);
  const special = r.u32() % 40;
  // A few names carry the punctuation real ones do, so clients meet it here too.
  const name = special === 0 ? `${word}-${SYLLABLES[r.u32() % SYLLABLES.length]!.toUpperCase()}` : special === 1 ? `O'${word}` : special === 2 ? `${word}, Town of` : word;
  return `${name} ${SUFFIX[r.u32() % SUFFIX.length]}`;
}

/** Splits `total` districts over states in proportion to their real district counts (at least one each). */
export function allocate(states: string[], total: number): Map<string, number> {
  const w = states.map((s) => STATE_GEO[s]!.leas);
  const sum = w.reduce((a, b) => a + b, 0);
  const out = new Map(states.map((s, i) => [s, Math.max(1, Math.floor((total * w[i]!) / sum))]));
  let left = total - [...out.values()].reduce((a, b) => a + b, 0);
  for (let i = 0; left > 0; i = (i + 1) % states.length, left--) out.set(states[i]!, out.get(states[i]!)! + 1);
  return out;
}

export function buildPopulation(o: GenerateOptions): { districts: District[]; cells: Cell[] } {
  const districts: District[] = [];
  const cells: Cell[] = [];
  for (const [st, count] of allocate(o.states, o.districts)) {
    const info = STATE_BY_CODE.get(st)!;
    const sr = new Rng(o.seed, `state:${st}`);
    const stateEffect = 0.4 * sr.normal();
    const raceBase = [0.02 + 0.04 * sr.next(), 0.05 + 0.3 * sr.next(), 0.05 + 0.4 * sr.next(), 0];
    raceBase[3] = Math.max(0.1, 1 - raceBase[0]! - raceBase[1]! - raceBase[2]!);
    let next = 10 + (sr.u32() % 50);
    for (let k = 0; k < count; k++) {
      const leaid = `${info.fips}${String(next).padStart(5, '0')}`;
      next += 1 + (sr.u32() % 40);
      const r = new Rng(o.seed, `district:${leaid}`);
      const lea_name = districtName(r);
      // The place is drawn inside the state's Census outline from its own stream (place:<leaid>). The two
      // draws the old placement took (a normal scatter around the state's centroid, which left most
      // districts outside their state) are still taken, so every later draw of this district's stream
      // (size, race mix, district effect) and so every table but the coordinates stays as it was.
      r.normal(); r.normal();
      districts.push({ leaid, lea_name, state: st, state_name: info.name, ...pointInState(st, new Rng(o.seed, `place:${leaid}`)) });
      const size = Math.min(600_000, Math.max(40, Math.round(Math.exp(Math.log(2500) + 1.1 * r.normal()))));
      const shares = raceBase.map((b) => r.gamma(8 * b + 0.05));
      const total = shares.reduce((a, b) => a + b, 0);
      const districtEffect = 0.6 * r.normal();
      for (const year of YEARS) {
        const yr = new Rng(o.seed, `cells:${leaid}:${year}`);
        const yearSize = YEAR_SIZE[year]! * (1 + 0.03 * yr.normal());
        RACES.forEach((race, ri) => {
          for (const sex of SEXES) {
            const n = Math.round(size * yearSize * (shares[ri]! / total) * (sex === 'F' ? 0.49 : 0.51));
            if (n <= 0) continue;
            const mean = expit(BASE_LOGIT + stateEffect + RACE_EFFECT[race]! + SEX_EFFECT[sex]! + YEAR_EFFECT[year]!);
            const truth = expit(logit(mean) + districtEffect + 0.2 * yr.normal());
            cells.push({ leaid, race, sex, year, n, y: yr.binomial(n, truth), mean });
          }
        });
      }
    }
  }
  return { districts, cells };
}

const logit = (p: number): number => Math.log(p / (1 - p));

/** The posterior draws of one model for a set of cells (already sorted by LEAID, RACE, SEX). */
function draws(o: GenerateOptions, model: ModelInfo, cells: Cell[], firstBatchRow: number) {
  const rows = cells.length * DRAWS;
  const LEAID: string[] = new Array(rows), RACE: string[] = new Array(rows), SEX: string[] = new Array(rows), sub: string[] = new Array(rows);
  const pred = new Int32Array(rows), drawId = new Int32Array(rows), batch = new Int32Array(rows);
  let i = 0;
  cells.forEach((c, ci) => {
    const r = new Rng(o.seed, `draws:${model.model}:${c.leaid}:${c.year}:${c.race}:${c.sex}`);
    // The stratified family pools each group within itself: its prior mean ignores the cross-group structure's shrinkage.
    const m = model.family === 'stratified' ? Math.min(0.5, c.mean * (0.8 + 0.4 * r.next())) : c.mean;
    const a = model.pooling * m + c.y, b = model.pooling * (1 - m) + c.n - c.y;
    const subgroup = model.family === 'unified' ? partitionId(model.model) : `${c.race}_${c.sex}`;
    const batchNum = Math.floor((firstBatchRow + ci) / 25_000) + 1;
    for (let d = 1; d <= DRAWS; d++, i++) {
      LEAID[i] = c.leaid; RACE[i] = c.race; SEX[i] = c.sex; sub[i] = subgroup;
      pred[i] = r.binomial(c.n, r.beta(a, b));
      drawId[i] = d;
      batch[i] = batchNum;
    }
  });
  return [
    { name: 'LEAID', type: 'dict' as const, values: LEAID },
    { name: 'RACE', type: 'dict' as const, values: RACE },
    { name: 'SEX', type: 'dict' as const, values: SEX },
    { name: 'pred', type: 'int32' as const, values: pred },
    { name: 'draw_id', type: 'int32' as const, values: drawId },
    { name: 'subgroup_id', type: 'dict' as const, values: sub },
    { name: 'batch_num', type: 'int32' as const, values: batch },
  ];
}

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

export interface ShardTask {
  options: GenerateOptions;
  model: string;
  year: SchoolYear;
  state: string;
}

let cached: { key: string; byShard: Map<string, Cell[]> } | null = null;

/** Writes one draws shard; the population is rebuilt (deterministically) once per thread. */
export function generateShard(t: ShardTask): { path: string; sha256: string; row_count: number; size_bytes: number } {
  const key = JSON.stringify({ ...t.options, quiet: undefined });
  if (cached?.key !== key) cached = { key, byShard: cellsByShard(buildPopulation(t.options).cells) };
  const list = cached.byShard.get(`${t.year}|${STATE_BY_CODE.get(t.state)!.fips}`) ?? [];
  const rel = `parquet/model_id=${partitionId(t.model)}/YEAR=${t.year}/LEA_STATE=${t.state}/part-0.parquet`;
  const bytes = writeParquetFile(path.join(t.options.out, rel), draws(t.options, MODELS.find((m) => m.model === t.model)!, list, 0));
  return { path: rel, sha256: sha(bytes), row_count: list.length * DRAWS, size_bytes: bytes.byteLength };
}

function cellsByShard(cells: Cell[]): Map<string, Cell[]> {
  const key = (c: Cell): string => `${c.leaid}|${c.race}|${c.sex}`;
  const sorted = [...cells].sort((p, q) => (key(p) < key(q) ? -1 : key(p) > key(q) ? 1 : 0));
  const byShard = new Map<string, Cell[]>();
  for (const c of sorted) {
    const k = `${c.year}|${c.leaid.slice(0, 2)}`;
    (byShard.get(k) ?? byShard.set(k, []).get(k)!).push(c);
  }
  return byShard;
}

/** Writes the whole mirror: tables here, draws shards on a pool of worker threads (one shard per task). */
export async function generateArrests(o: GenerateOptions, workers = 1): Promise<{ shards: number; rows: number }> {
  // Only what this generator writes is replaced: a README or other notes beside it stay.
  for (const f of ['parquet', 'summaries', 'districts.parquet', 'enrollment.parquet', 'manifest.json']) rmSync(path.join(o.out, f), { recursive: true, force: true });
  mkdirSync(o.out, { recursive: true });
  const { districts, cells } = buildPopulation(o);
  const key = (c: Cell): string => `${c.leaid}|${c.race}|${c.sex}`;
  cells.sort((p, q) => (key(p) < key(q) ? -1 : key(p) > key(q) ? 1 : 0));
  const districtBytes = writeParquetFile(path.join(o.out, 'districts.parquet'), [
    { name: 'leaid', type: 'utf8', values: districts.map((d) => d.leaid) },
    { name: 'lea_name', type: 'utf8', values: districts.map((d) => d.lea_name) },
    { name: 'state', type: 'utf8', values: districts.map((d) => d.state) },
    { name: 'state_name', type: 'utf8', values: districts.map((d) => d.state_name) },
    { name: 'lat', type: 'float64', values: Float64Array.from(districts, (d) => d.lat) },
    { name: 'lon', type: 'float64', values: Float64Array.from(districts, (d) => d.lon) },
  ]);
  const enrollBytes = writeParquetFile(path.join(o.out, 'enrollment.parquet'), [
    { name: 'leaid', type: 'utf8', values: cells.map((c) => c.leaid) },
    { name: 'race', type: 'utf8', values: cells.map((c) => c.race) },
    { name: 'sex', type: 'utf8', values: cells.map((c) => c.sex) },
    { name: 'year', type: 'utf8', values: cells.map((c) => c.year) },
    { name: 'stu_enroll', type: 'int32', values: Int32Array.from(cells, (c) => c.n) },
    { name: 'observed_arrests', type: 'float64', values: cells.map((c) => (SUPPRESS(c.n, c.y) ? null : c.y)) },
  ]);

  const models = MODELS.filter((m) => !o.models || o.models.includes(m.model));
  const todo = models.flatMap((m) => m.years.flatMap((year) => o.states.map((state) => ({ options: o, model: m.model, year, state }))));
  const progress = new Progress('generate arrests draws', todo.length, o.quiet);
  const pool = new TaskPool<{ generateShard: typeof generateShard }>(new URL('../../workers/arrests/generate.js', import.meta.url), workers);
  let rows = 0;
  try {
    const shards = await Promise.all(todo.map(async (t) => {
      const r = await pool.run('generateShard', t);
      rows += r.row_count;
      progress.tick(1, `${t.model} ${t.year} ${t.state}`);
      return { model: t.model, year: t.year, state: t.state, ...r };
    }));
    progress.finish();
    return writeManifest(o, models, districts.length, cells.length, districtBytes, enrollBytes, shards, rows);
  } finally {
    await pool.close();
  }
}

function writeManifest(o: GenerateOptions, models: readonly ModelInfo[], nDistricts: number, nCells: number, districtBytes: Uint8Array, enrollBytes: Uint8Array, shards: Record<string, unknown>[], rows: number): { shards: number; rows: number } {
  const manifest = {
    dataset: 'civicstream synthetic school arrest-rate draws (CRDC layout)',
    generator: 'src/arrests/generate.ts',
    seed: o.seed,
    synthetic: true,
    draws_per_group: DRAWS,
    years: YEARS,
    models: models.map((m) => m.model),
    states: o.states,
    districts: { path: 'districts.parquet', sha256: sha(districtBytes), row_count: nDistricts },
    enrollment: { path: 'enrollment.parquet', sha256: sha(enrollBytes), row_count: nCells },
    shards,
  };
  writeFileSync(path.join(o.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return { shards: shards.length, rows };
}
