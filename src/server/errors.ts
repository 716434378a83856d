// The one error type of both services. Every client-visible failure is an
// ApiError built from this catalog, so the messages the specs fix live in one
// place and the OpenAPI document and the docs can list them.

export interface ErrorEntry {
  status: number;
  summary: string;
  /** Headers every answer of this code carries. */
  headers?: Readonly<Record<string, string>>;
  /** The connection is closed after the answer, and no request after it on the connection is answered. */
  close?: true;
}

/** The methods this read-only API serves: the Allow of a 405 and the CORS preflight's list. */
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

export const ERROR_CATALOG = {
  E_NOT_FOUND: { status: 404, summary: 'No route at this path.' },
  E_METHOD: { status: 405, summary: 'The API is read-only: only GET and HEAD (and OPTIONS for CORS) are served.', headers: { Allow: ALLOWED_METHODS } },
  E_UNKNOWN_KEY: { status: 400, summary: 'A query key the route does not accept; the message lists the accepted keys.' },
  E_REPEATED_KEY: { status: 400, summary: 'A query key given more than once.' },
  E_BAD_QUERY: { status: 400, summary: 'A query string that cannot be decoded (bad percent-encoding or UTF-8).' },
  E_BAD_VALUE: { status: 400, summary: 'A value outside what the parameter allows; the message names the parameter and the allowed values.' },
  E_MISSING: { status: 400, summary: 'A required parameter is missing.' },
  E_LIMIT_CAP: { status: 400, summary: 'limit above the cap of the route; it is never clamped.' },
  E_GOVID_FORMAT: { status: 400, summary: 'A govid that is not a 12-digit canonical_govid.' },
  E_GOVID_UNKNOWN: { status: 400, summary: 'A well-formed govid that is not in the registry.' },
  E_YEAR_FORMAT: { status: 400, summary: 'A year that is not a four-digit number.' },
  E_YEAR_RANGE: { status: 400, summary: 'A year outside the published range.' },
  E_YEAR_HOLE: { status: 400, summary: 'A year inside the published range with no source data.' },
  E_YEAR_EMPTY_RANGE: { status: 400, summary: 'A range of years holding no published year.' },
  E_CONFLICT: { status: 400, summary: 'Parameters that cannot be used together.' },
  E_NOT_IN_CORPUS: { status: 400, summary: 'A well-formed request that needs a table this corpus does not publish (its schema_version predates it); the message names what is missing.' },
  E_NOT_ACCEPTABLE: { status: 406, summary: 'Accept-Encoding refuses every content coding offered, identity included; or Accept refuses every format a route answers in.' },
  E_RANGE_NOT_SATISFIABLE: { status: 416, summary: 'A Range on a bulk file that starts past its end (or asks for its last 0 bytes); Content-Range: bytes */<size> gives the size.' },
  E_URI_TOO_LONG: { status: 414, summary: 'A URL longer than 8,192 characters.' },
  E_BAD_FRAMING: { status: 400, summary: 'Content-Length given twice (or as a list) with different values: where the body ends, and so where the next request begins, cannot be known. The connection is closed after the answer (RFC 9112 6.3).', close: true },
  E_HEADERS_TOO_LARGE: { status: 431, summary: 'Request headers larger than 16,384 bytes in all.' },
  E_RATE_LIMITED: { status: 429, summary: 'Over the client\'s rate limit (RATE_LIMIT, RATE_LIMIT_BURST); retry after the Retry-After seconds. RateLimit-Policy and RateLimit say the limit and what is left.' },
  E_BUSY: { status: 503, summary: 'The server is at capacity or shutting down; retry after the Retry-After seconds.', headers: { 'Retry-After': '1' } },
  E_TIMEOUT: { status: 504, summary: 'The request exceeded its time budget (REQUEST_TIMEOUT_MS) and its job was cancelled.' },
  E_INTERNAL: { status: 500, summary: 'An unexpected fault; the request id is logged.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export class ApiError extends Error {
  readonly status: number;
  constructor(readonly code: ErrorCode, message: string) {
    super(message);
    this.status = ERROR_CATALOG[code].status;
  }
}

export const apiError = (code: ErrorCode, message: string): ApiError => new ApiError(code, message);

/** Lists a set of values the way every message of both services does. */
export const listValues = (values: readonly (string | number)[]): string => values.join(', ');
