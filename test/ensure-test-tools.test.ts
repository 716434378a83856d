// `npm test` installs the system tools the tests need, or stops at once with
// the one command to run. No real apt here: the decision is a function, and
// the script is run only with installing turned off.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide, decidePython, PY_MODULES, TOOLS } from '../scripts/ensure-test-tools.mjs';
import { ROOT } from './helpers/server.js';

const SCRIPT = path.join(ROOT, 'scripts/ensure-test-tools.mjs');
const chromium = { name: 'chromium', path: '/nowhere/chromium', apt: 'chromium' };
const nginx = { name: 'nginx', path: '/nowhere/nginx', apt: 'nginx' };

function run(env: Record<string, string>): { code: number; stderr: string } {
  try {
    execFileSync(process.execPath, [SCRIPT], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: 'pipe' });
    return { code: 0, stderr: '' };
  } catch (e: any) {
    return { code: e.status, stderr: String(e.stderr) };
  }
}

describe('npm test: the tools the tests need', () => {
  it('the table names chromium at CHROMIUM_PATH or /usr/bin/chromium, from the Debian package', () => {
    expect(TOOLS.find((t: any) => t.name === 'chromium')).toMatchObject({ apt: 'chromium' });
  });

  it('the table names nginx at NGINX_PATH or /usr/sbin/nginx, from the Debian package (the scale-out stress test runs it)', () => {
    expect(TOOLS.find((t: any) => t.name === 'nginx')).toMatchObject({ apt: 'nginx', path: process.env.NGINX_PATH || '/usr/sbin/nginx' });
  });

  it('nothing missing: nothing to do', () => {
    expect(decide([], { root: false, sudo: false, install: true })).toEqual({ action: 'ok' });
  });

  it('as root, or with passwordless sudo, installs every missing package in one apt-get', () => {
    expect(decide([chromium, nginx], { root: true, sudo: false, install: true })).toEqual({
      action: 'install', command: 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium nginx',
    });
    expect(decide([chromium], { root: false, sudo: true, install: true })).toEqual({
      action: 'install', command: 'sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive sudo apt-get install -y -qq chromium',
    });
  });

  it('neither root nor passwordless sudo: refuses with the one command to run', () => {
    expect(decide([chromium], { root: false, sudo: false, install: true })).toEqual({
      action: 'refuse', message: "npm test needs chromium: run 'sudo apt-get install -y chromium'",
    });
  });

  it('the script, with chromium missing and installing off, stops at once with that line and a non-zero exit', () => {
    const got = run({ CHROMIUM_PATH: '/nowhere/chromium', NGINX_PATH: process.execPath, CIVICSTREAM_PYTHON: 'true', CIVICSTREAM_INSTALL_TOOLS: '0' });
    expect(got.code).toBe(1);
    expect(got.stderr.trim()).toMatch(/^npm test needs chromium: run '(sudo )?apt-get install -y chromium'$/);
  });

  it('the script, with nginx missing and installing off, names nginx and its package', () => {
    const got = run({ CHROMIUM_PATH: process.execPath, NGINX_PATH: '/nowhere/nginx', CIVICSTREAM_PYTHON: 'true', CIVICSTREAM_INSTALL_TOOLS: '0' });
    expect(got.code).toBe(1);
    expect(got.stderr.trim()).toMatch(/^npm test needs nginx: run '(sudo )?apt-get install -y nginx'$/);
  });

  it('the script passes when chromium and nginx are where CHROMIUM_PATH and NGINX_PATH say', () => {
    // CIVICSTREAM_PYTHON=true: a stand-in python that imports anything.
    expect(run({ CHROMIUM_PATH: process.execPath, NGINX_PATH: process.execPath, CIVICSTREAM_PYTHON: 'true', CIVICSTREAM_INSTALL_TOOLS: '0' }).code).toBe(0);
  });

  it('the Python modules: requests and brotli (page-stream.test decodes br with requests), pipped when missing, else the one command', () => {
    expect(PY_MODULES).toEqual(['requests', 'brotli']);
    expect(decidePython([], { install: true }, 'python3')).toEqual({ action: 'ok' });
    expect(decidePython(['brotli'], { install: true }, 'python3')).toEqual({ action: 'install', command: 'python3 -m pip install -q brotli' });
    expect(decidePython(['requests', 'brotli'], { install: false }, 'python3')).toEqual({
      action: 'refuse', message: "npm test needs the Python modules requests, brotli: run 'python3 -m pip install -q requests brotli'",
    });
  });

  it('the script, with a Python module missing and installing off, names it and the pip command', () => {
    // CIVICSTREAM_PYTHON=false: a stand-in python that imports nothing.
    const got = run({ CHROMIUM_PATH: process.execPath, NGINX_PATH: process.execPath, CIVICSTREAM_PYTHON: 'false', CIVICSTREAM_INSTALL_TOOLS: '0' });
    expect(got.code).toBe(1);
    expect(got.stderr.trim()).toBe("npm test needs the Python modules requests, brotli: run 'false -m pip install -q requests brotli'");
  });
});
