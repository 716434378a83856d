// The per-state cut of the Census's county boundaries (src/geo/topology.ts): every state's
// counties decode to exactly the coordinates the whole file gives them, and a cut holds only
// the arcs its geometries use.

import { feature } from 'topojson-client';
import { describe, expect, it } from 'vitest';
import { atlas, countiesByState } from '../dist/src/geo/topology.js';

const whole = atlas('counties-10m.json');
const cuts = countiesByState(whole);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const features = (t: any, name: string) => (feature(t, t.objects[name]) as any).features as { id: string; geometry: unknown }[];
const all = new Map(features(whole, 'counties').map((f) => [f.id, f.geometry]));

describe('counties cut per state', () => {
  it('has one topology per state of the file, each with the state outline and all its counties', () => {
    expect(cuts.size).toBe(whole.objects.states!.geometries.length);
    let counties = 0;
    for (const [fips, t] of cuts) {
      expect(t.objects.state!.geometries.map((g) => g.id)).toEqual([fips]);
      const ids = t.objects.counties!.geometries.map((g) => String(g.id));
      expect(ids.every((id) => id.startsWith(fips))).toBe(true);
      counties += ids.length;
    }
    expect(counties).toBe(all.size);
    expect(cuts.get('48')!.objects.counties!.geometries.length).toBe(254);
  });

  it('decodes each county to the coordinates of the whole file, with no arc it does not use', () => {
    for (const [, t] of cuts) {
      for (const f of features(t, 'counties')) expect(f.geometry).toEqual(all.get(f.id));
      const used = new Set<number>();
      const walk = (a: unknown): void => { if (typeof a === 'number') used.add(a < 0 ? ~a : a); else if (Array.isArray(a)) a.forEach(walk); };
      for (const o of Object.values(t.objects)) for (const g of o.geometries) walk(g.arcs);
      expect(used.size).toBe(t.arcs.length);
    }
  });
});
