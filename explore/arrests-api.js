// Reading the school API from the page: one fetch helper that unwraps the
// envelope, and small caches for answers that do not change while the page
// is open (a state's districts, its outline), so a control change costs one call.

/** An API answer's envelope; an error envelope becomes a thrown Error with the API's message. */
async function envelope(url) {
  const r = await fetch(url);
  const body = await r.json();
  if (body.status !== 'success') throw new Error(body.error ?? `HTTP ${r.status}`);
  return body;
}

/** The rows of an API answer (one page). */
export async function rows(url) {
  return (await envelope(url)).data ?? [];
}

/**
 * Every row of a paged answer: its pages until meta.total, so a state of more districts than a page holds
 * (a real mirror's Texas) is drawn whole, not cut at the page size and its rest shown as having no estimate.
 */
export async function allRows(url) {
  const first = await envelope(url);
  const out = [...(first.data ?? [])];
  const { total, limit } = first.meta ?? {};
  const sep = url.includes('?') ? '&' : '?';
  for (let page = 1; limit > 0 && out.length < total && page * limit < total; page++) out.push(...(await rows(`${url}${sep}page=${page}`)));
  return out;
}

const kept = new Map();
/** rows(url), fetched once per page load (for answers fixed by the mirror). */
export function keptRows(url) {
  if (!kept.has(url)) kept.set(url, allRows(url).catch((e) => { kept.delete(url); throw e; }));
  return kept.get(url);
}

/** A TopoJSON file's object as GeoJSON (global topojson from the vendor script), fetched once. */
export function keptFeature(url, object) {
  const key = `${url}#${object}`;
  if (!kept.has(key)) {
    // A failed load is not kept: the next paint of that state tries again.
    kept.set(key, fetch(url).then((r) => { if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`); return r.json(); })
      .then((t) => topojson.feature(t, t.objects[object]))
      .catch((e) => { kept.delete(key); throw e; }));
  }
  return kept.get(key);
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
