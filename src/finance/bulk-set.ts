// What this thread knows of the bulk files: for each published year, table
// and file format, whether the file is ready (and where), still being built
// (or checked), or failed. The listing route reads it, the file route looks
// names up in it; one thread builds (bulk-start.ts) and every other front
// thread mirrors its state through a BroadcastChannel.

import path from 'node:path';
import type { FinanceCtx } from './context.js';
import { BULK_FILE_FORMATS, BULK_TABLES, MEDIA_TYPES, type BulkFile, type BulkFileFormat, type BulkTable } from './bulk-store.js';

/** ready: served; building: being built or checked; failed: its build failed; unavailable: no set has it and none is built (BULK_BUILD=false). */
export type BulkStatus = 'ready' | 'building' | 'failed' | 'unavailable';

export interface BulkEntry {
  year: number;
  table: BulkTable;
  format: BulkFileFormat;
  status: BulkStatus;
  /** The file, when ready. */
  file: BulkFile | null;
  /** Its path on disk, when ready. */
  path: string | null;
}

/** What the listing and the channel carry: the entries, and where the ready ones came from. */
export interface BulkState {
  entries: BulkEntry[];
  source: 'prebuilt' | 'cache' | null;
}

export const BULK_FILES_PATH = '/api/v1/bulk/files';

const keyOf = (year: number, table: BulkTable, format: BulkFileFormat): string => `${table}-${year}.${format}`;

export class BulkSet {
  private readonly entries = new Map<string, BulkEntry>();
  private readonly byName = new Map<string, BulkEntry>();
  source: BulkState['source'] = null;
  /** The listing's rows as last made: made again only after a change, not on every request (issue 32). */
  private listed: Record<string, unknown>[] | null = null;
  /** Called after every change (the building thread posts the state to the others). */
  onChange: (() => void) | null = null;

  constructor(readonly years: readonly number[], readonly digest: string) {
    // Newest year first: the order the files are built in, and the one a reader most likely wants.
    for (const year of [...years].sort((a, b) => b - a)) {
      for (const table of BULK_TABLES) {
        for (const format of BULK_FILE_FORMATS) this.entries.set(keyOf(year, table, format), { year, table, format, status: 'building', file: null, path: null });
      }
    }
  }

  /** A file is ready to serve from dir. */
  ready(dir: string, file: BulkFile): void {
    const e = this.entries.get(keyOf(file.year, file.table, file.format));
    if (e === undefined) return;
    if (e.file !== null) this.byName.delete(e.file.name);
    Object.assign(e, { status: 'ready', file, path: path.join(dir, file.name) });
    this.listed = null;
    this.byName.set(file.name, e);
    this.onChange?.();
  }

  /** The files of a (year, table) not ready will not be: failed, or unavailable. */
  notBuilt(year: number, table: BulkTable, status: 'failed' | 'unavailable'): void {
    for (const format of BULK_FILE_FORMATS) {
      const e = this.entries.get(keyOf(year, table, format));
      if (e !== undefined && e.status !== 'ready') e.status = status;
    }
    this.listed = null;
    this.onChange?.();
  }

  /** The (year, table) pairs not ready in both formats, newest first: what is left to build. */
  missing(): { year: number; table: BulkTable }[] {
    const out: { year: number; table: BulkTable }[] = [];
    for (const e of this.entries.values()) {
      if (e.format === BULK_FILE_FORMATS[0] && (e.status !== 'ready' || this.entry(e.year, e.table, 'csv.gz')?.status !== 'ready')) out.push({ year: e.year, table: e.table });
    }
    return out;
  }

  entry(year: number, table: BulkTable, format: BulkFileFormat): BulkEntry | undefined {
    return this.entries.get(keyOf(year, table, format));
  }

  /** A ready file by its name. */
  lookup(name: string): BulkEntry | undefined {
    return this.byName.get(name);
  }

  get readyFiles(): BulkFile[] {
    return [...this.entries.values()].flatMap((e) => (e.file !== null && e.status === 'ready' ? [e.file] : []));
  }

  state(): BulkState {
    return { entries: [...this.entries.values()].map((e) => ({ ...e })), source: this.source };
  }

  /** Takes on the building thread's state (a thread that does not build). */
  apply(s: BulkState): void {
    this.byName.clear();
    this.listed = null;
    for (const e of s.entries) {
      const key = keyOf(e.year, e.table, e.format);
      if (!this.entries.has(key)) continue;
      this.entries.set(key, { ...e });
      if (e.status === 'ready' && e.file !== null) this.byName.set(e.file.name, this.entries.get(key)!);
    }
    this.source = s.source;
  }

  /** The listing's rows: every entry, a URL only where the file is ready. Shared between requests: read, never changed. */
  rows(): Record<string, unknown>[] {
    return (this.listed ??= [...this.entries.values()].map((e) => ({
      year: e.year,
      table: e.table,
      format: e.format,
      status: e.status,
      url: e.file !== null && e.status === 'ready' ? `${BULK_FILES_PATH}/${e.file.name}` : null,
      file_name: e.status === 'ready' ? e.file?.name ?? null : null,
      media_type: MEDIA_TYPES[e.format],
      rows: e.status === 'ready' ? e.file?.rows ?? null : null,
      bytes: e.status === 'ready' ? e.file?.bytes ?? null : null,
      sha256: e.status === 'ready' ? e.file?.sha256 ?? null : null,
    })));
  }

  counts(): Record<BulkStatus, number> {
    const n: Record<BulkStatus, number> = { ready: 0, building: 0, failed: 0, unavailable: 0 };
    for (const e of this.entries.values()) n[e.status]++;
    return n;
  }
}

/** Each service context's set (a front thread has its own context, so its own set). */
const sets = new WeakMap<FinanceCtx, BulkSet>();

export function bulkOf(ctx: FinanceCtx): BulkSet {
  let s = sets.get(ctx);
  if (s === undefined) sets.set(ctx, (s = new BulkSet(ctx.catalog.years, ctx.catalog.manifest.digest)));
  return s;
}
