// The synthetic school districts lie inside their own state: each district of
// the committed fixture (fixtures/arrests/districts.parquet, read by DuckDB) is
// tested against the Census state outline (us-atlas states-10m.json, the
// boundaries the maps draw) with d3-geo's geoContains, read here straight from
// the packages and not through the generator's helper.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { geoContains } from 'd3';
import { feature } from 'topojson-client';
import { describe, expect, it } from 'vitest';
import { query } from './helpers/duckdb.js';
import { ROOT } from './helpers/server.js';

const FIPS: Record<string, string> = { DE: '10', RI: '44', VT: '50', NH: '33' };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const topo: any = JSON.parse(readFileSync(path.join(ROOT, 'node_modules/us-atlas/states-10m.json'), 'utf8'));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const outlines = new Map((feature(topo, topo.objects.states) as any).features.map((f: any) => [String(f.id), f]));

describe('synthetic districts on the map', () => {
  it('at least 95% of the fixture\'s districts (and each state\'s) lie inside their state\'s Census outline', async () => {
    const rows = await query(`SELECT leaid, state, lat, lon FROM read_parquet('${path.join(ROOT, 'fixtures/arrests/districts.parquet')}')`);
    expect(rows.length).toBe(240);
    const byState = new Map<string, { n: number; inside: number }>();
    for (const r of rows) {
      const s = byState.get(r.state) ?? { n: 0, inside: 0 };
      const outline = outlines.get(FIPS[r.state]!);
      expect(outline, r.state).toBeDefined();
      s.n++;
      if (geoContains(outline, [r.lon, r.lat])) s.inside++;
      byState.set(r.state, s);
    }
    const inside = [...byState.values()].reduce((a, s) => a + s.inside, 0);
    expect(inside / rows.length).toBeGreaterThanOrEqual(0.95);
    for (const [st, s] of byState) expect(s.inside / s.n, `${st}: ${s.inside} of ${s.n}`).toBeGreaterThanOrEqual(0.95);
  });
});
