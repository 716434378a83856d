// Reading the school API from the page, over the shared fetch helpers
// (format.js: the envelope unwrapped, pages read to the end), and small caches for answers that do not change while the page
// is open (a state's districts, its outline), so a control change costs one call.

import { getAll, getJson, keptTopology } from '/explore/format.js';

/** The rows of an API answer (one page); an error envelope throws with the API's message (format.js). */
export async function rows(url) {
  return (await getJson(url)).data ?? [];
}

/**
 * Every row of a paged answer, to meta.total (format.js getAll), so a state of more districts than a page
 * holds (a real mirror's Texas) is drawn whole, not cut at the page size with its rest shown as having no estimate.
 */
export async function allRows(url) {
  return (await getAll(url)).data;
}

const kept = new Map();
/** rows(url), fetched once per page load (for answers fixed by the mirror). */
export function keptRows(url) {
  if (!kept.has(url)) kept.set(url, allRows(url).catch((e) => { kept.delete(url); throw e; }));
  return kept.get(url);
}

/** A TopoJSON file's object as GeoJSON (global topojson from the vendor script), the file fetched once (format.js). */
export function keptFeature(url, object) {
  return keptTopology(url).then((t) => topojson.feature(t, t.objects[object]));
}

// The calls the page makes, built in one place so the links shown under the charts are the calls made.
export const calls = {
  info: () => '/api/v1',
  models: () => '/api/v1/models',
  states: (model) => `/api/v1/states?model=${encodeURIComponent(model)}`,
  district: (v) => `/api/v1/estimates/${v.leaid}?model=${encodeURIComponent(v.model)}&interval=${v.interval}`,
  state: (v) => `/api/v1/states/${v.state}?model=${encodeURIComponent(v.model)}&interval=${v.interval}`,
  stateMap: (v) => `/api/v1/estimates?state=${v.state}&model=${encodeURIComponent(v.model)}&year=${v.year}&race=${v.race}&sex=${v.sex}&interval=${v.interval}&limit=1000`,
  districtsOf: (state) => `/api/v1/districts?state=${state}&limit=1000`,
  search: (q) => `/api/v1/districts?q=${encodeURIComponent(q)}&limit=20`,
};
