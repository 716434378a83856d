// The formats civicstream answers in, one entry each (issue 30): the media
// type sent and the one OpenAPI keys its content by, the file extension of a
// page's name, whether the wire may compress it, the docs' words for it, and
// for a page format the writer of its bytes. It imports no HTTP code, so the
// workers' page job writes a page through it, and the HTTP layer reads it to
// negotiate (src/server/formats.ts), render, compress, count (/metrics) and
// document (OpenAPI, the `format` parameter). A new format is an entry here
// and its writer; a route offers it by listing it in `formats`, and a page
// format is on every route that offers the page formats (PAGE_FORMATS).

import { arrowBytes } from '../bytes/arrow-writer.js';
import type { ColumnTable } from '../bytes/column-table.js';
import { csvBytes } from '../bytes/csv-writer.js';
import { parquetBytes } from '../bytes/parquet-writer.js';

/** Key-value metadata a page's bytes carry (its provenance), where the format has a place for it. */
export type PageMeta = [string, string][];

/**
 * A page's bytes from its table. `into` is a page slot to write into, or the capacity of a fresh buffer;
 * a writer that fills it (inPlace) grows out of it when full, and the result's buffer says where the bytes
 * are. A writer whose bytes a library builds ignores it.
 */
export type PageWriter = (table: ColumnTable, meta: PageMeta, into: Uint8Array | number) => Uint8Array;

export interface FormatEntry {
  id: string;
  /** Its name in the docs' prose. */
  name: string;
  /** Content-Type of the answer. */
  mediaType: string;
  /** The media type without parameters, as OpenAPI keys its content and Accept names it. */
  openapiType: string;
  /** The extension of a file of this format (a page's Content-Disposition), without the dot. */
  extension: string;
  /** Whether an answer in it is worth a content coding: Parquet compresses its own pages. */
  compressible: boolean;
  /** What an answer in this format holds, for the docs. */
  description: string;
  /** This format's phrase in the `format` parameter's description. */
  paramText: string;
  /**
   * The writer of a page in this format (the rows of a table), or null: the envelope (json) and the page
   * for people (html) are answered by the render stage, not written from a table.
   */
  write: PageWriter | null;
  /** True when write fills the slot it is given itself; false when its bytes are built apart and copied in. */
  inPlace: boolean;
  /** Whether the bytes carry the page's metadata (false: it is not worked out for this format). */
  carriesMeta: boolean;
}

/** CSV is written straight into the page slot, row by row (csv-writer.ts); it has no place for metadata. */
const csvPage: PageWriter = (table, _meta, into) => csvBytes(table, into);

export const FORMATS = {
  json: {
    id: 'json',
    name: 'JSON',
    mediaType: 'application/json; charset=utf-8',
    openapiType: 'application/json',
    extension: 'json',
    compressible: true,
    description: 'The JSON envelope: status, data (the rows), error, meta, provenance, suggestions.',
    paramText: 'json (the envelope, default)',
    write: null, inPlace: false, carriesMeta: false,
  },
  csv: {
    id: 'csv',
    name: 'CSV',
    mediaType: 'text/csv; charset=utf-8',
    openapiType: 'text/csv',
    extension: 'csv',
    compressible: true,
    description: 'RFC 4180 CSV: a header line, then one line per row; the paging in X-Total-Count, X-Page and X-Limit; no provenance.',
    paramText: 'csv (header then rows; metadata in X-Total-Count, X-Page, X-Limit; no provenance)',
    write: csvPage, inPlace: true, carriesMeta: false,
  },
  arrow: {
    id: 'arrow',
    name: 'Arrow',
    mediaType: 'application/vnd.apache.arrow.stream',
    openapiType: 'application/vnd.apache.arrow.stream',
    extension: 'arrow',
    compressible: true,
    description: 'An Arrow IPC stream: the same rows as CSV in typed columns (integers int32, amounts float64, nulls as nulls, repeated words dictionary-encoded), record batches of 8,192 rows; the paging in the same headers; the provenance in the schema\'s key-value metadata.',
    paramText: 'arrow (an Arrow IPC stream, typed columns, provenance in the schema metadata)',
    write: arrowBytes, inPlace: false, carriesMeta: true,
  },
  parquet: {
    id: 'parquet',
    name: 'Parquet',
    mediaType: 'application/vnd.apache.parquet',
    openapiType: 'application/vnd.apache.parquet',
    extension: 'parquet',
    compressible: false,
    description: "A Parquet file: the same rows and types as Arrow in one row group (zstd, dictionary pages); the paging in the same headers; the provenance in the footer's key-value metadata.",
    paramText: 'parquet (a Parquet file, typed columns, provenance in the footer metadata)',
    write: parquetBytes, inPlace: false, carriesMeta: true,
  },
  html: {
    id: 'html',
    name: 'HTML',
    mediaType: 'text/html; charset=utf-8',
    openapiType: 'text/html',
    extension: 'html',
    compressible: true,
    description: 'A page for people: the same content laid out to read in a browser, with links and anchors.',
    paramText: 'html (a page for people: what a browser gets, its Accept preferring text/html)',
    write: null, inPlace: false, carriesMeta: false,
  },
} as const satisfies Record<string, FormatEntry>;

export type Format = keyof typeof FORMATS;

/** Every format, in the registry's order. */
export const FORMAT_IDS = Object.keys(FORMATS) as Format[];

/** The formats written from a table as a page (a worker's page slot, X-Total-Count, Link, Content-Disposition). */
export type PageFormat = { [K in Format]: (typeof FORMATS)[K]['write'] extends null ? never : K }[Format];

export const isPageFormat = (f: Format | undefined): f is PageFormat => f !== undefined && FORMATS[f].write !== null;

/** The page formats, in the registry's order: what a route answering pages offers after json. */
export const PAGE_FORMATS: readonly PageFormat[] = FORMAT_IDS.filter(isPageFormat);

/** Names in the docs' prose: 'CSV or Arrow', 'CSV, Arrow or Parquet'. */
export const namesOf = (formats: readonly Format[], last = 'or'): string => {
  const names = formats.map((f) => FORMATS[f].name);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} ${last} ${names.at(-1)!}`;
};

/** A page format's entry, its writer present. */
export const pageFormat = (f: PageFormat): FormatEntry & { write: PageWriter } => FORMATS[f];
