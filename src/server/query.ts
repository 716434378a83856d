// The one query-string parser. Strict on purpose: a key given twice is a 400
// rather than "last wins", because a batch client that sends `years` twice has
// a bug we should tell it about, not a preference we should guess.

import { apiError } from './errors.js';

const MAX_KEYS = 64;

/** The query's keys and values; listExample names, for a key that takes several values, how to give them (in the message when it is repeated). */
export function parseQueryString(raw: string, listExample?: (key: string) => string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (raw === '') return out;
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decode(eq < 0 ? part : part.slice(0, eq), 'key');
    const value = eq < 0 ? '' : decode(part.slice(eq + 1), `value of '${key}'`);
    if (key === '') throw apiError('E_BAD_QUERY', 'emptyKey');
    if (out.has(key)) {
      const example = listExample?.(key);
      throw example === undefined ? apiError('E_REPEATED_KEY', 'repeated', { key }) : apiError('E_REPEATED_KEY', 'repeatedList', { key, example });
    }
    out.set(key, value);
    if (out.size > MAX_KEYS) throw apiError('E_BAD_QUERY', 'tooManyKeys', { max: MAX_KEYS });
  }
  return out;
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
