// The domain's errors (src/domain-errors.ts) become the catalog's answers at
// the edge (src/server/edge-errors.ts, called by the pipeline's error stage), with the
// very messages the pool and the page slots gave before the domain stopped
// importing the HTTP layer (issue 30). The expected codes, statuses and
// messages are literals; the pool's message over HTTP (a rejected
// handler, mapped by the pipeline) is also pinned by overload.test.ts, the page slots' 503 by finance-csv-slots.test.ts.

import { describe, expect, it } from 'vitest';
import { BusyError, PeerRefusal } from '../dist/src/domain-errors.js';
import { ApiError } from '../dist/src/server/errors.js';
import { toApiError } from '../dist/src/server/edge-errors.js';

const answer = (err: unknown) => (err instanceof ApiError ? { status: err.status, code: err.code, message: err.message } : err);

describe('domain errors at the edge', () => {
  it('a full pool is a 503 E_BUSY naming the jobs outstanding', () => {
    expect(answer(toApiError(new BusyError('jobs', 12)))).toEqual({
      status: 503, code: 'E_BUSY', message: 'The server is at capacity (12 jobs running or waiting); retry after the Retry-After seconds.',
    });
  });

  it('every page slot held is a 503 E_BUSY naming the slots', () => {
    expect(answer(toApiError(new BusyError('page-slots', 4)))).toEqual({
      status: 503, code: 'E_BUSY', message: 'Every bulk stream of this server (CSV, Arrow or Parquet; 4) is in use; retry after the Retry-After seconds, or pull with fewer connections at once.',
    });
  });

  it('a peer search refused is a 400 E_BAD_VALUE with the figures it names', () => {
    expect(answer(toApiError(new PeerRefusal(['noPopulationIn', { govid: '062037161174', year: 2011, years: '2019, 2020' }])))).toEqual({
      status: 400, code: 'E_BAD_VALUE', message: '062037161174 has no population in 2011; choose a year in which it reported (2019, 2020).',
    });
    expect(answer(toApiError(new PeerRefusal(['noPopulation', { govid: '062037161174' }])))).toEqual({
      status: 400, code: 'E_BAD_VALUE', message: '062037161174 has no population in any loaded year, so it has no peers by population.',
    });
    expect(answer(toApiError(new PeerRefusal(['censusYear', { year: 2019, window: 'W.' }])))).toEqual({
      status: 400, code: 'E_BAD_VALUE', message: 'coverage=census needs a census year (a year ending in 2 or 7); year 2019 is not one. W.',
    });
    expect(answer(toApiError(new PeerRefusal(['censusNoPopulation', { govid: '062037161174', window: 'W.' }])))).toEqual({
      status: 400, code: 'E_BAD_VALUE', message: 'coverage=census found no census year with a population for 062037161174. W.',
    });
  });

  it('anything else passes unchanged', () => {
    const plain = new Error('boom');
    expect(toApiError(plain)).toBe(plain);
  });
});
