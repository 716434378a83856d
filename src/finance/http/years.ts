// The one parser of `years` (and of the singular `year` where a route takes
// it). Forms: 2019 | 2019,2020 | 2000-2010 | 2000-2010,2022. A bare year must
// be a published year; a range needs only its endpoints inside the published
// span and resolves to the published years it holds.

import { apiError } from '../../server/errors.js';

export interface YearSet {
  years: number[];
  minYear: number;
  maxYear: number;
  holes: number[];
}

const YEAR = /^\d{4}$/;
const RANGE = /^(\d{4})-(\d{4})$/;

export function parseYears(raw: string, set: YearSet): number[] {
  const span = `${set.minYear}-${set.maxYear}`;
  const published = new Set(set.years);
  const out = new Set<number>();
  const tokens = raw.split(',').map((t) => t.trim());
  if (raw.trim() === '' || tokens.some((t) => t === '')) throw apiError('E_YEAR_FORMAT', 'fourDigits', { span });
  const inSpan = (y: number): void => {
    if (y < set.minYear || y > set.maxYear) throw apiError('E_YEAR_RANGE', 'outside', { span });
  };
  for (const t of tokens) {
    const range = RANGE.exec(t);
    if (YEAR.test(t)) {
      const y = Number(t);
      inSpan(y);
      if (!published.has(y)) throw apiError('E_YEAR_HOLE', 'noData', { year: y, span, holes: set.holes.join(', ') });
      out.add(y);
    } else if (range) {
      const a = Number(range[1]), b = Number(range[2]);
      inSpan(a);
      inSpan(b);
      if (a > b) throw apiError('E_BAD_VALUE', 'yearBackwards', { range: t, last: b, first: a });
      const held = set.years.filter((y) => y >= a && y <= b);
      if (held.length === 0) {
        throw apiError('E_YEAR_EMPTY_RANGE', 'empty', { range: t, span, holes: set.holes.join(', ') });
      }
      for (const y of held) out.add(y);
    } else {
      throw apiError('E_YEAR_FORMAT', 'fourDigits', { span });
    }
  }
  return [...out].sort((x, y) => x - y);
}
