// Issue 22, item 8: the typed client installs and imports outside the clone. `npm run pack:client` packs
// packages/client (the client's sources compiled alone: no dependency); a project in a temporary folder
// installs the tarball offline, imports it by its name and reads an envelope from the running server.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { financeUrl } from './helpers/http.js';
import { ROOT } from './helpers/server.js';

describe('the client as a package', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-client-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('packs, installs outside the clone with no dependency, imports by name and answers', () => {
    execFileSync('npx', ['tsc', '-p', 'packages/client/tsconfig.json'], { cwd: ROOT, stdio: 'pipe' });
    execFileSync('npm', ['pack', './packages/client', '--pack-destination', tmp, '--silent'], { cwd: ROOT, stdio: 'pipe' });
    const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'))!;
    expect(tarball).toMatch(/^civicstream-client-\d+\.\d+\.\d+\.tgz$/);
    const app = path.join(tmp, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--silent', path.join(tmp, tarball)], { cwd: app, stdio: 'pipe' });
    // Only the client came: it has no dependency of its own.
    expect(readdirSync(path.join(app, 'node_modules')).filter((d) => !d.startsWith('.'))).toEqual(['civicstream-client']);
    writeFileSync(path.join(app, 'main.mjs'), `
      import { financeClient } from 'civicstream-client';
      const env = await financeClient(process.argv[2]).get('/api/v1/governments', { q: 'springfield', limit: 2 });
      console.log(JSON.stringify({ status: env.status, rows: env.data.length, total: env.meta.total }));
    `);
    const out = JSON.parse(execFileSync(process.execPath, ['main.mjs', financeUrl()], { cwd: app, encoding: 'utf8' }));
    expect(out.status).toBe('success');
    expect(out.rows).toBe(2);
    expect(out.total).toBeGreaterThan(2);
  }, 120_000);
});
