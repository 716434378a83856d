// What a page of a bulk pull says about the rest (issue 19): a Link header
// (RFC 8288) to the next and last pages while more rows exist, and the file
// name a download of it takes, naming the query and the page. A client that
// saves the bytes with curl -o, or follows Link like GitHub's API, then
// cannot mistake a page for the whole answer.

/** The canonical URL with page set to n (the page key dropped and written last). */
export function withPage(url: string, page: number): string {
  const q = url.indexOf('?');
  if (q < 0) return `${url}?page=${page}`;
  const kept = url.slice(q + 1).split('&').filter((kv) => kv !== '' && !kv.startsWith('page='));
  return `${url.slice(0, q)}?${[...kept, `page=${page}`].join('&')}`;
}

/**
 * The longest Link header sent. A query of a long govid list (600 ids, 7.8 KB a URL) would make one of
 * 16 KB and more, past what HTTP clients and proxies read by default (Node's parser 16 KB in all, nginx's
 * proxy buffer 4-8 KB): such a page carries none, and its client pages by X-Page, X-Limit and
 * X-Total-Count, as the typed client and the CLI do when Link is absent.
 */
export const LINK_MAX = 4096;

/** The Link header of page `page` (0-based) of `total` rows, `limit` a page: first, prev, next and last, as they exist; undefined for a lone page, or one longer than LINK_MAX. */
export function pageLinks(url: string, page: number, limit: number, total: number): string | undefined {
  const last = Math.max(0, Math.ceil(total / limit) - 1);
  const links: string[] = [];
  if (page > 0) links.push(`<${withPage(url, 0)}>; rel="first"`, `<${withPage(url, Math.min(page - 1, last))}>; rel="prev"`);
  if (page < last) links.push(`<${withPage(url, page + 1)}>; rel="next"`, `<${withPage(url, last)}>; rel="last"`);
  const header = links.join(', ');
  return links.length === 0 || header.length > LINK_MAX ? undefined : header;
}

/** Longest file name stem kept whole; a longer query is cut and marked with a digest of the whole. */
const STEM_MAX = 120;

/**
 * Content-Disposition of a page: attachment, named for the route and the query's values, then the page,
 * e.g. spending_state-CA_type-city_years-2019-2020_page-0.csv. Only [A-Za-z0-9._-] survive, so the name is
 * safe in any file system and needs no quoting rules beyond the plain quoted-string.
 */
export function pageFileName(route: string, url: string, page: number, ext: string, digest: (s: string) => string): string {
  const q = url.indexOf('?');
  const parts = (q < 0 ? [] : url.slice(q + 1).split('&'))
    .filter((kv) => kv !== '' && !kv.startsWith('page=') && !kv.startsWith('format='))
    .map((kv) => decodeURIComponent(kv).replace('=', '-'));
  let stem = [route, ...parts].join('_').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/-{2,}/g, '-');
  if (stem.length > STEM_MAX) stem = `${stem.slice(0, STEM_MAX)}_${digest(url).slice(0, 10)}`;
  return `attachment; filename="${stem}_page-${page}.${ext}"`;
}
