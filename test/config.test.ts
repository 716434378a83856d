// Configuration: the README's table and the environment parser agree with the declared variables.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARS, readConfig } from '../dist/src/config.js';

describe('configuration', () => {
  it('the README documents every declared variable, and only those', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5));
    const documented = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(CONFIG_VARS.map((v) => v.env).sort());
  });

  it('numbers are range-checked with a message naming the variable', () => {
    expect(readConfig({}).shutdownGraceMs).toBe(10_000);
    expect(readConfig({ SHUTDOWN_GRACE_MS: '250' }).shutdownGraceMs).toBe(250);
    expect(() => readConfig({ SHUTDOWN_GRACE_MS: '-1' })).toThrow(/SHUTDOWN_GRACE_MS must be an integer from 0 to 600000/);
    expect(() => readConfig({ WORKERS: 'two' })).toThrow(/WORKERS must be an integer/);
    // Each CSV stream holds a slot: a server without any could stream no CSV at all.
    expect(() => readConfig({ CSV_PAGE_SLOTS: '0' })).toThrow(/CSV_PAGE_SLOTS must be an integer from 1 to 1024/);
  });

  it('switches are true or false, nothing else', () => {
    expect(readConfig({}).sharePort).toBe(false);
    expect(readConfig({ SHARE_PORT: 'true' }).sharePort).toBe(true);
    expect(() => readConfig({ SHARE_PORT: 'yes' })).toThrow(/SHARE_PORT must be true or false; got 'yes'/);
  });
});
