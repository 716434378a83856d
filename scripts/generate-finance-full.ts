// npm run generate:finance-full -- --out DIR [--scale F | --rows N] [--seed N] [--workers N]
// A full-scale finance mirror (FY1967-2024 without 1968-69, about 46 million
// rows at scale 1) grown from the real fixture; see src/finance/generate.ts.

import os from 'node:os';
import path from 'node:path';
import { generateFinanceFull } from '../src/finance/generate.js';
import { PROJECT_ROOT } from '../src/config.js';

function arg(name: string, dflt: string | null): string | null {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
}

const out = arg('out', null);
if (!out) { console.error('generate:finance-full: --out DIR is required'); process.exit(2); }
const FULL_ROWS = 46_000_000;
const rows = arg('rows', null);
const scale = rows !== null ? Number(rows) / FULL_ROWS : Number(arg('scale', '1'));
if (!(scale > 0 && scale <= 4)) { console.error('generate:finance-full: --scale must be in (0, 4] (or --rows up to 184000000)'); process.exit(2); }
const t0 = performance.now();
const r = await generateFinanceFull({
  fixture: path.resolve(arg('fixture', path.join(PROJECT_ROOT, 'fixtures/finance/v6'))!),
  out: path.resolve(out), seed: Number(arg('seed', '20260101')), scale,
}, Number(arg('workers', String(os.availableParallelism()))));
console.log(`generate:finance-full: ${r.years} years, ${r.rows.toLocaleString('en-US')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s -> ${path.resolve(out)}`);
