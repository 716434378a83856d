// Where the bulk files live on disk and what says they are whole. A set is a
// directory of content-hashed files and an index.json naming the manifest
// digest the set was built from and each file's rows, bytes and sha256. Two
// places hold one: a prebuilt set beside the mirror (<FINANCE_DATA>/bulk/,
// written by `civicstream bulk`), and the server's own cache, keyed by the
// manifest digest, in the load cache's places (load-cache.ts): beside the
// mirror in .civicstream-cache/, else this user's private (0700) directory
// under the temp directory. As for the load cache, a directory or file another
// user could write is never served, and a file is served only once its bytes
// hash to the index's sha256.

import { createHash } from 'node:crypto';
import { constants, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { FORMATS } from '../formats/registry.js';
import { VERSION } from '../version.js';
import { cacheRoots, untrusted, untrustedDir } from './load-cache.js';

export { untrustedDir };

/** The index's format: a change of what a set holds (columns, naming) changes it, and older sets are rebuilt. */
export const BULK_FORMAT = 'civicstream-bulk-1';
export const INDEX = 'index.json';

export const BULK_TABLES = ['spending', 'revenue'] as const;
export const BULK_FILE_FORMATS = ['parquet', 'csv.gz'] as const;
export type BulkTable = (typeof BULK_TABLES)[number];
export type BulkFileFormat = (typeof BULK_FILE_FORMATS)[number];

/** A .parquet file is the registry's Parquet; a .csv.gz is a gzip file (not a Content-Encoding). */
export const MEDIA_TYPES: Record<BulkFileFormat, string> = { parquet: FORMATS.parquet.mediaType, 'csv.gz': 'application/gzip' };

/** One built file, as the index lists it. */
export interface BulkFile {
  name: string;
  year: number;
  table: BulkTable;
  format: BulkFileFormat;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface BulkIndex {
  format: string;
  manifest_sha256: string;
  version: string;
  files: BulkFile[];
}

/** A file's name: its table, year and the first 16 hex digits of its sha256, so a new build is a new URL. */
export const bulkFileName = (table: BulkTable, year: number, format: BulkFileFormat, sha256: string): string =>
  `${table}-${year}-${sha256.slice(0, 16)}.${format}`;

export const prebuiltDir = (dataDir: string): string => path.join(dataDir, 'bulk');

/** The server's cache directories for this corpus, in the order tried: beside the mirror, then this user's own under the temp directory. */
export function cacheDirs(dataDir: string, digest: string): string[] {
  return cacheRoots(dataDir).map((root) => path.join(root, `bulk-${digest.slice(0, 16)}`));
}

/** Makes a directory to build a set in, private (0700) where this makes it; the reason when it cannot be trusted or made. */
export function privateDir(dir: string): string | null {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    return `${dir} cannot be made (${err instanceof Error ? err.message : String(err)})`;
  }
  return untrustedDir(dir);
}

/** The index of the set in dir when it is of this format and corpus; else the reason it is not (null when there is none). */
export function readIndex(dir: string, digest: string): { index: BulkIndex } | { why: string } | null {
  const file = path.join(dir, INDEX);
  if (!existsSync(file)) return null;
  try {
    const distrust = untrustedDir(dir) ?? untrusted(file);
    if (distrust !== null) return { why: distrust };
    const index = JSON.parse(readFileSync(file, 'utf8')) as BulkIndex;
    if (index.format !== BULK_FORMAT) return { why: `${file} is of format ${String(index.format)}, not ${BULK_FORMAT}` };
    if (index.manifest_sha256 !== digest) return { why: `${file} was built from another manifest (${String(index.manifest_sha256).slice(0, 16)})` };
    if (!Array.isArray(index.files)) return { why: `${file} lists no files` };
    return { index };
  } catch (err) {
    return { why: `${file} cannot be read (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** Writes the index (temp name, then rename: a reader sees the old one or the new one, whole). */
export function writeIndex(dir: string, digest: string, files: BulkFile[]): void {
  const index: BulkIndex = { format: BULK_FORMAT, manifest_sha256: digest, version: VERSION, files };
  const tmp = path.join(dir, `.${INDEX}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(index, null, 1)}\n`, { mode: 0o644 });
  renameSync(tmp, path.join(dir, INDEX));
}

/** The sha256 and size of a file, read in 1 MB chunks (never whole), not through a link. */
export async function hashFile(file: string): Promise<{ sha256: string; bytes: number }> {
  const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const h = createHash('sha256');
    const buf = Buffer.allocUnsafe(1 << 20);
    let bytes = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, bytes);
      if (bytesRead === 0) break;
      h.update(buf.subarray(0, bytesRead));
      bytes += bytesRead;
    }
    return { sha256: h.digest('hex'), bytes };
  } finally {
    await fh.close();
  }
}

/** Why a listed file may not be served (missing, another user's, its bytes not the index's), or null. */
export async function checkFile(dir: string, f: BulkFile): Promise<string | null> {
  const file = path.join(dir, f.name);
  try {
    if (f.name !== bulkFileName(f.table, f.year, f.format, f.sha256)) return `${file} is not named for its sha256`;
    const distrust = untrusted(file);
    if (distrust !== null) return distrust;
    const got = await hashFile(file);
    if (got.bytes !== f.bytes || got.sha256 !== f.sha256) return `${file} does not match its sha256 and size in ${INDEX}`;
    return null;
  } catch (err) {
    return `${file} cannot be read (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** Moves a finished temp file to its content-hashed name in dir; what the index says of it. */
export async function sealFile(dir: string, tmp: string, f: Omit<BulkFile, 'name' | 'bytes' | 'sha256'>): Promise<BulkFile> {
  const { sha256, bytes } = await hashFile(tmp);
  const name = bulkFileName(f.table, f.year, f.format, sha256);
  renameSync(tmp, path.join(dir, name));
  return { name, year: f.year, table: f.table, format: f.format, rows: f.rows, bytes, sha256 };
}

/** Temp files of builds that ended without finishing (their process is gone): removed before a build in dir. */
export function removeStaleTemps(dir: string): void {
  for (const name of readdirSync(dir)) {
    const m = /\.(\d+)\.tmp$/.exec(name);
    if (m === null || alive(Number(m[1]))) continue;
    rmSync(path.join(dir, name), { force: true });
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Once a set is complete: the cache sets of other corpora beside it can never be served again, so their space is reclaimed. */
export function removeOtherSets(dir: string): void {
  const parent = path.dirname(dir);
  for (const name of readdirSync(parent)) {
    const other = path.join(parent, name);
    if (/^bulk-[0-9a-f]{16}$/.test(name) && other !== dir && lstatSync(other).isDirectory()) rmSync(other, { recursive: true, force: true });
  }
}
