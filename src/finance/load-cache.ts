// The load cache: the assembled corpus columns written once beside the mirror
// (or under the temp directory when the mirror is read-only), so later starts
// read ~9 bytes a row straight into shared memory instead of decoding parquet.
//
// It is keyed by the manifest's own text (which carries every file's sha256),
// the code dictionary the catalog seeded, the codes' categories (the in-group
// row order), and each partition's size and
// modification time: any change to the mirror is a miss and a full, verified
// load. CIVICSTREAM_LOAD_CACHE=off disables it.

import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allocColumn, type Kind, type SharedColumn } from '../corpus/shared.js';
import type { Catalog } from './catalog.js';
import type { FinanceColumns } from './columns.js';
import { withGovMeta } from './corpus-layout.js';
import { buildEngineCatalog } from './engine-catalog.js';

// 2: rows inside a group are ordered by rowCategoryKey. 3: rows and groups are government-major (governmentMajor).
const FORMAT = 'civicstream-finance-load-cache-3';
const COLUMNS = ['code', 'hcode', 'amt', 'flags', 'gGov', 'gYear', 'gStart', 'gPop', 'gPopYear', 'govGroupStart', 'govGroups'] as const;

const enabled = (): boolean => (process.env.CIVICSTREAM_LOAD_CACHE ?? 'on') !== 'off';

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

function candidates(cat: Catalog, k: string): string[] {
  const tmp = path.join(os.tmpdir(), 'civicstream-cache', createHash('sha256').update(cat.dir).digest('hex').slice(0, 16));
  return [path.join(cat.dir, '.civicstream-cache', `corpus-${k}.bin`), path.join(tmp, `corpus-${k}.bin`)];
}

export async function readLoadCache(cat: Catalog): Promise<FinanceColumns | null> {
  if (!enabled()) return null;
  let k: string;
  try { k = key(cat, cat.codes.length); } catch { return null; }
  const file = candidates(cat, k).find((f) => existsSync(f));
  if (!file) return null;
  let fd = -1;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(64 * 1024);
    readSync(fd, head, 0, head.length, 0);
    const nl = head.indexOf(10);
    const header = JSON.parse(head.subarray(0, nl).toString('utf8'));
    if (header.format !== FORMAT || header.key !== k) return null;
    let pos = nl + 1;
    const cols: Record<string, SharedColumn> = {};
    for (const c of header.columns as { name: string; kind: Kind; length: number; bytes: number }[]) {
      const { column } = allocColumn(c.kind, c.length);
      const target = new Uint8Array(column.buffer as unknown as ArrayBuffer, 0, c.bytes);
      for (let done = 0; done < c.bytes;) done += readSync(fd, target, done, c.bytes - done, pos + done);
      pos += c.bytes;
      cols[c.name] = column;
    }
    if (pos !== fstatSync(fd).size) return null;
    for (const extra of header.extraCodes as string[]) if (!cat.codeId.has(extra)) { cat.codeId.set(extra, cat.codes.length); cat.codes.push(extra); }
    return withGovMeta({ nRows: header.nRows, nGroups: header.nGroups, nGov: header.nGov, ...(cols as Record<(typeof COLUMNS)[number], SharedColumn>) });
  } catch {
    return null;
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** Writes the cache after a full load; a failure only means the next start loads from parquet again. */
export function writeLoadCache(cat: Catalog, columns: FinanceColumns, codesAtSeed: number): void {
  if (!enabled()) return;
  const k = key(cat, codesAtSeed);
  const header = {
    format: FORMAT, key: k, nRows: columns.nRows, nGroups: columns.nGroups, nGov: columns.nGov,
    extraCodes: cat.codes.slice(codesAtSeed),
    columns: COLUMNS.map((name) => ({ name, kind: columns[name].kind, length: columns[name].length, bytes: columns[name].buffer.byteLength })),
  };
  for (const file of candidates(cat, k)) {
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const fd = openSync(tmp, 'w');
      try {
        writeSync(fd, `${JSON.stringify(header)}\n`);
        for (const name of COLUMNS) writeSync(fd, new Uint8Array(columns[name].buffer as unknown as ArrayBuffer));
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
