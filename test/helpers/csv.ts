// Parses CSV with fast-csv's parser, and renders JSON rows the way CSV cells read.

import { parseString } from 'fast-csv';

export function parseCsv(text: string): Promise<string[][]> {
  return new Promise((resolve, reject) => {
    const rows: string[][] = [];
    parseString(text, { headers: false })
      .on('data', (r: string[]) => rows.push(r))
      .on('error', reject)
      .on('end', () => resolve(rows));
  });
}

export const asCell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
