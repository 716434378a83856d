// `civicstream export --format parquet`: the same pages as the CSV export,
// each parsed back into typed Arrow columns (types from the route's row
// fields) and streamed through parquet-wasm's writer, one row group a page.

import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { Bool, Float64, Int32, Table as ArrowTable, Utf8, tableToIPC, vectorFromArray, type DataType, type Vector } from 'apache-arrow';
import { Table as WasmTable, transformParquetStream, type RecordBatch } from 'parquet-wasm';
import { csvRecords } from '../client/index.js';
import type { FieldDoc } from '../server/route-spec.js';

/** One page of the export as CSV text (header first), or null when done. */
export type NextPage = () => Promise<string | null>;

function arrowType(f: FieldDoc | undefined): DataType {
  const t = f?.type.split('|')[0]?.trim();
  return t === 'integer' ? new Int32() : t === 'number' ? new Float64() : t === 'boolean' ? new Bool() : new Utf8();
}

function parse(text: string, type: DataType, nullable: boolean): unknown {
  if (type instanceof Utf8) return text === '' && nullable ? null : text;
  if (text === '') return null;
  if (type instanceof Bool) return text === 'true';
  return Number(text);
}

async function batchOf(csv: string, fields: FieldDoc[]): Promise<RecordBatch | null> {
  const stream = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(new TextEncoder().encode(csv)); c.close(); } });
  let header: string[] | null = null;
  const columns: unknown[][] = [];
  for await (const rec of csvRecords(stream)) {
    if (header === null) { header = rec; header.forEach(() => columns.push([])); continue; }
    rec.forEach((v, c) => columns[c]!.push(v));
  }
  if (header === null || columns[0]!.length === 0) return null;
  const byName = new Map(fields.map((f) => [f.name, f]));
  const vectors: Record<string, Vector> = {};
  header.forEach((name, c) => {
    const f = byName.get(name);
    const type = arrowType(f);
    const nullable = f === undefined || f.type.includes('null') || f.when !== undefined;
    vectors[name] = vectorFromArray(columns[c]!.map((v) => parse(v as string, type, nullable)), type);
  });
  const table = new ArrowTable(vectors);
  return WasmTable.fromIPCStream(tableToIPC(table, 'stream')).recordBatch(0) ?? null;
}

/** Writes the pages as one parquet file; resolves with the rows written. */
export async function writeParquetPages(next: NextPage, fields: FieldDoc[], out: string): Promise<number> {
  let rows = 0;
  const batches = new ReadableStream<RecordBatch>({
    async pull(controller) {
      for (;;) {
        const csv = await next();
        if (csv === null) { controller.close(); return; }
        const b = await batchOf(csv, fields);
        if (b === null) continue;
        rows += b.numRows;
        controller.enqueue(b);
        return;
      }
    },
  });
  const bytes = await transformParquetStream(batches);
  await bytes.pipeTo(Writable.toWeb(createWriteStream(out)) as WritableStream);
  return rows;
}
