// Each item code's first and last year among non-aggregate rows of the loaded
// corpus: run once at start-up so coverage windows are measured, never
// hard-coded. One pass over the row columns.

import { FLAG_AGGREGATE } from '../../src/finance/columns.js';
import type { CodeYearsArgs, CodeYearsResult } from '../../src/finance/job-io.js';
import type { FinanceView } from './corpus.js';

export function codeYears(c: FinanceView, { nCodes }: CodeYearsArgs): CodeYearsResult {
  const min = new Uint16Array(nCodes).fill(0xffff), max = new Uint16Array(nCodes);
  for (let g = 0; g < c.nGroups; g++) {
    const year = c.gYear[g]!;
    for (let r = c.gStart[g]!, e = c.gStart[g + 1]!; r < e; r++) {
      if (c.flags[r]! & FLAG_AGGREGATE) continue;
      const code = c.code[r]!;
      if (year < min[code]!) min[code] = year;
      if (year > max[code]!) max[code] = year;
    }
  }
  return { min, max };
}
