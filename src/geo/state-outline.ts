// Points inside a state: the Census's state outlines (us-atlas, the boundaries
// the explorer maps draw) and a point-in-polygon test on them (d3-geo's
// spherical geoContains). The synthetic school mirror places each district
// with these, so its dots fall inside their state on a real map.

import { geoBounds, geoContains } from 'd3';
import { feature } from 'topojson-client';
import type { Rng } from '../random.js';
import { STATE_BY_CODE } from './states.js';
import { atlas } from './topology.js';

interface Outline { shape: unknown; west: number; east: number; south: number; north: number }

let outlines: Map<string, Outline> | null = null;

/** Each state's outline by FIPS code, read once from us-atlas's states-10m.json. */
function outlinesByFips(): Map<string, Outline> {
  if (outlines) return outlines;
  const t = atlas('states-10m.json');
  const fc = feature(t, t.objects.states);
  outlines = new Map();
  for (const f of fc.features ?? []) {
    const [[w, s], [e, n]] = geoBounds(f);
    // Alaska crosses the antimeridian: its east edge is then read past 180.
    outlines.set(String(f.id), { shape: f, west: w, east: e < w ? e + 360 : e, south: s, north: n });
  }
  return outlines;
}

/** True when (lat, lon) lies inside the state's outline (postal code); false for a state with no outline. */
export function insideState(code: string, lat: number, lon: number): boolean {
  const o = outlinesByFips().get(STATE_BY_CODE.get(code)?.fips ?? '');
  return o !== undefined && geoContains(o.shape, [lon, lat]);
}

const TRIES = 10_000;

/**
 * A point drawn uniformly (in degrees) from the state's bounding box until it falls inside the outline,
 * rounded to 5 decimals (about a metre) as the fixture stores it. Bounded: a state whose outline takes
 * more than 10,000 tries (none does: the worst, Hawaii's islands, about 1 in 20) is an error, not a hang.
 */
export function pointInState(code: string, r: Rng): { lat: number; lon: number } {
  const o = outlinesByFips().get(STATE_BY_CODE.get(code)?.fips ?? '');
  if (!o) throw new Error(`no Census outline for state '${code}'`);
  const round = (x: number): number => Math.round(x * 1e5) / 1e5;
  for (let i = 0; i < TRIES; i++) {
    let lon = o.west + (o.east - o.west) * r.next();
    if (lon > 180) lon -= 360;
    const lat = o.south + (o.north - o.south) * r.next();
    const p = { lat: round(lat), lon: round(lon) };
    if (geoContains(o.shape, [p.lon, p.lat])) return p;
  }
  throw new Error(`no point inside ${code}'s outline in ${TRIES} tries`);
}
