// The one CSV writer. RFC 4180 records (CRLF line ends, fields quoted when
// they hold a quote, a comma or a line break), byte-for-byte what fast-csv's
// formatter writes with rowDelimiter "\r\n" and includeEndRowDelimiter: it
// also drops NUL characters and quotes fields holding "|" (a quirk of its
// escape pattern), so our bytes and a fast-csv consumer's expectations agree.
// Written by hand because it is about five times faster here than fast-csv's
// formatter, and because it streams from result columns without row objects.

const QUOTE_IF = /[,\r\n|]/;

export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'string' ? v : String(v);
  if (s.includes('\0')) s = s.replaceAll('\0', '');
  if (s.includes('"')) return `"${s.replaceAll('"', '""')}"`;
  return QUOTE_IF.test(s) ? `"${s}"` : s;
}

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
const CHUNK = 64 * 1024;

/** A table as named columns read by row index: what both JSON and CSV are built from. */
export interface ColumnTable {
  names: string[];
  get: ((i: number) => unknown)[];
  n: number;
  /**
   * Optional per column: the cell already as CSV text. Columns whose values
   * can never need quoting (numbers, booleans, identifiers) and columns with
   * a cache of escaped text use it to skip csvField on the hot path; the text
   * must be exactly what csvField would write.
   */
  csv?: (((i: number) => string) | undefined)[];
  /** Optional per column: the cell already as JSON text (same contract as csv). */
  json?: (((i: number) => string) | undefined)[];
}

/** A csv getter for a column whose values never need quoting: null is empty, anything else its String(). */
export const plainCsv = (get: (i: number) => unknown) => (i: number): string => {
  const v = get(i);
  return v === null || v === undefined ? '' : String(v);
};

/** A csv getter that escapes each distinct key's text once (gov names, category names). */
export function memoCsv(key: (i: number) => number, text: (k: number) => string, memo: (string | undefined)[] = []): (i: number) => string {
  return (i) => {
    const k = key(i);
    return memo[k] ??= csvField(text(k));
  };
}

/** Pulls CSV text in chunks of about 64 KB: header first, then each row. */
export function csvChunks(t: ColumnTable): () => string | null {
  let i = -1;
  const cols = t.get.length;
  const cell = t.get.map((get, c) => t.csv?.[c] ?? ((row: number) => csvField(get(row))));
  return () => {
    if (i >= t.n) return null;
    let out = '';
    if (i < 0) {
      out = `${t.names.map(csvField).join(',')}\r\n`;
      i = 0;
    }
    while (i < t.n && out.length < CHUNK) {
      let line = '';
      line = cell[0]!(i);
      for (let c = 1; c < cols; c++) line += `,${cell[c]!(i)}`;
      out += `${line}\r\n`;
      i++;
    }
    return out;
  };
}

/** The same table as JSON row objects (for the envelope), rows [start, end). */
export function rowObjects(t: ColumnTable, start = 0, end = t.n): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = start; i < Math.min(end, t.n); i++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < t.names.length; c++) row[t.names[c]!] = t.get[c]!(i);
    out.push(row);
  }
  return out;
}

/** A JSON getter for a column of plain values: numbers (null when not finite), booleans, null. */
export const plainJson = (get: (i: number) => unknown) => (i: number): string => {
  const v = get(i);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
};

/** A JSON getter that escapes each distinct key's text once. */
export function memoJson(key: (i: number) => number, text: (k: number) => string | null, memo: (string | undefined)[] = []): (i: number) => string {
  return (i) => {
    const k = key(i);
    return memo[k] ??= JSON.stringify(text(k));
  };
}

/** The table's rows [start, end) as a JSON array, written from the columns without row objects. */
export function jsonRows(t: ColumnTable, start = 0, end = t.n): string {
  const prefix = t.names.map((n, c) => `${c ? ',' : '{'}${JSON.stringify(n)}:`);
  const cell = t.get.map((get, c) => t.json?.[c] ?? ((row: number) => JSON.stringify(get(row) ?? null)));
  const cols = t.names.length;
  const parts: string[] = [];
  for (let i = start; i < Math.min(end, t.n); i++) {
    let row = '';
    for (let c = 0; c < cols; c++) row += prefix[c] + cell[c]!(i);
    parts.push(`${row}}`);
  }
  return `[${parts.join(',')}]`;
}
