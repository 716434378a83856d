// /explore/: a small page per service (explore/*.html and *.js at the project
// root, plain browser code with a hand-drawn SVG chart, no library and no
// CDN), served from memory under a fixed list of paths like the docs UI.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config.js';
import type { Asset } from './http.js';

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export function exploreAssets(service: 'finance' | 'arrests'): Map<string, Asset> {
  const file = (name: string): string => readFileSync(path.join(PROJECT_ROOT, 'explore', name), 'utf8');
  const page: Asset = { contentType: 'text/html; charset=utf-8', body: file(`${service}.html`), headers: { 'Content-Security-Policy': CSP } };
  const js = (name: string): Asset => ({ contentType: 'text/javascript; charset=utf-8', body: file(name) });
  return new Map<string, Asset>([
    ['/explore/', page],
    ['/explore', page],
    ['/explore/index.html', page],
    ['/explore/style.css', { contentType: 'text/css; charset=utf-8', body: file('style.css') }],
    ['/explore/chart.js', js('chart.js')],
    ['/explore/search.js', js('search.js')],
    [`/explore/${service}.js`, js(`${service}.js`)],
  ]);
}
