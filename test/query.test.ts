import { describe, expect, it } from 'vitest';
import { parseQueryString } from '../dist/src/server/query.js';
import { Router } from '../dist/src/server/router.js';
import { ApiError } from '../dist/src/server/errors.js';

const code = (f: () => unknown): string => {
  try { f(); } catch (e) { return (e as ApiError).code; }
  return 'none';
};

describe('query string parser', () => {
  it('decodes percent-encoding and plus', () => {
    const q = parseQueryString('q=los+angeles&state=CA&pattern=%28x%29&empty=&flag');
    expect(Object.fromEntries(q)).toEqual({ q: 'los angeles', state: 'CA', pattern: '(x)', empty: '', flag: '' });
  });
  it('drops spaces and tabs around a value, and around the commas of a list key only; keeps those inside, and all of free text', () => {
    const lists = (k: string) => (k === 'years' ? '2019,2020' : undefined);
    const literal = (k: string) => k === 'q';
    const q = parseQueryString('limit=%205%09&q=+los++angeles+&years=%202019+,%092020+&note=a+,+b&blank=+++&name=+los++angeles+', lists, literal);
    expect(Object.fromEntries(q)).toEqual({ limit: '5', q: ' los  angeles ', years: '2019,2020', note: 'a , b', blank: '', name: 'los  angeles' });
  });
  it('skips empty pairs', () => {
    expect([...parseQueryString('a=1&&b=2&').keys()]).toEqual(['a', 'b']);
  });
  it('refuses a repeated key', () => {
    expect(code(() => parseQueryString('years=2019&years=2020'))).toBe('E_REPEATED_KEY');
  });
  it('refuses malformed percent-encoding and bad UTF-8', () => {
    expect(code(() => parseQueryString('q=%ZZ'))).toBe('E_BAD_QUERY');
    expect(code(() => parseQueryString('q=%C3'))).toBe('E_BAD_QUERY');
    expect(code(() => parseQueryString('%E0%A4%A=1'))).toBe('E_BAD_QUERY');
  });
  it('refuses an empty key and too many keys', () => {
    expect(code(() => parseQueryString('=1'))).toBe('E_BAD_QUERY');
    expect(code(() => parseQueryString(Array.from({ length: 70 }, (_, i) => `k${i}=1`).join('&')))).toBe('E_BAD_QUERY');
  });
});

describe('router', () => {
  const r = new Router<string>();
  r.add('/api/v1/governments', 'list');
  r.add('/api/v1/governments/{govid}', 'one');
  r.add('/api/v1/governments/{govid}/spending', 'spending');
  it('matches exact and parametric paths, decoding parameters', () => {
    expect(r.match('/api/v1/governments')).toEqual({ route: 'list', values: [] });
    expect(r.match('/api/v1/governments/0620%3A')).toEqual({ route: 'one', values: ['0620:'] });
    expect(r.match('/api/v1/governments/x/spending')?.route).toBe('spending');
    expect(r.match('/api/v1/governments/x/y')).toBeUndefined();
    expect(r.match('/api/v2/governments')).toBeUndefined();
  });
  it('refuses a path parameter with malformed encoding', () => {
    expect(code(() => r.match('/api/v1/governments/%E0%A4%A'))).toBe('E_BAD_QUERY');
  });
});
