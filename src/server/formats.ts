// Content negotiation over the format registry (src/formats/registry.ts,
// which holds each format's media type, extension, compression flag, docs
// text and writer, and imports no HTTP code): a route's default formats, and
// the format an Accept header picks among a route's.

import { FORMATS, PAGE_FORMATS, type Format } from '../formats/registry.js';

export { FORMATS, FORMAT_IDS, PAGE_FORMATS, isPageFormat, namesOf, type Format, type FormatEntry, type PageFormat } from '../formats/registry.js';

/** What an envelope route answers in when it declares nothing else. */
export const JSON_ONLY: readonly Format[] = ['json'];

/** What a route answering rows offers: the envelope (the default), then every page format, in the registry's order. */
export const ROW_FORMATS = ['json', ...PAGE_FORMATS] as const;

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
