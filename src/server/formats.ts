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
  arrow: {
    mediaType: 'application/vnd.apache.arrow.stream',
    openapiType: 'application/vnd.apache.arrow.stream',
    description: 'An Arrow IPC stream: the same rows as CSV in typed columns (integers int32, amounts float64, nulls as nulls, repeated words dictionary-encoded), record batches of 8,192 rows; the paging in the same headers; the provenance in the schema\'s key-value metadata.',
    paramText: 'arrow (an Arrow IPC stream, typed columns, provenance in the schema metadata)',
  },
  parquet: {
    mediaType: 'application/vnd.apache.parquet',
    openapiType: 'application/vnd.apache.parquet',
    description: "A Parquet file: the same rows and types as Arrow in one row group (Snappy, dictionary pages); the paging in the same headers; the provenance in the footer's key-value metadata.",
    paramText: 'parquet (a Parquet file, typed columns, provenance in the footer metadata)',
  },
  html: {
    mediaType: 'text/html; charset=utf-8',
    openapiType: 'text/html',
    description: 'A page for people: the same content laid out to read in a browser, with links and anchors.',
    paramText: 'html (a page for people: what a browser gets, its Accept preferring text/html)',
  },
} as const satisfies Record<string, FormatInfo>;

export type Format = keyof typeof FORMATS;

/** What an envelope route answers in when it declares nothing else. */
export const JSON_ONLY: readonly Format[] = ['json'];

/** Formats written as a bulk page (a worker's page slot, X-Total-Count, Link, Content-Disposition): all but the envelope. */
export const BULK_FORMATS: readonly Format[] = ['csv', 'arrow', 'parquet'];

interface Ranged { type: string; sub: string; q: number; order: number }

/** Accept's media ranges with their q-values (RFC 9110 12.5.1); an element that does not parse is ignored. */
function mediaRanges(accept: string): Ranged[] {
  const out: Ranged[] = [];
  accept.split(',').forEach((part, order) => {
    const [range, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const m = /^([a-z0-9!#$&^_.+*-]+)\/([a-z0-9!#$&^_.+*-]+)$/.exec(range ?? '');
    if (m === null || (m[1] === '*' && m[2] !== '*')) return;
    let q = 1;
    for (const p of params) {
      if (!p.startsWith('q=')) continue;
      // RFC 9110's qvalue: 0 to 1, at most three decimals. An element with any other q is not read at all.
      const qm = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.exec(p);
      if (qm === null) return;
      q = Number(qm[1]);
    }
    out.push({ type: m[1]!, sub: m[2]!, q, order });
  });
  return out;
}

/** How specifically a range names a media type: -1 when it does not match it. */
function matchLevel(r: Ranged, mediaType: string): number {
  const [type, sub] = mediaType.split('/') as [string, string];
  if (r.type === type && r.sub === sub) return 2;
  if (r.type === type && r.sub === '*') return 1;
  return r.type === '*' ? 0 : -1;
}

/**
 * The format an Accept header picks among a route's formats, when its query names none: the highest q
 * (the most specific range deciding a format's q), ties to the route's order, so a wildcard keeps the
 * default. undefined: no preference (absent, empty, or nothing that parses); null: every format refused.
 */
export function formatFromAccept(accept: string, formats: readonly Format[]): Format | null | undefined {
  if (accept.trim() === '') return undefined;
  // Clients send a handful of distinct headers (a browser's, */*), each thousands of times: the choice is
  // remembered per route's format list and header, as negotiate() remembers a coding (encoding.ts).
  let byHeader = picked.get(formats);
  if (byHeader === undefined) picked.set(formats, (byHeader = new Map()));
  if (byHeader.has(accept)) return byHeader.get(accept);
  const choice = pick(accept, formats);
  if (byHeader.size >= PICKS_KEPT) byHeader.clear();
  byHeader.set(accept, choice);
  return choice;
}

/** Headers whose choice is remembered per format list (each at most 16 KB long, so a few MB at worst). */
const PICKS_KEPT = 256;
const picked = new WeakMap<readonly Format[], Map<string, Format | null | undefined>>();

function pick(accept: string, formats: readonly Format[]): Format | null | undefined {
  const ranges = mediaRanges(accept);
  if (ranges.length === 0) return undefined;
  let best: Format | null = null, bestQ = 0;
  for (const f of formats) {
    let level = -1, q = 0;
    for (const r of ranges) {
      const l = matchLevel(r, FORMATS[f].openapiType);
      if (l > level) { level = l; q = r.q; }
    }
    if (q > bestQ) { best = f; bestQ = q; }
  }
  return best;
}
