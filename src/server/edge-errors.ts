// The edge between the domain and HTTP (issue 30): the domain's errors
// (src/domain-errors.ts) become the catalog's ApiError here, and only here, so
// the answers (status, code, message, headers) are the catalog's whatever
// layer refused.

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

/** Runs a handler with its domain errors, thrown or rejected, mapped to the catalog's (the pipeline's handle stage). */
export function atEdge<T>(run: () => T | Promise<T>): T | Promise<T> {
  try {
    const out = run();
    return out instanceof Promise ? out.catch((err: unknown) => { throw toApiError(err); }) : out;
  } catch (err) {
    throw toApiError(err);
  }
}
