// npm start builds only what is stale (issue 31, item 9): scripts/build.mjs
// --if-stale, run on a small project of the same layout, leaves a current
// dist/ alone and rebuilds one a source is newer than (or added to); npm
// start runs it before the server. Its speed is bench/start.ts's, not a test's.

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-start-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const run = (...args: string[]): Promise<{ code: number; stderr: string }> => new Promise((resolve) => {
  execFile(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--root', tmp, ...args], (err, _out, stderr) =>
    resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }));
});
const OUT = path.join(tmp, 'dist/src/cli/main.js');
const mtime = (f: string): number => statSync(f).mtimeMs;
const later = (f: string, s: number): void => { const t = new Date(Date.now() + s * 1000); utimesSync(f, t, t); };

describe('npm start on a built checkout', () => {
  it('npm start runs the staleness check, then the built server (no unconditional tsc)', () => {
    const scripts = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.start).toBe('node scripts/build.mjs --if-stale && node dist/src/cli/main.js serve');
    expect(scripts.build).toBe('node scripts/build.mjs');
  });

  it('builds a stale dist/ (no stamp, a source touched, a source added) and leaves a current one alone', async () => {
    mkdirSync(path.join(tmp, 'src/cli'), { recursive: true });
    writeFileSync(path.join(tmp, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'dist', rootDir: '.', types: [] }, include: ['src/**/*.ts'] }));
    writeFileSync(path.join(tmp, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(tmp, 'src/cli/main.ts'), 'export const a = 1;\n');
    // No stamp: built.
    let r = await run('--if-stale');
    expect([r.code, r.stderr]).toEqual([0, 'civicstream: building (no build stamp (dist/ was not built by npm run build))\n']);
    expect(readFileSync(OUT, 'utf8')).toContain('a = 1');
    // Current: nothing built, nothing written.
    const built = mtime(OUT);
    r = await run('--if-stale');
    expect([r.code, r.stderr, mtime(OUT)]).toEqual([0, '', built]);
    // A source touched (newer than the build): built again.
    later(path.join(tmp, 'src/cli/main.ts'), 5);
    writeFileSync(path.join(tmp, 'src/cli/main.ts'), 'export const a = 2;\n');
    later(path.join(tmp, 'src/cli/main.ts'), 5);
    r = await run('--if-stale');
    expect([r.code, r.stderr]).toEqual([0, 'civicstream: building (a source is newer than the build)\n']);
    expect(readFileSync(OUT, 'utf8')).toContain('a = 2');
    r = await run('--if-stale');
    expect([r.code, r.stderr]).toEqual([0, '']);
    // A source added, older than the build (a file copied in with its time kept): built.
    writeFileSync(path.join(tmp, 'src/b.ts'), 'export const b = 1;\n');
    utimesSync(path.join(tmp, 'src/b.ts'), new Date(0), new Date(0));
    r = await run('--if-stale');
    expect(r.stderr).toBe('civicstream: building (the sources were added, removed or renamed (3 -> 4 files))\n');
    expect(readFileSync(path.join(tmp, 'dist/src/b.js'), 'utf8')).toContain('b = 1');
  }, 120_000);
});
