// The load cache: the assembled corpus columns written once beside the mirror
// (or under the temp directory when the mirror is read-only), so later starts
// read ~9 bytes a row straight into shared memory instead of decoding parquet.
//
// It is keyed by the manifest's own text (which carries every file's sha256),
// the code dictionary the catalog seeded, the codes' categories (the in-group
// row order), and each partition's size and
// modification time: any change to the mirror is a miss and a full, verified
// load. CIVICSTREAM_LOAD_CACHE=off disables it.
//
// The key says which cache to read, not that its bytes are intact: bytes
// flipped in place (same size and mtime) would be served as the corpus. So the
// header carries the sha256 of the manifest it was built from and of every
// column's bytes, checked as the bytes are read (chunk by chunk, while they are
// in the CPU's cache); any mismatch is a log line, the file removed, and a full
// load from parquet that writes a new one. A directory the cache lives in must
// be this user's and writable by no one else (the temp one, one per user, is
// made 0700): a file another user could write is never read.

import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allocColumn, type Kind, type SharedColumn } from '../corpus/shared.js';
import type { Catalog } from './catalog.js';
import type { LaidOutColumns } from './columns.js';
import { withGovMeta } from './corpus-layout.js';
import { buildEngineCatalog } from './engine-catalog.js';

// 2: rows inside a group are ordered by rowCategoryKey. 3: rows and groups are government-major (governmentMajor).
// 4: the header carries the manifest's sha256 and each column's.
const FORMAT = 'civicstream-finance-load-cache-4';
const COLUMNS = ['code', 'hcode', 'amt', 'flags', 'gGov', 'gYear', 'gStart', 'gPop', 'gPopYear', 'govGroupStart', 'govGroups'] as const;
/** Bytes read and hashed at a time: small enough to stay in the CPU's cache between the read and the hash. */
const CHUNK = 4 << 20;

const enabled = (): boolean => (process.env.CIVICSTREAM_LOAD_CACHE ?? 'on') !== 'off';

const manifestDigest = (cat: Catalog): string => createHash('sha256').update(readFileSync(path.join(cat.dir, 'manifest.json'))).digest('hex');

function key(cat: Catalog, codesAtSeed: number): string {
  const h = createHash('sha256').update(FORMAT).update(readFileSync(path.join(cat.dir, 'manifest.json')));
  h.update(JSON.stringify(cat.codes.slice(0, codesAtSeed)));
  // The rows' order inside a group follows the codes' categories (metadata whose sha256 the manifest may omit).
  h.update(buildEngineCatalog(cat).codeKey);
  for (const p of cat.manifest.partitions) {
    const st = statSync(path.join(cat.dir, p.path));
    h.update(`${p.path}|${st.size}|${st.mtimeMs}`);
  }
  return h.digest('hex').slice(0, 32);
}

const myUid = (): number | undefined => process.getuid?.();

/**
 * The places a mirror's caches go (the load cache here, the bulk files in bulk-store.ts): beside the mirror,
 * else each user's own directory under the shared temp directory, never one another user made.
 */
export function cacheRoots(dataDir: string): string[] {
  const tmp = path.join(os.tmpdir(), `civicstream-cache-${myUid() ?? 'user'}`, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  return [path.join(dataDir, '.civicstream-cache'), tmp];
}

function candidates(cat: Catalog, k: string): string[] {
  return cacheRoots(cat.dir).map((root) => path.join(root, `corpus-${k}.bin`));
}

/** The directories a directory's trust rests on: itself, and under the temp directory every level up to it. */
function guardians(dir: string): string[] {
  const dirs = [dir];
  const tmp = os.tmpdir();
  for (let d = path.dirname(dir); d.startsWith(`${tmp}${path.sep}`); d = path.dirname(d)) dirs.push(d);
  return dirs;
}

/** Why a cache directory may not be trusted: it, or under the temp directory a level up to it, is another user's or writable by others. */
export function untrustedDir(dir: string): string | null {
  for (const d of guardians(dir)) {
    const why = untrusted(d);
    if (why !== null) return why;
  }
  return null;
}

/** Why a cache file or directory may not be trusted (another owner, writable by others, a link), or null. */
export function untrusted(p: string): string | null {
  return untrustedStat(p, lstatSync(p));
}

function untrustedStat(p: string, st: Stats): string | null {
  const uid = myUid();
  if (st.isSymbolicLink()) return `${p} is a symbolic link`;
  if (uid !== undefined && st.uid !== uid) return `${p} belongs to uid ${st.uid}, not to this process (uid ${uid})`;
  if ((st.mode & 0o022) !== 0) return `${p} is writable by others (mode ${(st.mode & 0o777).toString(8)})`;
  return null;
}

/** Why the file at `file` (which may not exist yet) may not be trusted, checking its directories first. */
function untrustedFile(file: string): string | null {
  return untrustedDir(path.dirname(file)) ?? (existsSync(file) ? untrusted(file) : null);
}

/** Makes the cache file's directory, private (0700) where this makes it; false when it cannot be trusted. */
function privateDirFor(file: string): boolean {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  return untrustedFile(file) === null;
}

export interface CacheNotice {
  event: 'load_cache_rejected';
  file: string;
  reason: string;
}

/** A cache that was found but not used is said on stderr (it is not an error: the start goes on from parquet). */
function reject(file: string, reason: string, remove: boolean): null {
  const notice: CacheNotice = { event: 'load_cache_rejected', file, reason };
  process.stderr.write(`${JSON.stringify({ level: 'warn', ...notice, action: 'loading from parquet' })}\n`);
  if (remove) rmSync(file, { force: true });
  return null;
}

interface Header {
  format: string;
  key: string;
  manifest_sha256: string;
  nRows: number;
  nGroups: number;
  nGov: number;
  extraCodes: string[];
  columns: { name: string; kind: Kind; length: number; bytes: number; sha256: string }[];
}

/** The header as written: its JSON, closed by the sha256 of that JSON (so a flipped count or code name is found too). */
function headerLine(h: Header): string {
  const body = JSON.stringify(h);
  return `${body.slice(0, -1)},"header_sha256":"${createHash('sha256').update(body).digest('hex')}"}`;
}

/** The header of a line written by headerLine, or null when it does not parse or match its sha256. */
function parseHeader(line: string): Header | null {
  try {
    const { header_sha256: digest, ...h } = JSON.parse(line) as Header & { header_sha256?: string };
    return digest === createHash('sha256').update(JSON.stringify(h)).digest('hex') ? h : null;
  } catch {
    return null;
  }
}

/** Reads `bytes` at `pos` into `target`, hashing each chunk as it lands. */
function readHashed(fd: number, target: Uint8Array, pos: number, h: Hash): void {
  for (let done = 0; done < target.length;) {
    const want = Math.min(CHUNK, target.length - done);
    let got = 0;
    while (got < want) {
      const n = readSync(fd, target, done + got, want - got, pos + done + got);
      if (n === 0) throw new Error('the file ends early');
      got += n;
    }
    h.update(target.subarray(done, done + want));
    done += want;
  }
}

export async function readLoadCache(cat: Catalog): Promise<LaidOutColumns | null> {
  if (!enabled()) return null;
  let k: string;
  try { k = key(cat, cat.codes.length); } catch { return null; }
  for (const file of candidates(cat, k)) {
    if (!existsSync(file)) continue;
    const distrust = untrustedFile(file);
    if (distrust !== null) { reject(file, distrust, false); continue; }
    return readVerified(cat, file, k);
  }
  return null;
}

/** The columns of a cache file whose header, manifest and every column's sha256 match; else null (and the file removed). */
function readVerified(cat: Catalog, file: string, k: string): LaidOutColumns | null {
  let fd = -1;
  try {
    // Not through a link, and checked on the file opened, not on the path (which could be swapped in between).
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const distrust = untrustedStat(file, fstatSync(fd));
    if (distrust !== null) return reject(file, distrust, false);
    const head = Buffer.alloc(64 * 1024);
    readSync(fd, head, 0, head.length, 0);
    const nl = head.indexOf(10);
    const header = parseHeader(head.subarray(0, nl).toString('utf8'));
    if (header === null) return reject(file, 'its header does not match its sha256', true);
    if (header.format !== FORMAT || header.key !== k) return reject(file, 'its header is not of this format and key', true);
    if (header.manifest_sha256 !== manifestDigest(cat)) return reject(file, 'it was built from another manifest', true);
    let pos = nl + 1;
    const cols: Record<string, SharedColumn> = {};
    for (const c of header.columns) {
      const { column } = allocColumn(c.kind, c.length);
      const h = createHash('sha256');
      readHashed(fd, new Uint8Array(column.buffer as unknown as ArrayBuffer, 0, c.bytes), pos, h);
      if (h.digest('hex') !== c.sha256) return reject(file, `column ${c.name} does not match its sha256`, true);
      pos += c.bytes;
      cols[c.name] = column;
    }
    if (pos !== fstatSync(fd).size) return reject(file, 'it has bytes past its last column', true);
    for (const extra of header.extraCodes) if (!cat.codeId.has(extra)) { cat.codeId.set(extra, cat.codes.length); cat.codes.push(extra); }
    return withGovMeta({ nRows: header.nRows, nGroups: header.nGroups, nGov: header.nGov, ...(cols as Record<(typeof COLUMNS)[number], SharedColumn>) });
  } catch (err) {
    // Perhaps only for now (out of memory or descriptors): kept for the next start to check again.
    return reject(file, `it cannot be read (${err instanceof Error ? err.message : String(err)})`, false);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** Writes the cache after a full load; a failure only means the next start loads from parquet again. */
export function writeLoadCache(cat: Catalog, columns: LaidOutColumns, codesAtSeed: number): void {
  if (!enabled()) return;
  const k = key(cat, codesAtSeed);
  const bytesOf = (name: (typeof COLUMNS)[number]): Uint8Array => new Uint8Array(columns[name].buffer as unknown as ArrayBuffer);
  const header: Header = {
    format: FORMAT, key: k, manifest_sha256: manifestDigest(cat), nRows: columns.nRows, nGroups: columns.nGroups, nGov: columns.nGov,
    extraCodes: cat.codes.slice(codesAtSeed),
    columns: COLUMNS.map((name) => ({
      name, kind: columns[name].kind, length: columns[name].length, bytes: columns[name].buffer.byteLength,
      sha256: createHash('sha256').update(bytesOf(name)).digest('hex'),
    })),
  };
  for (const file of candidates(cat, k)) {
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      if (!privateDirFor(file)) continue;
      const fd = openSync(tmp, 'w', 0o600);
      try {
        writeSync(fd, `${headerLine(header)}\n`);
        for (const name of COLUMNS) writeSync(fd, bytesOf(name));
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
      // A cache for another key (an older mirror or format) can never be read again: reclaim its space.
      for (const old of readdirSync(path.dirname(file))) {
        if (/^corpus-[0-9a-f]+\.bin$/.test(old) && old !== path.basename(file)) rmSync(path.join(path.dirname(file), old), { force: true });
      }
      return;
    } catch {
      // Not writable here: try the next place.
    }
  }
}
