// The frame of the server's own pages for people (the landing page, the data
// dictionary): one escape function, one header of links shared with the
// explorers, one banner while a mirror is synthetic. No script: the pages
// are text, styled by /explore/pages.css, under the explorers' CSP.

import { PAGE_HEADERS } from '../explore.js';
import { FORMATS } from '../formats.js';

/** Text made safe inside HTML elements and double-quoted attributes. */
export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The links every page of a service carries, in this order. */
export const NAV: readonly [string, string][] = [
  ['Home', '/'], ['Explorer', '/explore/'], ['API docs', '/__docs__/'], ['Data dictionary', '/api/v1/data-dictionary'], ['Examples', '/api/v1/examples'], ['llms.txt', '/api/v1/llms.txt'],
];

export const SYNTHETIC_BANNER = 'Synthetic data: this mirror was generated in the real layout; it describes no real district, and its numbers must not be reported.';

export interface PageParts {
  title: string;
  /** The service's name in the header. */
  service: string;
  /** Shown on every page while the mirror is synthetic. */
  synthetic: boolean;
  /** The page's main content, already HTML. */
  main: string;
}

export function htmlPage(p: PageParts): string {
  const nav = NAV.map(([label, href]) => `<a href="${href}">${esc(label)}</a>`).join('');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(p.title)}</title>`,
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/explore/pages.css"></head>',
    '<body>',
    `<header class="site"><a class="brand" href="/">civicstream</a><span class="service">${esc(p.service)}</span><nav>${nav}</nav></header>`,
    p.synthetic ? `<div class="banner synthetic" role="note">${esc(SYNTHETIC_BANNER)}</div>` : '',
    `<main>${p.main}</main>`,
    '</body></html>',
  ].join('\n');
}

/** A body of HTML with the pages' headers (the explorers' CSP, the Referrer-Policy). */
export function htmlReply(body: string): { kind: 'body'; contentType: string; body: string; headers: Record<string, string> } {
  return { kind: 'body', contentType: FORMATS.html.mediaType, body, headers: { ...PAGE_HEADERS } };
}
