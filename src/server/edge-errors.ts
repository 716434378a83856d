// The edge between the domain and HTTP (issue 30): the domain's errors
// (src/domain-errors.ts) become the catalog's ApiError here, and only here, so
// the answers (status, code, message, headers) are the catalog's whatever
// layer refused. The pipeline calls toApiError where an error becomes an answer
// (its catch and its error stage), so an answer that succeeds pays nothing for it.

import { BusyError } from '../domain-errors.js';
import { apiError } from './errors.js';

/** A domain error as the catalog's ApiError; anything else unchanged. */
export function toApiError(err: unknown): unknown {
  if (err instanceof BusyError) {
    return err.resource === 'jobs'
      ? apiError('E_BUSY', 'capacity', { jobs: err.count })
      : apiError('E_BUSY', 'pageStreams', { total: err.count });
  }
  return err;
}
