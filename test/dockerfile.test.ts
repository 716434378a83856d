// The Dockerfile cannot be built here (no Docker engine), so it is linted
// (dockerfile-utils, the validator behind the Docker language server) and its
// instructions are read back: the points the image must hold.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
const df = DockerfileParser.parse(text);
const args = (keyword: string): string[][] => df.getInstructions().filter((i) => i.getKeyword() === keyword).map((i) => i.getArguments().map((a) => a.getValue()));
const env = Object.fromEntries(args('ENV').flat().map((kv) => kv.split('=') as [string, string]));

describe('Dockerfile', () => {
  it('lints clean', () => {
    expect(validate(text).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('multi-stage on Debian 12 slim, non-root, the fixtures baked in, listening on all interfaces', () => {
    const froms = args('FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f[0]).toMatch(/^node:20-bookworm-slim$/);
    expect(args('USER').at(-1)![0]).not.toMatch(/^(root|0)$/);
    expect(args('COPY').some((a) => a[0] === 'fixtures')).toBe(true);
    expect(args('COPY').some((a) => a[0] === 'explore')).toBe(true);
    expect(env.HOST).toBe('0.0.0.0');
    expect(env.NODE_ENV).toBe('production');
  });

  it('exposes both ports it serves on, checks both services are ready, and names the mirrors without container paths', () => {
    expect(args('EXPOSE').flat().sort()).toEqual([env.FINANCE_PORT, env.ARRESTS_PORT].sort());
    const health = df.getInstructions().find((i) => i.getKeyword() === 'HEALTHCHECK')!.toString();
    expect(health).toContain('FINANCE_PORT');
    expect(health).toContain('ARRESTS_PORT');
    expect(health).toContain('/readyz');
    for (const k of ['MIRROR_URL', 'ARRESTS_MIRROR_URL']) expect(env[k]).toMatch(/^fixtures\//);
    const cmd = df.getInstructions().find((i) => i.getKeyword() === 'CMD')!.toString().replace(/^CMD\s+/, '');
    expect(JSON.parse(cmd)).toEqual(['node', 'dist/src/cli/main.js', 'serve']);
  });
});
