// The school service at scale: summary build time with 1 and 2 workers, and
// /estimates requests per second for single-district queries (autocannon,
// 32 connections over loopback), on the committed mirror and, with --full,
// on a full-scale one (npm run generate:arrests -- --states all --districts 17000 --out .data/arrests-full).
//   npm run bench:arrests [-- --full .data/arrests-full]

import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readArrestsManifest } from '../src/arrests/manifest.js';
import { loadOrBuildSummaries } from '../src/arrests/summaries.js';
import { loadDistricts, loadEnrollment } from '../src/arrests/tables.js';
import { load } from './lib/load.js';
import { ROOT, startServer } from '../scripts/lib/server.js';
import { arg } from './lib/args.js';

const full = arg('full', null);
const mirrors = [path.join(ROOT, 'fixtures/arrests'), ...(full !== null ? [path.resolve(full)] : [])];
const lines: string[] = [];

for (const dir of mirrors) {
  const manifest = await readArrestsManifest(dir);
  const enroll = await loadEnrollment(dir, manifest);
  const districts = await loadDistricts(dir, manifest);
  const builds: string[] = [];
  let rows = 0;
  for (const workers of [1, 2]) {
    const s = await loadOrBuildSummaries(dir, manifest, enroll, { workers, quiet: true, rebuild: true });
    rows = s.build.rows;
    builds.push(`${s.build.seconds.toFixed(1)} s (${Math.round(s.build.rows / s.build.seconds / 1e6)} M draw rows/s)`);
  }
  const server = await startServer({ ARRESTS_DATA: dir, WORKERS: '2' }, 1_800_000);
  const ids = districts.map((d) => d.leaid);
  let k = 0;
  const next = (): string => `/api/v1/estimates/${ids[(k++ * 7919) % ids.length]}`;
  await load(server.arrestsUrl, next, { connections: 32, seconds: 3 });
  const r = await load(server.arrestsUrl, next, { connections: 32, seconds: 10 });
  await server.stop();
  lines.push(`| ${path.relative(ROOT, dir)} | ${districts.length.toLocaleString('en-US')} | ${rows.toLocaleString('en-US')} | ${builds[0]} | ${builds[1]} | ${Math.round(r.requestsPerSec).toLocaleString('en-US')} | ${r.p50} / ${r.p99} | ${r.errors + r.non2xx} |`);
}

const table = [
  `School arrest-rate service: summary build and /estimates/{leaid} load; ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores; autocannon, 32 connections, 10 s, loopback`,
  '',
  '| mirror | districts | draw rows | build, 1 worker | build, 2 workers | /estimates/{leaid} req/s | p50 / p99 ms | errors |',
  '|---|---|---|---|---|---|---|---|',
  ...lines,
].join('\n');
console.log(table);
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/arrests.md'), `${table}\n`);
process.exit(0);
