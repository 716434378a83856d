// `civicstream export --format parquet`: the same pages as the CSV export,
// each parsed back into typed columns (types from the route's row fields,
// columnOf, which the bulk files' worker types its columns by too) and
// streamed through parquet-wasm's writer, which gathers the pages into row
// groups of up to 2^20 rows. Parsing the API's own CSV keeps the export the
// API's rows by construction.

import type { RecordBatch } from 'parquet-wasm';
import { csvRecords } from '../../client/index.js';
import { recordBatch, writerProperties, type ColumnSpec } from '../../corpus/parquet-write.js';
import { writeParquetStream } from '../../bytes/parquet-writer.js';
import type { FieldDoc } from '../../server/route-spec.js';
import type { BulkColumn, BulkKind } from '../bulk-job.js';

/** One page of the export as CSV text (header first), or null when done. */
export type NextPage = () => Promise<string | null>;

type Kind = BulkKind;

function kindOf(f: FieldDoc | undefined): Kind {
  const t = f?.type.split('|')[0]?.trim();
  return t === 'integer' ? 'int32' : t === 'number' ? 'float64' : t === 'boolean' ? 'bool' : 'utf8';
}

/** A column's Parquet type and nullability from its row field (the bulk files' worker types its columns by these too). */
export function columnOf(name: string, f: FieldDoc | undefined): BulkColumn {
  return { name, kind: kindOf(f), nullable: f === undefined || f.type.includes('null') || f.when !== undefined };
}

/** The route's columns as the bulk-table job takes them. */
export const columnsOf = (fields: FieldDoc[]): BulkColumn[] => fields.map((f) => columnOf(f.name, f));

// CSV writes null and '' alike: a nullable string column reads '' back as null, a non-null one as ''.
function value(text: string, kind: Kind, nullable: boolean): string | number | boolean | null {
  if (kind === 'utf8') return text === '' && nullable ? null : text;
  if (text === '') return null;
  return kind === 'bool' ? text === 'true' : Number(text);
}

async function batchOf(csv: string, fields: FieldDoc[]): Promise<RecordBatch | null> {
  const stream = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(new TextEncoder().encode(csv)); c.close(); } });
  let header: string[] | null = null;
  const cells: string[][] = [];
  for await (const rec of csvRecords(stream)) {
    if (header === null) { header = rec; header.forEach(() => cells.push([])); continue; }
    rec.forEach((v, c) => cells[c]!.push(v));
  }
  if (header === null || cells[0]!.length === 0) return null;
  const byName = new Map(fields.map((f) => [f.name, f]));
  const columns = header.map((name, c): ColumnSpec => {
    const { kind, nullable } = columnOf(name, byName.get(name));
    return { name, type: kind, values: cells[c]!.map((t) => value(t, kind, nullable)) } as ColumnSpec;
  });
  return recordBatch(columns);
}

/** Writes the pages as one parquet file; resolves with the rows written, rejects when a page failed (test/write-failures.test.ts). */
export async function writeParquetPages(next: NextPage, fields: FieldDoc[], out: string): Promise<number> {
  let rows = 0;
  await writeParquetStream(async () => {
    for (;;) {
      const csv = await next();
      if (csv === null) return null;
      const b = await batchOf(csv, fields);
      if (b === null) continue;
      rows += b.numRows;
      return b;
    }
  }, writerProperties(), out);
  return rows;
}
