// A small typed client for both APIs (`civicstream/client`). Parameter and
// row types come from the route tables (routes.gen.ts); get() answers one
// envelope, pages() walks every page of a paged route, csv() streams a bulk
// CSV pull record by record. A 503 or a 429 (over the client's rate limit) is
// retried after its Retry-After seconds,
// and a dropped connection with exponential backoff, a bounded number of times.

import { CSV_FIELD_TYPES, type ArrestsRoutes, type FinanceRoutes } from './routes.gen.js';

export type { ArrestsRoutes, FinanceRoutes } from './routes.gen.js';

type RouteTable = Record<string, { params: object; row: object }>;

export interface Envelope<Row> {
  status: 'success' | 'error';
  data: Row[] | null;
  error: string | null;
  meta: Record<string, unknown> & { total?: number; limit?: number; page?: number };
  provenance: Record<string, unknown> | null;
  suggestions: Record<string, unknown>[];
}

export interface ClientOptions {
  /** Attempts after the first, for a 503, a 429 or a failed connection (default 4). */
  retries?: number;
  /** First backoff for a failed connection, doubled each time (default 200 ms); a 503 or 429 waits its Retry-After instead. */
  backoffMs?: number;
  fetch?: typeof fetch;
}

/** An answer that was not a success: the status and the API's own message. */
export class CivicstreamError extends Error {
  constructor(readonly status: number, message: string, readonly envelope: Envelope<unknown> | null) {
    super(message);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class Client<R extends RouteTable> {
  private readonly base: string;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly fetch: typeof fetch;

  constructor(baseUrl: string, o: ClientOptions = {}) {
    this.base = baseUrl.replace(/\/+$/, '');
    this.retries = o.retries ?? 4;
    this.backoffMs = o.backoffMs ?? 200;
    this.fetch = o.fetch ?? globalThis.fetch;
  }

  /** The URL of a route with its parameters: path parameters filled in, the rest as the query. */
  url<P extends keyof R & string>(path: P, params: R[P]['params'] = {} as R[P]['params']): string {
    const query = new URLSearchParams();
    let p: string = path;
    for (const [k, v] of Object.entries(params as Record<string, unknown>)) {
      if (v === undefined) continue;
      if (p.includes(`{${k}}`)) p = p.replace(`{${k}}`, encodeURIComponent(String(v)));
      else query.set(k, String(v));
    }
    const qs = query.toString();
    return `${this.base}${p}${qs ? `?${qs}` : ''}`;
  }

  /** One request, retried on 503 and 429 (after Retry-After) and on a failed connection (with backoff). */
  async request(url: string): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetch(url);
      } catch (e) {
        // fetch says only "fetch failed": the error names the URL and the attempts, its cause kept.
        if (attempt >= this.retries) {
          const why = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
          throw new Error(`could not reach ${url} after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}: ${why}`, { cause: e });
        }
        await sleep(this.backoffMs * 2 ** attempt);
        continue;
      }
      if ((res.status !== 503 && res.status !== 429) || attempt >= this.retries) return res;
      // Retry-After in seconds when the server sends it (capped at a minute); otherwise the backoff.
      const header = res.headers.get('retry-after');
      const after = header === null || header.trim() === '' ? Number.NaN : Number(header);
      await res.arrayBuffer(); // free the connection
      await sleep(Number.isFinite(after) && after >= 0 ? Math.min(after, 60) * 1000 : this.backoffMs * 2 ** attempt);
    }
  }

  /** One page: the envelope, or a CivicstreamError carrying the API's message. */
  async get<P extends keyof R & string>(path: P, params?: R[P]['params']): Promise<Envelope<R[P]['row']>> {
    const res = await this.request(this.url(path, params));
    const env = (await res.json()) as Envelope<R[P]['row']>;
    if (!res.ok || env.status !== 'success') throw new CivicstreamError(res.status, env.error ?? `HTTP ${res.status}`, env as Envelope<unknown>);
    return env;
  }

  /** Every row of a paged route, page after page from the given page (default 0) until meta.total is reached. */
  async *pages<P extends keyof R & string>(path: P, params: R[P]['params'] = {} as R[P]['params']): AsyncGenerator<R[P]['row']> {
    let page = Number((params as { page?: unknown }).page ?? 0);
    for (;;) {
      const env = await this.get(path, { ...params, page } as R[P]['params']);
      const rows = env.data ?? [];
      yield* rows;
      const total = Number(env.meta.total), limit = Number(env.meta.limit);
      if (rows.length === 0 || !Number.isFinite(total) || !Number.isFinite(limit) || (page + 1) * limit >= total) return;
      page++;
    }
  }

  /**
   * A CSV pull (format=csv) as records keyed by the header, parsed as the bytes arrive, page after page: each
   * page's Link rel="next" is followed until a page has none, so every row of the query comes (X-Total-Count of them).
   */
  async *csv<P extends keyof R & string>(path: P, params: R[P]['params'] = {} as R[P]['params']): AsyncGenerator<R[P]['row']> {
    const types = CSV_FIELD_TYPES[path] ?? {};
    let url: string | null = this.url(path, { ...params, format: 'csv' } as R[P]['params']);
    while (url !== null) {
      const res = await this.request(url);
      if (!res.ok) {
        const env = (await res.json().catch(() => null)) as Envelope<unknown> | null;
        throw new CivicstreamError(res.status, env?.error ?? `HTTP ${res.status}`, env);
      }
      let header: string[] | null = null;
      for await (const record of csvRecords(res.body!)) {
        if (header === null) { header = record; continue; }
        const row: Record<string, unknown> = {};
        for (let i = 0; i < header.length; i++) row[header[i]!] = cellValue(record[i] ?? '', types[header[i]!]);
        yield row as R[P]['row'];
      }
      const next: string | null = linkTarget(res.headers.get('link'), 'next') ?? nextByCount(url, res.headers);
      url = next === null ? null : new URL(next, url).href;
    }
  }
}

/**
 * The next page's URL from the paging headers, for a page that carries no Link (the server leaves out one
 * longer than 4 KB: a long govid list); null on the last page.
 */
export function nextByCount(url: string, h: { get(name: string): string | null }): string | null {
  const total = Number(h.get('x-total-count')), page = Number(h.get('x-page')), limit = Number(h.get('x-limit'));
  if (![total, page, limit].every(Number.isFinite) || limit <= 0 || (page + 1) * limit >= total) return null;
  const u = new URL(url);
  u.searchParams.set('page', String(page + 1));
  return u.href;
}

/**
 * A CSV cell as its field's declared type: an integer or number as a number, a boolean as a boolean, an
 * empty cell null where the field may be null (CSV writes null and '' alike), else the text.
 */
export function cellValue(cell: string, type: string | undefined): unknown {
  if (type === undefined) return cell;
  const nullable = type.includes('null');
  if (cell === '') return nullable || !type.startsWith('string') ? null : '';
  if (type.startsWith('integer') || type.startsWith('number')) return Number(cell);
  if (type.startsWith('boolean')) return cell === 'true';
  return cell;
}

/** The target of a Link header's entry of relation rel (RFC 8288), or null. */
export function linkTarget(header: string | null, rel: string): string | null {
  if (header === null) return null;
  // Each entry: <target> then parameters, whose quoted values may hold commas and semicolons.
  for (const m of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,=\s]+\s*(?:=\s*(?:"[^"]*"|[^;,]*))?)*)/g)) {
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]+))/i.exec(m[2] ?? '');
    if ((rels?.[1] ?? rels?.[2] ?? '').split(/\s+/).includes(rel)) return m[1]!;
  }
  return null;
}

/** RFC 4180 records from a byte stream: quoted fields may hold commas, quotes ("") and line breaks; CRLF or LF ends a record. */
export async function* csvRecords(body: ReadableStream<Uint8Array>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder();
  let field = '', record: string[] = [], quoted = false, afterQuote = false, pending = '';
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(bytes, { stream: true });
    let i = 0;
    const s = pending;
    for (; i < s.length; i++) {
      const c = s[i]!;
      if (quoted) {
        if (c !== '"') { field += c; continue; }
        if (i + 1 >= s.length) break; // need the next character to tell "" from the closing quote
        if (s[i + 1] === '"') { field += '"'; i++; } else { quoted = false; afterQuote = true; }
        continue;
      }
      if (c === '"' && field === '' && !afterQuote) { quoted = true; continue; }
      if (c === ',') { record.push(field); field = ''; afterQuote = false; continue; }
      if (c === '\r') continue;
      if (c === '\n') { record.push(field); yield record; record = []; field = ''; afterQuote = false; continue; }
      field += c;
    }
    pending = s.slice(i);
  }
  pending += decoder.decode();
  if (pending === '"' && quoted) quoted = false;
  if (field !== '' || record.length > 0) { record.push(field); yield record; }
}

/** A client for the finance API (default port 8080). */
export const financeClient = (baseUrl = 'http://127.0.0.1:8080', o?: ClientOptions): Client<FinanceRoutes & RouteTable> => new Client(baseUrl, o);
/** A client for the school arrest-rate API (default port 8081). */
export const arrestsClient = (baseUrl = 'http://127.0.0.1:8081', o?: ClientOptions): Client<ArrestsRoutes & RouteTable> => new Client(baseUrl, o);
