// The formats an envelope route may answer in, one entry each: the media type
// the render stage sends and OpenAPI lists, and the text of the `format`
// parameter. It imports nothing, so the route declarations, the render stage
// and the docs can all read it. A new format (Arrow, Parquet) is an entry
// here, a renderer in render.ts, and a route that lists it in `formats`.

export interface FormatInfo {
  /** Content-Type of the answer. */
  mediaType: string;
  /** The media type without parameters, as OpenAPI keys its content. */
  openapiType: string;
  /** What an answer in this format holds, for the docs. */
  description: string;
  /** This format's phrase in the `format` parameter's description. */
  paramText: string;
}

export const FORMATS = {
  json: {
    mediaType: 'application/json; charset=utf-8',
    openapiType: 'application/json',
    description: 'The JSON envelope: status, data (the rows), error, meta, provenance, suggestions.',
    paramText: 'json (the envelope, default)',
  },
  csv: {
    mediaType: 'text/csv; charset=utf-8',
    openapiType: 'text/csv',
    description: 'RFC 4180 CSV: a header line, then one line per row; the paging in X-Total-Count, X-Page and X-Limit; no provenance.',
    paramText: 'csv (header then rows; metadata in X-Total-Count, X-Page, X-Limit; no provenance)',
  },
} as const satisfies Record<string, FormatInfo>;

export type Format = keyof typeof FORMATS;

/** What an envelope route answers in when it declares nothing else. */
export const JSON_ONLY: readonly Format[] = ['json'];
