// The build, and `npm start`'s check of it (issue 31, item 9): tsc over the
// sources into dist/, then a stamp (dist/.build-stamp) naming what it built
// from: the newest modification time among the inputs and a digest of their
// names, both read before tsc starts (a source saved during a build leaves it
// stale). With --if-stale it builds only when an input is newer than the
// stamp, an input was added, removed or renamed, or there is no stamp; a
// current dist/ starts at once (tsc costs 3-4 s of a start).
//   node scripts/build.mjs             always build
//   node scripts/build.mjs --if-stale  build only when dist/ is not current
//   --root <dir>: build that project (its tsconfig.json) instead of this one: the test's small copy

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rootArg = process.argv.indexOf('--root');
const ROOT = rootArg > 0 ? path.resolve(process.argv[rootArg + 1]) : HERE;
const STAMP = path.join(ROOT, 'dist/.build-stamp');
/** tsconfig.json's include (its folders' .ts files), and the files that change what tsc makes of them. */
const SOURCE_DIRS = ['src', 'workers', 'bench', 'scripts'];
const CONFIG_FILES = ['tsconfig.json', 'package.json'];

/** The inputs as they are now: the newest mtime (ms) and a digest of the sorted names. */
export function inputs(root = ROOT) {
  const names = [...CONFIG_FILES];
  const walk = (dir) => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.ts')) names.push(rel);
    }
  };
  for (const d of SOURCE_DIRS) if (existsSync(path.join(root, d))) walk(d);
  names.sort();
  let newest = 0;
  for (const n of names) newest = Math.max(newest, statSync(path.join(root, n)).mtimeMs);
  return { newest_mtime_ms: newest, files: names.length, names_sha256: createHash('sha256').update(names.join('\n')).digest('hex') };
}

/** Why dist/ is not current, or null when it is. */
export function staleReason(root = ROOT) {
  const stampPath = path.join(root, 'dist/.build-stamp');
  if (!existsSync(stampPath)) return 'no build stamp (dist/ was not built by npm run build)';
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
  } catch {
    return 'the build stamp does not parse';
  }
  const now = inputs(root);
  if (now.names_sha256 !== stamp.names_sha256) return `the sources were added, removed or renamed (${stamp.files} -> ${now.files} files)`;
  if (now.newest_mtime_ms > stamp.newest_mtime_ms) return 'a source is newer than the build';
  return null;
}

function build() {
  const before = inputs();
  const tsc = spawnSync(process.execPath, [path.join(HERE, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  chmodSync(path.join(ROOT, 'dist/src/cli/main.js'), 0o755);
  writeFileSync(STAMP, `${JSON.stringify(before)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--if-stale')) build();
  else {
    const why = staleReason();
    if (why !== null) {
      process.stderr.write(`civicstream: building (${why})\n`);
      build();
    }
  }
}
