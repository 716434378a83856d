// Building one year of one table into its two bulk files. The rows are the
// flat route's CSV pages, every type of government in turn, walked by Link
// through the service's own pipeline (csv-pages.ts, as `civicstream
// export` does), so each file holds exactly the API's rows. One walk feeds
// both files: each page is written through gzip to the .csv.gz (one header
// line) and parsed into a row group of the .parquet (parquet-pages.ts,
// typed as `export --format parquet` types them). At most a page is held at a
// time; both files are written under temp names and renamed to their
// content-hashed names only once whole.

import { createWriteStream, rmSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { csvPages, CsvSink } from './csv-pages.js';
import { writeParquetPages } from './parquet-pages.js';
import { isDraining } from '../../server/lifecycle.js';
import type { Service } from '../../server/service.js';
import { GOV_TYPES } from '../catalog.js';
import type { FinanceCtx } from '../context.js';
import { sealFile, type BulkFile, type BulkTable } from '../bulk-store.js';

const ROUTES: Record<BulkTable, string> = { spending: '/api/v1/spending', revenue: '/api/v1/revenue' };

/** Thrown when the server starts draining: a build in progress is dropped, its temp files removed. */
export class BuildStopped extends Error {}

export interface BuildOptions {
  /** Awaited before each page (the server lets waiting requests go first). */
  beforePage?: () => Promise<void>;
  /** Progress on stderr under this label (the CLI). */
  label?: string;
}

/** The year's rows of the table, as the flat route's CSV pages: /<table>?type=<each type>&years=<year>&format=csv, page by page. */
export function tablePages(service: Service<FinanceCtx>, year: number, table: BulkTable, o: BuildOptions) {
  const selections = GOV_TYPES.map((type) => new Map([['type', type], ['years', String(year)], ['format', 'csv']]));
  const beforePage = async (): Promise<void> => {
    if (isDraining()) throw new BuildStopped('the server is shutting down');
    await o.beforePage?.();
  };
  return csvPages(service, ROUTES[table], selections, { beforePage, ...(o.label !== undefined ? { label: `${o.label} ${table} ${year}` } : {}) });
}

/** Builds the .csv.gz and the .parquet of one year of one table in dir; what the index says of each. */
export async function buildTable(service: Service<FinanceCtx>, dir: string, year: number, table: BulkTable, o: BuildOptions = {}): Promise<BulkFile[]> {
  const base = path.join(dir, `.${table}-${year}`);
  const tmpCsv = `${base}.csv.gz.${process.pid}.tmp`, tmpParquet = `${base}.parquet.${process.pid}.tmp`;
  const gzip = createGzip({ level: 6 });
  const file = createWriteStream(tmpCsv, { mode: 0o644 });
  const csv = new CsvSink(gzip, pipeline(gzip, file));
  const pages = tablePages(service, year, table, o);
  const fields = service.routes.find((r) => r.path === ROUTES[table])!.rowFields ?? [];
  try {
    const parquetRows = await writeParquetPages(async () => {
      const page = (await pages.next()).value;
      if (page === undefined) return null;
      await csv.page(page);
      return page.text;
    }, fields, tmpParquet);
    const csvRows = await csv.close();
    if (csvRows !== parquetRows) throw new Error(`${table} ${year}: the CSV has ${csvRows} rows and the parquet ${parquetRows}`);
    const common = { year, table, rows: csvRows };
    return [await sealFile(dir, tmpParquet, { ...common, format: 'parquet' }), await sealFile(dir, tmpCsv, { ...common, format: 'csv.gz' })];
  } catch (err) {
    gzip.destroy();
    file.destroy();
    await pages.return(undefined);
    rmSync(tmpCsv, { force: true });
    rmSync(tmpParquet, { force: true });
    throw err;
  }
}
