// The one query-string parser. Strict on purpose: a key given twice is a 400
// rather than "last wins", because a batch client that sends `years` twice has
// a bug we should tell it about, not a preference we should guess. Lenient on
// spaces, in one place: spaces and tabs around a value (and around each item of
// a key that takes a list) are dropped here, so every parameter reads
// `limit=%205` as `years=2019,%202020` was always read, and the spellings with
// and without them are one canonical request (one ETag, one cache entry). Free
// text (q, pattern: a literal substring) is taken as sent, its spaces included.

import { apiError } from './errors.js';

const MAX_KEYS = 64;

/**
 * The query's keys and values; listExample names, for a key that takes several values, how to give them (in the
 * message when it is repeated); literal says which keys are free text, kept as sent.
 */
export function parseQueryString(raw: string, listExample?: (key: string) => string | undefined, literal?: (key: string) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  if (raw === '') return out;
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decode(eq < 0 ? part : part.slice(0, eq), 'key');
    const value = eq < 0 ? '' : decode(part.slice(eq + 1), `value of '${key}'`);
    if (key === '') throw apiError('E_BAD_QUERY', 'emptyKey');
    const example = listExample?.(key);
    if (out.has(key)) {
      throw example === undefined ? apiError('E_REPEATED_KEY', 'repeated', { key }) : apiError('E_REPEATED_KEY', 'repeatedList', { key, example });
    }
    out.set(key, literal?.(key) === true ? value : unspaced(value, example !== undefined));
    if (out.size > MAX_KEYS) throw apiError('E_BAD_QUERY', 'tooManyKeys', { max: MAX_KEYS });
  }
  return out;
}

const EDGE_SPACES = /^[ \t]+|[ \t]+$/g;
const ITEM_SPACES = /[ \t]*,[ \t]*/g;

/** A value without the spaces and tabs around it, and a list's without those around each comma. */
function unspaced(value: string, list: boolean): string {
  // Most values have none: the test costs less than the replaces.
  if (!value.includes(' ') && !value.includes('\t')) return value;
  const v = value.replace(EDGE_SPACES, '');
  return list ? v.replace(ITEM_SPACES, ',') : v;
}

function decode(s: string, what: string): string {
  const plus = s.includes('+') ? s.replaceAll('+', ' ') : s;
  if (!plus.includes('%')) return plus;
  try {
    return decodeURIComponent(plus);
  } catch {
    throw apiError('E_BAD_QUERY', 'badEncoding', { what: what.length > 60 ? 'text' : what });
  }
}
