// Runs first in `npm test` and `npm run test:stress`: the system tools the tests drive must be there
// before a single test starts, or a suite fails in beforeAll on a fresh
// machine. Installs Debian's packages when it can (root, or sudo without a
// password); otherwise stops at once with the one command to run.
// Plain Node, no dependencies: it runs before anything is built.

import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Every system tool the tests need: the one place to add one (its path, and the Debian package that provides it). */
export const TOOLS = [
  // docs-browser.test.ts drives Chromium headless through playwright-core, which bundles no browser.
  { name: 'chromium', path: process.env.CHROMIUM_PATH || '/usr/bin/chromium', apt: 'chromium' },
  // test/stress/scale-out.test.ts runs two replicas behind a real nginx (issue 20), started as this user from a temp dir.
  { name: 'nginx', path: process.env.NGINX_PATH || '/usr/sbin/nginx', apt: 'nginx' },
];

const executable = (p) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * What to do about the tools missing: nothing, install them (the shell command),
 * or refuse (the one line to print). `can` says who we are: root, or passwordless sudo,
 * and whether installing is allowed at all.
 */
export function decide(missing, can) {
  if (missing.length === 0) return { action: 'ok' };
  const pkgs = [...new Set(missing.map((t) => t.apt))].join(' ');
  const names = missing.map((t) => t.name).join(', ');
  const sudo = can.root ? '' : 'sudo ';
  if (can.install && (can.root || can.sudo)) {
    return { action: 'install', command: `${sudo}apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${sudo}apt-get install -y -qq ${pkgs}` };
  }
  return { action: 'refuse', message: `npm test needs ${names}: run '${sudo}apt-get install -y ${pkgs}'` };
}

/**
 * The Python modules the tests import (test/page-stream.test.ts decodes a page with requests, which reads br
 * only with brotli beside it), for the python3 on PATH (or CIVICSTREAM_PYTHON): installed with its own pip.
 */
export const PY_MODULES = ['requests', 'brotli'];
const PYTHON = process.env.CIVICSTREAM_PYTHON || 'python3';
const importable = (m) => spawnSync(PYTHON, ['-c', `import ${m}`], { stdio: 'ignore' }).status === 0;

/** What to do about the Python modules missing: nothing, pip them (the command), or refuse (the line to print). */
export function decidePython(missing, can, python = PYTHON) {
  if (missing.length === 0) return { action: 'ok' };
  const command = `${python} -m pip install -q ${missing.join(' ')}`;
  if (can.install) return { action: 'install', command };
  return { action: 'refuse', message: `npm test needs the Python modules ${missing.join(', ')}: run '${command}'` };
}

function ensurePython(install) {
  const missing = PY_MODULES.filter((m) => !importable(m));
  const d = decidePython(missing, { install });
  if (d.action === 'ok') return 0;
  if (d.action === 'refuse') {
    console.error(d.message);
    return 1;
  }
  console.error(`npm test: installing ${missing.join(', ')}: ${d.command}`);
  const run = spawnSync('sh', ['-c', d.command], { stdio: ['ignore', 'ignore', 'inherit'] });
  const still = missing.filter((m) => !importable(m));
  if (run.status !== 0 || still.length > 0) {
    console.error(`npm test needs the Python modules ${still.join(', ') || missing.join(', ')}: the install (${d.command}) exited ${run.status}`);
    return 1;
  }
  return 0;
}

const passwordlessSudo = () => spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;

function main() {
  return ensureTools() || ensurePython(process.env.CIVICSTREAM_INSTALL_TOOLS !== '0');
}

function ensureTools() {
  const missing = TOOLS.filter((t) => !executable(t.path));
  const can = {
    root: process.getuid?.() === 0,
    sudo: missing.length > 0 && process.getuid?.() !== 0 && passwordlessSudo(),
    // CIVICSTREAM_INSTALL_TOOLS=0: never install, only say what is missing.
    install: process.env.CIVICSTREAM_INSTALL_TOOLS !== '0',
  };
  const d = decide(missing, can);
  if (d.action === 'ok') return 0;
  if (d.action === 'refuse') {
    console.error(d.message);
    return 1;
  }
  console.error(`npm test: installing ${missing.map((t) => t.name).join(', ')}: ${d.command}`);
  const run = spawnSync('sh', ['-c', d.command], { stdio: ['ignore', 'ignore', 'inherit'] });
  const still = missing.filter((t) => !executable(t.path));
  if (run.status !== 0 || still.length > 0) {
    // Installed but not where the tests look (a CHROMIUM_PATH elsewhere), or apt failed: say which.
    console.error(`npm test needs ${still.map((t) => `${t.name} at ${t.path}`).join(', ') || 'its tools'}: the install (${d.command}) exited ${run.status}`);
    return 1;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main();
