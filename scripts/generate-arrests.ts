// npm run generate:arrests -- [--out DIR] [--states DE,RI,VT,NH | all] [--districts N] [--seed N] [--workers N] [--models unified_m2,...]
// Writes a synthetic school arrest-rate mirror in the real layout. The
// committed fixture is: --out fixtures/arrests --states DE,RI,VT,NH --districts 240 --seed 20260101
// Full scale (about 1.5 billion draw rows): --states all --districts 17000 --out .data/arrests-full

import os from 'node:os';
import path from 'node:path';
import { generateArrests } from '../src/arrests/generate.js';
import { STATE_GEO } from '../src/geo/state-geography.js';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
}

const statesArg = arg('states', 'DE,RI,VT,NH');
const states = statesArg === 'all' ? Object.keys(STATE_GEO).sort() : statesArg.split(',').map((s) => s.trim().toUpperCase());
for (const s of states) if (!STATE_GEO[s]) { console.error(`generate:arrests: unknown state '${s}'`); process.exit(2); }
const districts = Number(arg('districts', '240'));
const seed = Number(arg('seed', '20260101'));
if (!Number.isInteger(districts) || districts < states.length) { console.error('generate:arrests: --districts must be an integer, at least one per state'); process.exit(2); }
const out = path.resolve(arg('out', 'fixtures/arrests'));
const workers = Number(arg('workers', String(os.availableParallelism())));
const t0 = performance.now();
const modelsArg = arg('models', '');
const r = await generateArrests({ out, states, districts, seed, ...(modelsArg ? { models: modelsArg.split(',') } : {}) }, workers);
console.log(`generate:arrests: ${r.shards} shards, ${r.rows.toLocaleString('en-US')} draw rows in ${((performance.now() - t0) / 1000).toFixed(1)} s -> ${out}`);
