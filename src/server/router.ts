// Matches a request path against the declared routes: exact paths by map
// lookup, parametric ones by segment. Path parameter values are
// percent-decoded here so every route sees plain text.

import { apiError } from './errors.js';

export interface Match<R> {
  route: R;
  values: string[];
}

interface Pattern<R> {
  segments: (string | null)[];
  route: R;
}

export class Router<R> {
  private readonly exact = new Map<string, R>();
  private readonly patterns: Pattern<R>[] = [];

  add(path: string, route: R): void {
    const segments = path.split('/').map((s) => (s.startsWith('{') && s.endsWith('}') ? null : s));
    if (segments.every((s) => s !== null)) this.exact.set(path, route);
    else this.patterns.push({ segments, route });
  }

  /** A trailing slash is not significant: /api/v1 is /api/v1/, /governments/ is /governments. */
  match(path: string): Match<R> | undefined {
    return this.matchExact(path) ?? (path.length > 1 ? this.matchExact(path.endsWith('/') ? path.slice(0, -1) : `${path}/`) : undefined);
  }

  private matchExact(path: string): Match<R> | undefined {
    const hit = this.exact.get(path);
    if (hit !== undefined) return { route: hit, values: [] };
    const parts = path.split('/');
    for (const p of this.patterns) {
      if (p.segments.length !== parts.length) continue;
      const values: string[] = [];
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = p.segments[i];
        if (seg === null) {
          if (parts[i] === '') { ok = false; break; }
          values.push(decodeSegment(parts[i]!));
        }
        else if (seg !== parts[i]) { ok = false; break; }
      }
      if (ok) return { route: p.route, values };
    }
    return undefined;
  }
}

function decodeSegment(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    throw apiError('E_BAD_QUERY', 'badPath');
  }
}
