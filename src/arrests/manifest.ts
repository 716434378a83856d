// The school draws mirror's manifest: which shards exist, with sha256 and
// row counts, plus the district and enrollment tables. Anything missing or
// inconsistent stops start-up with a message naming the file.

import path from 'node:path';
import { createHash } from 'node:crypto';
import { LoadError, readManifestJson } from '../corpus/parquet.js';
import { MODEL_BY_ID, YEARS, type SchoolYear } from './models.js';
import { STATE_BY_CODE } from '../geo/states.js';

export interface ShardEntry {
  model: string;
  year: SchoolYear;
  state: string;
  path: string;
  sha256: string | null;
  rowCount: number;
}

export interface ArrestsManifest {
  dataset: string;
  seed: number | null;
  synthetic: boolean;
  drawsPerGroup: number;
  shards: ShardEntry[];
  districts: { path: string; sha256: string | null };
  enrollment: { path: string; sha256: string | null };
  /** sha256 of manifest.json itself, which keys the summary cache. */
  digest: string;
}

export async function readArrestsManifest(dir: string): Promise<ArrestsManifest> {
  const { file, text, raw } = await readManifestJson(dir, 'is ARRESTS_DATA a school draws mirror? npm run generate:arrests writes one');
  const inside = (p: unknown, what: string): string => {
    if (typeof p !== 'string' || p.includes('..') || path.isAbsolute(p)) throw new LoadError(file, `${what} is missing or leaves the mirror`);
    return p;
  };
  if (!Array.isArray(raw?.shards) || raw.shards.length === 0) throw new LoadError(file, 'shards is missing or empty');
  const shards: ShardEntry[] = raw.shards.map((s: any, i: number) => {
    const model = String(s?.model), year = String(s?.year), state = String(s?.state);
    if (!MODEL_BY_ID.has(model)) throw new LoadError(file, `shards[${i}].model '${model}' is not a known model`);
    if (!(YEARS as readonly string[]).includes(year)) throw new LoadError(file, `shards[${i}].year '${year}' is not a school year`);
    if (!STATE_BY_CODE.has(state)) throw new LoadError(file, `shards[${i}].state '${state}' is not a state code`);
    const rowCount = Number(s.row_count);
    if (!Number.isInteger(rowCount) || rowCount < 0) throw new LoadError(file, `shards[${i}].row_count is not a count`);
    return { model, year: year as SchoolYear, state, path: inside(s.path, `shards[${i}].path`), sha256: typeof s.sha256 === 'string' ? s.sha256 : null, rowCount };
  });
  const table = (t: any, name: string) => ({ path: inside(t?.path, `${name}.path`), sha256: typeof t?.sha256 === 'string' ? t.sha256 : null });
  return {
    dataset: String(raw.dataset ?? 'school arrest-rate draws'),
    seed: typeof raw.seed === 'number' ? raw.seed : null,
    synthetic: raw.synthetic === true,
    drawsPerGroup: Number(raw.draws_per_group ?? 500),
    shards,
    districts: table(raw.districts, 'districts'),
    enrollment: table(raw.enrollment, 'enrollment'),
    digest: createHash('sha256').update(text).digest('hex'),
  };
}
