// The bulk build as it was before issue 32, kept as the reference the pool's
// build must equal: the flat route's CSV pages of /<table>?type=<each
// type>&years=<year>&format=csv walked by Link through the service
// in-process, written through gzip (one header line) and each parsed back
// into a Parquet row group typed by the route's row fields.

import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { csvPages, CsvSink } from '../../dist/src/finance/http/csv-pages.js';
import { writeParquetPages } from '../../dist/src/finance/http/parquet-pages.js';
import { GOV_TYPES } from '../../dist/src/finance/catalog.js';

const ROUTES: Record<string, string> = { spending: '/api/v1/spending', revenue: '/api/v1/revenue' };

/** Writes the year's table as the walk did, to csvGz and parquet; the rows of each. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function referenceBuild(service: any, year: number, table: 'spending' | 'revenue', csvGz: string, parquet: string): Promise<{ csvRows: number; parquetRows: number }> {
  const selections = GOV_TYPES.map((type: string) => new Map([['type', type], ['years', String(year)], ['format', 'csv']]));
  const pages = csvPages(service, ROUTES[table]!, selections);
  const gzip = createGzip({ level: 6 });
  const csv = new CsvSink(gzip, pipeline(gzip, createWriteStream(csvGz)));
  const fields = service.routes.find((r: { path: string }) => r.path === ROUTES[table])!.rowFields ?? [];
  const parquetRows = await writeParquetPages(async () => {
    const page = (await pages.next()).value;
    if (page === undefined) return null;
    await csv.page(page);
    return page.text;
  }, fields, parquet);
  return { csvRows: await csv.close(), parquetRows };
}
