// /explore/: the explorer pages of each service, served from memory under a
// fixed list of paths like the docs UI. The pages are plain browser modules
// (explore/ at the project root); they draw with Observable Plot over d3 and
// the Census's boundaries from us-atlas, all three served from this host
// (no CDN): the vendor files from node_modules, the boundaries cut per state
// (src/geo/topology.ts) so a state map loads its own counties only.

import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../config.js';
import { atlas, countiesByState } from '../geo/topology.js';
import type { Asset } from './http.js';

export type ExploreService = 'finance' | 'arrests';
const SERVICES: readonly ExploreService[] = ['finance', 'arrests'];

// Plot styles each chart with a <style> element of its own: style-src allows inline styles, scripts stay 'self' only.
export const PAGE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
// A page's address (a dictionary anchor, an explorer's state in its query) goes to this host only: a link to another site carries no Referer.
export const REFERRER_POLICY = 'same-origin';
/** The headers of every HTML page: the docs, the explorers, the landing page and the dictionary. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = { 'Content-Security-Policy': PAGE_CSP, 'Referrer-Policy': REFERRER_POLICY };

const JS = 'text/javascript; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

/** The libraries the pages load, by the path they are served at (files of node_modules: d3's and Plot's exports map hides dist/ from require.resolve). */
const VENDOR: Record<string, string> = {
  '/explore/vendor/d3.min.js': 'd3/dist/d3.min.js',
  '/explore/vendor/plot.min.js': '@observablehq/plot/dist/plot.umd.min.js',
  '/explore/vendor/topojson-client.min.js': 'topojson-client/dist/topojson-client.min.js',
};

const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1d3557"/>'
  + '<rect x="6" y="17" width="5" height="9" fill="#a8dadc"/><rect x="13.5" y="11" width="5" height="15" fill="#f1faee"/><rect x="21" y="6" width="5" height="20" fill="#e63946"/></svg>';

/** The boundaries both services' maps read: the states, and each state's own counties (finance) or outline (school districts). */
let geo: Map<string, Asset> | undefined;
function geoAssets(): Map<string, Asset> {
  if (geo !== undefined) return geo;
  geo = new Map([['/explore/geo/states.json', { contentType: JSON_TYPE, body: JSON.stringify(atlas('states-10m.json')) }]]);
  for (const [fips, t] of countiesByState(atlas('counties-10m.json'))) {
    geo.set(`/explore/geo/counties-${fips}.json`, { contentType: JSON_TYPE, body: JSON.stringify(t) });
  }
  return geo;
}

/** The page files of a service: its own (named for it) and the shared ones (named for neither service). */
function pageFiles(service: ExploreService): string[] {
  const others = SERVICES.filter((s) => s !== service);
  return readdirSync(path.join(PROJECT_ROOT, 'explore'))
    .filter((f) => /\.(js|css)$/.test(f) && !others.some((o) => f.startsWith(o)));
}

export function exploreAssets(service: ExploreService): Map<string, Asset> {
  const dir = path.join(PROJECT_ROOT, 'explore');
  const page: Asset = { contentType: 'text/html; charset=utf-8', body: readFileSync(path.join(dir, `${service}.html`), 'utf8'), headers: { ...PAGE_HEADERS } };
  const out = new Map<string, Asset>([['/explore/', page], ['/explore', page], ['/explore/index.html', page]]);
  for (const f of pageFiles(service)) {
    out.set(`/explore/${f}`, { contentType: f.endsWith('.css') ? 'text/css; charset=utf-8' : JS, body: readFileSync(path.join(dir, f), 'utf8') });
  }
  for (const [at, file] of Object.entries(VENDOR)) out.set(at, { contentType: JS, body: readFileSync(path.join(PROJECT_ROOT, 'node_modules', file), 'utf8') });
  for (const [at, a] of geoAssets()) out.set(at, a);
  const icon: Asset = { contentType: 'image/svg+xml', body: FAVICON };
  out.set('/favicon.svg', icon);
  out.set('/favicon.ico', icon);
  return out;
}
