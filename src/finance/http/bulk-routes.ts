// The bulk files' routes: /bulk lists, per published year, the spending and
// revenue tables as Parquet and gzip CSV (ready with their URL, rows, bytes
// and sha256, or still building); /bulk/files/{name} serves a file by its
// content-hashed name (ranges, HEAD, immutable caching: bulk-serve.ts), and
// <table>-<year>.<format> or <table>-latest.<format> redirects to the
// current one.

import { BYTES_PER_TOKEN, REVALIDATION_COST } from '../../server/rate-stage.js';
import { ok } from '../../server/envelope.js';
import { apiError } from '../../server/errors.js';
import { defineRoute, envelopeReply, type QueryParams, type Reply, type RouteRequest, type RouteSpec } from '../../server/route-spec.js';
import type { FinanceCtx } from '../context.js';
import { BULK_FILES_PATH, bulkOf } from '../bulk-set.js';
import { fileReply, notModified, pickRange } from './bulk-serve.js';
import type { BulkFileFormat, BulkTable } from '../bulk-store.js';

type Route = RouteSpec<FinanceCtx>;
const route = defineRoute<FinanceCtx>();

const BULK_FIELDS = [
  { name: 'year', type: 'integer', description: 'Fiscal year: every published year has its files.' },
  { name: 'table', type: 'string', description: 'spending or revenue: the harmonized flat table, every government of every type.' },
  { name: 'format', type: 'string', description: 'parquet (typed columns, a row group per 50,000-row page) or csv.gz (the CSV of format=csv, one header line, gzip-compressed).' },
  { name: 'status', type: 'string', description: 'ready; building (being built or checked, url null); failed (its build failed; see the server log); unavailable (BULK_BUILD=false and no prebuilt set has it).' },
  { name: 'url', type: 'string|null', description: 'Path of the file, named for its sha256 (served with Cache-Control immutable and byte ranges); null until ready.' },
  { name: 'file_name', type: 'string|null', description: '<table>-<year>-<first 16 hex digits of sha256>.<format>; null until ready.' },
  { name: 'media_type', type: 'string', description: 'application/vnd.apache.parquet or application/gzip (a .csv.gz is a gzip file, not a Content-Encoding).' },
  { name: 'rows', type: 'integer|null', description: 'Rows in the file: those of /spending or /revenue?type=<each type>&years=<year>&format=csv walked page by page.' },
  { name: 'bytes', type: 'integer|null', description: 'Size of the file.' },
  { name: 'sha256', type: 'string|null', description: 'SHA-256 of the file, in hex; also its ETag.' },
];

const NAME = /^(spending|revenue)-(\d{4}|latest)(?:-([0-9a-f]{16}))?\.(parquet|csv\.gz)$/;

interface FileName { name: string; table: BulkTable; year: number | 'latest'; hash: string | null; format: BulkFileFormat }

const fileNameParam = {
  description: 'A file name from /api/v1/bulk (<table>-<year>-<16 hex>.<format>), or <table>-<year>.<format> or <table>-latest.<format>, which redirect (307) to the current file.',
  schema: { type: 'string', pattern: NAME.source },
  allowed: 'spending-2020-0123456789abcdef.parquet, revenue-2019-0123456789abcdef.csv.gz, spending-latest.parquet, revenue-2020.csv.gz',
  example: 'spending-latest.parquet',
  parse: (raw: string): FileName => {
    const m = NAME.exec(raw);
    if (m === null) throw apiError('E_NOT_FOUND', 'bulkName', { name: raw.slice(0, 80) });
    return { name: raw, table: m[1] as BulkTable, year: m[2] === 'latest' ? 'latest' : Number(m[2]), hash: m[3] ?? null, format: m[4] as BulkFileFormat };
  },
};

function listing(req: RouteRequest<FinanceCtx>): Reply {
  const set = bulkOf(req.ctx);
  const rows = set.rows();
  return envelopeReply(ok(rows, { total: rows.length, ...set.counts(), source: set.source, manifest_sha256: set.digest }));
}

/** The file route's path declaration: its handler's parameters are what defineRoute infers from it. */
const FILE_PATH = { name: fileNameParam };

function file(req: RouteRequest<FinanceCtx, QueryParams<{}, typeof FILE_PATH>>): Reply {
  const set = bulkOf(req.ctx);
  const n = req.params.name;
  if (n.hash !== null) {
    const e = set.lookup(n.name);
    if (e === undefined) throw apiError('E_NOT_FOUND', 'bulkOtherBuild', { name: n.name });
    return fileReply(e, req);
  }
  const year = n.year === 'latest' ? req.ctx.catalog.maxYear : n.year;
  const e = set.entry(year, n.table, n.format);
  if (e === undefined) throw apiError('E_NOT_FOUND', 'bulkYear', { year, years: req.ctx.catalog.years.join(', ') });
  if (e.status === 'building') throw apiError('E_BUSY', 'building', { format: n.format, table: n.table, year });
  if (e.status !== 'ready') throw apiError('E_NOT_FOUND', 'bulkNotReady', { format: n.format, table: n.table, year, state: e.status });
  const url = `${BULK_FILES_PATH}/${e.file!.name}`;
  // Where the name points changes with a new build: the redirect is revalidated, the file it names never needs to be.
  return { kind: 'envelope', envelope: ok(set.rows().filter((r) => r.url === url)), status: 307, headers: { Location: url, 'Cache-Control': 'no-cache' } };
}

export const bulkRoutes: Route[] = [
  route({
    id: 'bulk', path: '/api/v1/bulk', tags: ['bulk'], produces: 'envelope', query: {},
    summary: 'Bulk files',
    description: 'For each published year, the harmonized spending and revenue tables (every government, every type) as Parquet and as gzip CSV: the rows of the flat route\'s CSV pages, built once per corpus in the background after start. A file not built yet is listed with status building and url null; meta.ready counts the files ready.',
    rowFields: BULK_FIELDS,
    examples: () => [{ description: 'Every bulk file and its status', path: '/api/v1/bulk' }],
    handle: listing,
  }),
  route({
    id: 'bulk-file', path: `${BULK_FILES_PATH}/{name}`, tags: ['bulk'], produces: 'application/octet-stream',
    pathParams: FILE_PATH, query: {},
    // A file costs its client 1 token more per 10 MB it will send (rate-stage.ts): the range the answer honours
    // (a Range it cannot honour sends the whole file, and is charged so); a revalidation answered 304 what any
    // other 304 costs (REVALIDATION_COST), GET or HEAD; the pipeline charges a HEAD no more than HEAD_COST.
    cost: (p, ctx, r) => {
      const f = p.name.hash === null ? undefined : bulkOf(ctx).lookup(p.name.name)?.file;
      if (f === undefined || f === null) return 1;
      if (notModified(r.ifNoneMatch, f.sha256)) return REVALIDATION_COST;
      const pick = pickRange(r.range, r.ifRange, `"${f.sha256}"`, f.bytes);
      const bytes = pick.kind === 'whole' ? f.bytes : pick.kind === 'part' ? pick.end - pick.start + 1 : 0;
      return 1 + Math.floor(bytes / BYTES_PER_TOKEN);
    },
    summary: 'One bulk file',
    description: 'The file (application/vnd.apache.parquet or application/gzip), with Content-Length, ETag (its sha256), Cache-Control: public, max-age=31536000, immutable, and Content-Disposition. If-None-Match naming its ETag (weakly compared, a list, or *) answers 304 with the ETag and no body, before any Range; Range: bytes=a-b, a- or -n answers 206 with Content-Range; a range past the end 416; several ranges, or an If-Range that is not the ETag, the whole file (200). An unknown name is a 404.',
    handle: file,
  }),
];
