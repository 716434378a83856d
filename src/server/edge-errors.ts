// The edge between the domain and HTTP (issue 30): the domain's errors
// (src/domain-errors.ts) become the catalog's ApiError here, and only here, so
// the answers (status, code, message, headers) are the catalog's whatever
// layer refused. The pipeline calls toApiError where an error becomes an answer
// (its catch and its error stage), so an answer that succeeds pays nothing for it.

import { BusyError, PeerRefusal } from '../domain-errors.js';
import { apiError } from './errors.js';

/** A domain error as the catalog's ApiError; anything else unchanged. */
export function toApiError(err: unknown): unknown {
  if (err instanceof BusyError) {
    return err.resource === 'jobs'
      ? apiError('E_BUSY', 'capacity', { jobs: err.count })
      : apiError('E_BUSY', 'pageStreams', { total: err.count });
  }
  if (err instanceof PeerRefusal) {
    const r = err.refusal;
    switch (r[0]) {
      case 'censusYear': return apiError('E_BAD_VALUE', 'censusYear', r[1]);
      case 'censusNoPopulation': return apiError('E_BAD_VALUE', 'censusNoPopulation', r[1]);
      case 'noPopulation': return apiError('E_BAD_VALUE', 'noPopulation', r[1]);
      case 'noPopulationIn': return apiError('E_BAD_VALUE', 'noPopulationIn', r[1]);
    }
  }
  return err;
}
