// Summaries of the school draws: built by jobs on a Piscina pool, one shard
// (model, year, state) per task, with a progress bar; cached beside the draws
// (summaries/*.parquet, keyed by the manifest's digest) so later starts load
// them instead of rebuilding.

import { mkdirSync, renameSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { TaskPool } from '../task-pool.js';
import type { Table } from 'apache-arrow';
import { LoadError, chunks, internUtf8, parquetTable, readBytes, sha256 } from '../corpus/parquet.js';
import { parquetBytes } from '../corpus/parquet-write.js';
import { Progress } from '../progress.js';
import type { SummarizeArgs, SummarizeResult, SummaryColumns, summarizeShard } from '../../workers/arrests/summarize.js';
import type { ArrestsManifest } from './manifest.js';
import { MODELS, RACES, SEXES, YEARS } from './models.js';
import type { EnrollmentTable } from './tables.js';

/** Summary rows of one model, sorted by (key, race, sex, year): key is the leaid, or the state's index for state rows. */
export interface SummaryBlock {
  n: number;
  key: Int32Array;
  race: Uint8Array;
  sex: Uint8Array;
  year: Uint8Array;
  draws: Uint16Array;
  median: Float64Array;
  mean: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
  /** State rows: summed enrollment (NaN when unknown). */
  enroll: Float64Array;
}

export interface Summaries {
  district: Map<string, SummaryBlock>;
  state: Map<string, SummaryBlock>;
  /** State codes indexed by the state rows' key. */
  states: string[];
  build: { seconds: number; shards: number; rows: number; workers: number; cached: boolean };
}

interface Part { model: string; year: number; stateIdx: number; r: SummarizeResult }

export async function loadOrBuildSummaries(dir: string, m: ArrestsManifest, enroll: EnrollmentTable, o: { workers: number; quiet: boolean; rebuild?: boolean }): Promise<Summaries> {
  const states = [...new Set(m.shards.map((s) => s.state))].sort();
  const cached = o.rebuild ? null : await readCache(dir, m, states);
  if (cached) return cached;
  const pool = new TaskPool<{ summarizeShard: typeof summarizeShard }>(new URL('../../workers/arrests/build.js', import.meta.url), o.workers, { idleTimeout: 1000 });
  const progress = new Progress('summarise school draws', m.shards.length, o.quiet);
  let rows = 0;
  try {
    const parts = await Promise.all(m.shards.map(async (s): Promise<Part> => {
      const file = path.join(dir, s.path);
      const bytes = await readBytes(file);
      if (s.sha256 !== null && sha256(bytes) !== s.sha256) throw new LoadError(file, 'sha256 does not match the manifest (corrupt or truncated file)');
      const args: SummarizeArgs = { file, bytes, enroll: enroll.forShard(s.year, s.state) };
      const r = await pool.run('summarizeShard', args, { transferList: [bytes.buffer as ArrayBuffer] });
      if (r.rows !== s.rowCount) throw new LoadError(file, `has ${r.rows} rows; the manifest says ${s.rowCount}`);
      if (r.problems.length) throw new LoadError(file, r.problems.join('; '));
      rows += r.rows;
      progress.tick(1, `${s.model} ${s.year} ${s.state}`);
      return { model: s.model, year: YEARS.indexOf(s.year), stateIdx: states.indexOf(s.state), r };
    }));
    const seconds = progress.finish();
    const out = assemble(parts, states, { seconds, shards: m.shards.length, rows, workers: o.workers, cached: false });
    writeCache(dir, m, out);
    return out;
  } finally {
    await pool.close({ force: true });
  }
}

function assemble(parts: Part[], states: string[], build: Summaries['build']): Summaries {
  const district = new Map<string, SummaryBlock>(), state = new Map<string, SummaryBlock>();
  for (const model of MODELS.map((x) => x.model)) {
    const mine = parts.filter((p) => p.model === model);
    if (!mine.length) continue;
    district.set(model, sortBlock(concat(mine.map((p) => ({ c: p.r.district, year: p.year, key: p.r.district.leaid })))));
    state.set(model, sortBlock(concat(mine.map((p) => ({ c: p.r.state, year: p.year, key: new Int32Array(p.r.state.n).fill(p.stateIdx) })))));
  }
  return { district, state, states, build };
}

function concat(list: { c: SummaryColumns; year: number; key: Int32Array }[]): SummaryBlock {
  const n = list.reduce((s, x) => s + x.c.n, 0);
  const b: SummaryBlock = {
    n, key: new Int32Array(n), race: new Uint8Array(n), sex: new Uint8Array(n), year: new Uint8Array(n), draws: new Uint16Array(n),
    median: new Float64Array(n), mean: new Float64Array(n), lo: new Float64Array(3 * n), hi: new Float64Array(3 * n), enroll: new Float64Array(n),
  };
  let at = 0;
  for (const { c, year, key } of list) {
    b.key.set(key, at); b.race.set(c.race, at); b.sex.set(c.sex, at); b.year.fill(year, at, at + c.n); b.draws.set(c.draws, at);
    b.median.set(c.median, at); b.mean.set(c.mean, at); b.lo.set(c.lo, 3 * at); b.hi.set(c.hi, 3 * at); b.enroll.set(c.enroll, at);
    at += c.n;
  }
  return b;
}

function sortBlock(b: SummaryBlock): SummaryBlock {
  const order = Array.from({ length: b.n }, (_, i) => i).sort((p, q) => b.key[p]! - b.key[q]! || b.race[p]! - b.race[q]! || b.sex[p]! - b.sex[q]! || b.year[p]! - b.year[q]!);
  const pick = <T extends { length: number; [i: number]: number }>(a: T, w = 1): T => {
    const out = new (a.constructor as new (n: number) => T)(a.length);
    order.forEach((src, dst) => { for (let j = 0; j < w; j++) out[dst * w + j] = a[src * w + j]!; });
    return out;
  };
  return { n: b.n, key: pick(b.key), race: pick(b.race), sex: pick(b.sex), year: pick(b.year), draws: pick(b.draws), median: pick(b.median), mean: pick(b.mean), lo: pick(b.lo, 3), hi: pick(b.hi, 3), enroll: pick(b.enroll) };
}

// --- cache beside the draws: readable by any parquet reader, keyed by the manifest digest ---

const CACHE_FILES = { district: 'summaries/district_summary.parquet', state: 'summaries/state_summary.parquet', build: 'summaries/build.json' };

function writeCache(dir: string, m: ArrestsManifest, s: Summaries): void {
  try {
    mkdirSync(path.join(dir, 'summaries'), { recursive: true });
    for (const kind of ['district', 'state'] as const) {
      const blocks = [...s[kind]].flatMap(([model, b]) => [{ model, b }]);
      const n = blocks.reduce((k, x) => k + x.b.n, 0);
      const col = (f: (b: SummaryBlock, i: number) => number) => {
        const out = new Float64Array(n);
        let at = 0;
        for (const { b } of blocks) for (let i = 0; i < b.n; i++) out[at++] = f(b, i);
        return out;
      };
      const str = (f: (model: string, b: SummaryBlock, i: number) => string) => blocks.flatMap(({ model, b }) => Array.from({ length: b.n }, (_, i) => f(model, b, i)));
      const bytes = parquetBytes([
        { name: 'model', type: 'dict', values: str((model) => model) },
        { name: 'year', type: 'dict', values: str((_, b, i) => YEARS[b.year[i]!]!) },
        kind === 'district' ? { name: 'leaid', type: 'dict', values: str((_, b, i) => String(b.key[i]).padStart(7, '0')) } : { name: 'state', type: 'dict', values: str((_, b, i) => s.states[b.key[i]!]!) },
        { name: 'race', type: 'dict', values: str((_, b, i) => RACES[b.race[i]!]!) },
        { name: 'sex', type: 'dict', values: str((_, b, i) => SEXES[b.sex[i]!]!) },
        { name: 'n_draws', type: 'float64', values: col((b, i) => b.draws[i]!) },
        { name: 'count_median', type: 'float64', values: col((b, i) => b.median[i]!) },
        { name: 'count_mean', type: 'float64', values: col((b, i) => b.mean[i]!) },
        ...[50, 80, 95].flatMap((p, j) => [
          { name: `count_lower_${p}`, type: 'float64' as const, values: col((b, i) => b.lo[i * 3 + j]!) },
          { name: `count_upper_${p}`, type: 'float64' as const, values: col((b, i) => b.hi[i * 3 + j]!) },
        ]),
        { name: 'stu_enroll', type: 'float64', values: col((b, i) => b.enroll[i]!) },
      ]);
      const target = path.join(dir, CACHE_FILES[kind]);
      writeFileSync(`${target}.tmp${process.pid}`, bytes);
      renameSync(`${target}.tmp${process.pid}`, target);
    }
    const target = path.join(dir, CACHE_FILES.build);
    writeFileSync(`${target}.tmp${process.pid}`, `${JSON.stringify({ manifest_digest: m.digest, built_at: new Date().toISOString(), build: s.build, states: s.states }, null, 2)}\n`);
    renameSync(`${target}.tmp${process.pid}`, target);
  } catch (e) {
    // A read-only mirror (a container image, a shared mount) just rebuilds at each start.
    process.stderr.write(`civicstream: school summaries not cached in ${dir} (${(e as Error).message}); they will be rebuilt at next start\n`);
  }
}

async function readCache(dir: string, m: ArrestsManifest, states: string[]): Promise<Summaries | null> {
  const buildFile = path.join(dir, CACHE_FILES.build);
  if (!existsSync(buildFile)) return null;
  try {
    const info = JSON.parse(readFileSync(buildFile, 'utf8'));
    if (info.manifest_digest !== m.digest || JSON.stringify(info.states) !== JSON.stringify(states)) return null;
    const blocks = async (kind: 'district' | 'state'): Promise<Map<string, SummaryBlock>> => {
      const file = path.join(dir, CACHE_FILES[kind]);
      return readBlocks(await parquetTable(file, await readBytes(file)), kind, states);
    };
    return { district: await blocks('district'), state: await blocks('state'), states, build: { ...info.build, cached: true } };
  } catch {
    // A damaged cache is not an error: the draws are the source, so rebuild from them.
    return null;
  }
}

function readBlocks(table: Table, kind: 'district' | 'state', states: string[]): Map<string, SummaryBlock> {
  const out = new Map<string, SummaryBlock>();
  const models: string[] = [];
  const model = codesOf(table, 'model', (mo) => { const k = models.indexOf(mo); return k >= 0 ? k : models.push(mo) - 1; });
  const year = codesOf(table, 'year', (y) => YEARS.indexOf(y as never)), race = codesOf(table, 'race', (r) => RACES.indexOf(r as never));
  const sex = codesOf(table, 'sex', (x) => SEXES.indexOf(x as never));
  const key = kind === 'district' ? codesOf(table, 'leaid', Number) : codesOf(table, 'state', (st) => states.indexOf(st));
  const num = (name: string) => Float64Array.from(table.getChild(name)!.toArray() as Float64Array);
  const draws = num('n_draws'), median = num('count_median'), mean = num('count_mean'), enroll = num('stu_enroll');
  const lohi = [50, 80, 95].map((p) => [num(`count_lower_${p}`), num(`count_upper_${p}`)] as const);
  const idx = models.map(() => [] as number[]);
  model.forEach((mo, i) => idx[mo]!.push(i));
  models.forEach((mo, m) => {
    const rows = idx[m]!, n = rows.length;
    const b: SummaryBlock = {
      n, key: Int32Array.from(rows, (i) => key[i]!), race: Uint8Array.from(rows, (i) => race[i]!), sex: Uint8Array.from(rows, (i) => sex[i]!),
      year: Uint8Array.from(rows, (i) => year[i]!), draws: Uint16Array.from(rows, (i) => draws[i]!),
      median: Float64Array.from(rows, (i) => median[i]!), mean: Float64Array.from(rows, (i) => mean[i]!), enroll: Float64Array.from(rows, (i) => enroll[i]!),
      lo: new Float64Array(3 * n), hi: new Float64Array(3 * n),
    };
    rows.forEach((i, k) => lohi.forEach(([l, h], j) => { b.lo[k * 3 + j] = l[i]!; b.hi[k * 3 + j] = h[i]!; }));
    out.set(mo, b);
  });
  return out;
}

/**
 * Per row, f of the column's text: f runs once per distinct value (internUtf8 reads the cache's dictionary-encoded
 * columns by index); Vector#toArray decoded every row's string, 380 ms of a start (profiled, 2026-11-28).
 */
function codesOf(t: Table, name: string, f: (s: string) => number): Int32Array {
  const { ids, dict } = internUtf8(chunks(t, name), t.numRows);
  const coded = dict.map(f);
  // A null (none in a cache this code writes) as the old reading took it: the text 'null' (f asked only then: it may record what it is given).
  let ifNull: number | undefined;
  return ids.map((id) => (id >= 0 ? coded[id]! : (ifNull ??= f('null'))));
}
