// Helpers both explorer pages may use (named for neither service): money as
// people read it, a JSON fetch that surfaces API errors, small DOM builders.
/* global d3 */

// d3's SI prefix writes billions as G (giga); people read money in B. d3 is read
// at call time, so a page that never formats money need not load it.
export const money = (v) => (v === null || v === undefined || Number.isNaN(v) ? '–' : d3.format('$~s')(v).replace('G', 'B'));
// The tip shows the exact-ish figure: cents only where they matter (per resident).
export const moneyLong = (v) => (Math.abs(v) < 1000 ? d3.format('$,.2f')(v) : d3.format('$,.0f')(v));

/** The envelope of an API call; a failed call throws with the API's own message. */
export async function getJson(url, signal) {
  const r = await fetch(url, { signal });
  const body = await r.json();
  if (!r.ok || body.status !== 'success') throw new Error(body.error?.message ?? body.error ?? `${r.status} from ${url}`);
  return body;
}

/**
 * Every row of a paged answer: the first page's envelope with the rows of all its pages (page=1, 2, ... until
 * meta.total), so no panel draws a silently cut answer. Each page is at most the route's cap (1,000 rows).
 */
export async function getAll(url, signal) {
  const first = await getJson(url, signal);
  const { total, limit } = first.meta ?? {};
  const data = [...(first.data ?? [])];
  const sep = url.includes('?') ? '&' : '?';
  for (let page = 1; limit > 0 && data.length < total; page++) {
    const next = await getJson(`${url}${sep}page=${page}`, signal);
    if (!next.data?.length) break;
    data.push(...next.data);
  }
  return { ...first, data };
}

const topologies = new Map();
/** A TopoJSON boundary file of this host (not an API envelope), fetched once per page load; a failed load is not kept. */
export function keptTopology(url) {
  if (!topologies.has(url)) {
    topologies.set(url, fetch(url).then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${r.status} from ${url}`))))
      .catch((e) => { topologies.delete(url); throw e; }));
  }
  return topologies.get(url);
}

/** An element with attributes and children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'on') for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** Links to the exact calls a chart drew from, so a reader can reproduce it. */
export function callLinks(box, calls) {
  box.replaceChildren(...calls.map(([label, href]) => el('a', { href, class: 'call' }, `${label}: ${href}`)));
}

/** The width a chart may take: its container's, so phones get no horizontal scroll. */
export const widthOf = (node) => Math.max(280, Math.floor(node.clientWidth || node.parentElement?.clientWidth || 640));
