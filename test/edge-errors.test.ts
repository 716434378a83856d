// The domain's errors (src/domain-errors.ts) become the catalog's answers at
// the edge (src/server/edge-errors.ts, called by the pipeline's error stage), with the
// very messages the pool and the page slots gave before the domain stopped
// importing the HTTP layer (issue 30). The expected codes, statuses and
// messages are literals; the pool's message over HTTP (a rejected
// handler, mapped by the pipeline) is also pinned by overload.test.ts, the page slots' 503 by finance-csv-slots.test.ts.

import { describe, expect, it } from 'vitest';
import { BusyError } from '../dist/src/domain-errors.js';
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

  it('anything else passes unchanged', () => {
    const plain = new Error('boom');
    expect(toApiError(plain)).toBe(plain);
  });
});
