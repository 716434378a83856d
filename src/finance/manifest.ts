// The finance mirror's manifest, and what each schema_version must carry.
// Everything that differs between versions is in SCHEMAS; the loader and the
// engine read these rules instead of testing version numbers.

import { createHash } from 'node:crypto';
import path from 'node:path';
import { LoadError, readManifestJson } from '../corpus/parquet.js';

export interface Partition {
  year: number;
  path: string;
  sha256: string | null;
  rowCount: number;
}

export interface MetadataFile {
  path: string;
  sha256: string | null;
}

export interface Manifest {
  schemaVersion: number;
  builtAt: string | null;
  pipelineCommit: string | null;
  partitions: Partition[];
  metadata: MetadataFile[];
  longColumns: string[];
  /** sha256 of manifest.json itself: the corpus's identity (it names every file's sha256). */
  digest: string;
}

export type TableName =
  | 'summary_categories' | 'harmonization_map' | 'harmonization_recipes' | 'series_breaks' | 'representation'
  | 'code_set' | 'canonical_fips_xwalk' | 'canonical_alias' | 'lineage_events' | 'census_collection_coverage';

export interface SchemaRules {
  /** Long-table columns the engine reads. */
  longColumns: string[];
  /** Metadata tables that must be present. Others are used when the manifest lists them. */
  requiredTables: TableName[];
  /** Whether the long table carries harmonized_code, so basis=harmonized is possible. */
  harmonized: boolean;
}

const BASE_LONG = ['canonical_govid', 'item_code', 'amt', 'is_aggregate', 'population', 'popyear'];
const BASE_TABLES: TableName[] = ['summary_categories', 'canonical_fips_xwalk'];
const HARMONIZATION_TABLES: TableName[] = ['harmonization_map', 'harmonization_recipes', 'series_breaks'];

export const SCHEMAS: Record<number, SchemaRules> = {
  4: { longColumns: BASE_LONG, requiredTables: BASE_TABLES, harmonized: false },
  5: { longColumns: [...BASE_LONG, 'harmonized_code'], requiredTables: [...BASE_TABLES, ...HARMONIZATION_TABLES], harmonized: true },
  6: { longColumns: [...BASE_LONG, 'harmonized_code'], requiredTables: [...BASE_TABLES, ...HARMONIZATION_TABLES], harmonized: true },
};

export async function readManifest(dir: string): Promise<Manifest> {
  const { file, text, raw } = await readManifestJson(dir, 'is FINANCE_DATA a finance mirror directory?');
  const schemaVersion = Number(raw.schema_version);
  if (!(schemaVersion in SCHEMAS)) {
    throw new LoadError(file, `schema_version ${JSON.stringify(raw.schema_version)} is not supported (supported: ${Object.keys(SCHEMAS).join(', ')})`);
  }
  const parts = raw.files?.long_partitions;
  if (!Array.isArray(parts) || parts.length === 0) throw new LoadError(file, 'files.long_partitions is missing or empty');
  const partitions: Partition[] = parts.map((p: any, i: number) => {
    const year = Number(p?.year);
    const rowCount = Number(p?.row_count);
    if (!Number.isInteger(year) || year < 1900 || year > 2100 || typeof p.path !== 'string' || !Number.isInteger(rowCount) || rowCount < 0) {
      throw new LoadError(file, `files.long_partitions[${i}] needs an integer year, a path and an integer row_count`);
    }
    if (p.path.includes('..') || path.isAbsolute(p.path)) throw new LoadError(file, `files.long_partitions[${i}].path must stay inside the mirror`);
    return { year, path: p.path, sha256: typeof p.sha256 === 'string' ? p.sha256 : null, rowCount };
  });
  partitions.sort((a, b) => a.year - b.year);
  const metadata: MetadataFile[] = (Array.isArray(raw.files?.metadata) ? raw.files.metadata : []).map((m: any, i: number) => {
    if (typeof m?.path !== 'string' || m.path.includes('..') || path.isAbsolute(m.path)) throw new LoadError(file, `files.metadata[${i}].path is missing or leaves the mirror`);
    return { path: m.path, sha256: typeof m.sha256 === 'string' ? m.sha256 : null };
  });
  return {
    schemaVersion,
    builtAt: typeof raw.built_at === 'string' ? raw.built_at : null,
    pipelineCommit: typeof raw.pipeline_commit === 'string' ? raw.pipeline_commit : null,
    partitions,
    metadata,
    longColumns: Array.isArray(raw.schema?.long_columns) ? raw.schema.long_columns.map(String) : [],
    digest: createHash('sha256').update(text).digest('hex'),
  };
}

export const tableFile = (m: Manifest, name: TableName): MetadataFile | undefined =>
  m.metadata.find((f) => path.basename(f.path) === `${name}.parquet`);
