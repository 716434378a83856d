// npm run build:estimates -- [--data DIR] [--workers N]
// Summarises a school draws mirror on a worker pool (one shard per task, with
// a progress bar) and writes the summaries beside the draws (summaries/), so
// the server loads them at start instead of rebuilding.

import os from 'node:os';
import path from 'node:path';
import { readArrestsManifest } from '../src/arrests/manifest.js';
import { loadOrBuildSummaries } from '../src/arrests/summaries.js';
import { loadEnrollment } from '../src/arrests/tables.js';
import { LoadError } from '../src/corpus/parquet.js';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
}

const dir = path.resolve(arg('data', process.env.ARRESTS_DATA ?? 'fixtures/arrests'));
const workers = Number(arg('workers', String(os.availableParallelism())));
try {
  const manifest = await readArrestsManifest(dir);
  const s = await loadOrBuildSummaries(dir, manifest, await loadEnrollment(dir, manifest), { workers, quiet: false, rebuild: true });
  console.log(`build:estimates: ${s.build.shards} shards, ${s.build.rows.toLocaleString('en-US')} draw rows in ${s.build.seconds.toFixed(1)} s with ${workers} worker(s) -> ${path.join(dir, 'summaries')}`);
} catch (e) {
  console.error(`build:estimates: ${e instanceof LoadError ? `data fault in ${e.message}` : (e as Error).message}`);
  process.exit(1);
}
