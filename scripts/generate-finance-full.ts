// npm run generate:finance-full -- --out DIR [--rows N | --scale F] [--seed N] [--workers N]
// A full-scale finance mirror (FY1967-2024 without 1968-69, about 46 million
// rows by default, like the published corpus) grown from the real fixture;
// see src/finance/generate.ts.

import os from 'node:os';
import path from 'node:path';
import { generateFinanceFull, scaleForRows } from '../src/finance/generate.js';
import { PROJECT_ROOT } from '../src/config.js';

function arg(name: string, dflt: string | null): string | null {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
}

const out = arg('out', null);
if (!out) { console.error('generate:finance-full: --out DIR is required'); process.exit(2); }
// The published corpus's size; --scale instead sets the governments' multiplier directly.
const FULL_ROWS = 46_000_000;
const fixture = path.resolve(arg('fixture', path.join(PROJECT_ROOT, 'fixtures/finance/v6'))!);
const scaleArg = arg('scale', null);
let scale: number;
try {
  if (scaleArg !== null && arg('rows', null) !== null) throw new Error('give --rows or --scale, not both');
  if (scaleArg !== null) {
    scale = Number(scaleArg);
    if (!(scale > 0 && scale <= 4)) throw new Error('--scale must be in (0, 4]');
  } else {
    const rows = Number(arg('rows', String(FULL_ROWS)));
    if (!Number.isFinite(rows) || rows <= 0) throw new Error('--rows must be a positive number');
    scale = await scaleForRows(fixture, rows);
  }
} catch (e) {
  console.error(`generate:finance-full: ${(e as Error).message}`);
  process.exit(2);
}
const t0 = performance.now();
const r = await generateFinanceFull({
  fixture,
  out: path.resolve(out), seed: Number(arg('seed', '20260101')), scale,
}, Number(arg('workers', String(os.availableParallelism()))));
console.log(`generate:finance-full: ${r.years} years, ${r.rows.toLocaleString('en-US')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s -> ${path.resolve(out)}`);
