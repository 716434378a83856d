// The Census's own boundaries (the us-atlas package: cartographic boundary
// files at 1:10,000,000, as TopoJSON), cut per state for the explorer maps. The
// whole county file is 250 KB gzipped; a state's map needs its own counties
// only (Texas, the most: about 30 KB), so each state is its own small
// topology: the state's outline and its counties, with only the arcs they use.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

type Arc = number[][];
interface Geometry { type: string; id?: string; properties?: Record<string, unknown>; arcs?: unknown }
interface GeometryCollection { type: 'GeometryCollection'; geometries: Geometry[] }
export interface Topology {
  type: 'Topology';
  bbox?: number[];
  transform?: { scale: number[]; translate: number[] };
  objects: Record<string, GeometryCollection>;
  arcs: Arc[];
}

/**
 * One of us-atlas's files, parsed: found as Node finds the package (not through the server's config, so the
 * generator's workers, which place districts inside these outlines, load no server module).
 */
export function atlas(name: 'states-10m.json' | 'counties-10m.json'): Topology {
  return JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`us-atlas/${name}`), 'utf8')) as Topology;
}

/** Every arc index a geometry's arcs field names (a negative index ~i is arc i reversed). */
function arcIndices(arcs: unknown, out: Set<number>): void {
  if (typeof arcs === 'number') out.add(arcs < 0 ? ~arcs : arcs);
  else if (Array.isArray(arcs)) for (const a of arcs) arcIndices(a, out);
}

function renumber(arcs: unknown, to: Map<number, number>): unknown {
  if (typeof arcs === 'number') return arcs < 0 ? ~to.get(~arcs)! : to.get(arcs)!;
  return Array.isArray(arcs) ? arcs.map((a) => renumber(a, to)) : arcs;
}

/**
 * A topology of the chosen geometries of each object, holding only the arcs they use, renumbered. A
 * quantized topology's arcs are each delta-encoded from their own start, so an arc kept keeps its
 * coordinates as they are.
 */
export function cutTopology(t: Topology, keep: Record<string, (g: Geometry) => boolean>): Topology {
  const objects: Record<string, GeometryCollection> = {};
  const used = new Set<number>();
  for (const [name, pick] of Object.entries(keep)) {
    const geometries = (t.objects[name]?.geometries ?? []).filter(pick);
    for (const g of geometries) arcIndices(g.arcs, used);
    objects[name] = { type: 'GeometryCollection', geometries };
  }
  const order = [...used].sort((a, b) => a - b);
  const to = new Map(order.map((old, k) => [old, k]));
  for (const o of Object.values(objects)) o.geometries = o.geometries.map((g) => (g.arcs === undefined ? g : { ...g, arcs: renumber(g.arcs, to) }));
  const { bbox: _bbox, ...rest } = t;
  return { ...rest, objects, arcs: order.map((k) => t.arcs[k]!) };
}

/** Each state's own topology: objects `state` (its outline) and `counties` (ids are the five-digit county GEOIDs). */
export function countiesByState(counties: Topology): Map<string, Topology> {
  const out = new Map<string, Topology>();
  for (const s of counties.objects.states?.geometries ?? []) {
    const fips = String(s.id);
    const cut = cutTopology(counties, { states: (g) => g.id === fips, counties: (g) => String(g.id).startsWith(fips) });
    out.set(fips, { ...cut, objects: { state: cut.objects.states!, counties: cut.objects.counties! } });
  }
  return out;
}
