// The README is followed as a newcomer would: its curl examples answer, and
// its offline commands run (serve, generate and build-estimates are covered
// in cli.test.ts; they are long-running or rewrite the fixtures).

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { arrestsUrl, financeUrl } from './helpers/http.js';
import { ROOT } from './helpers/server.js';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const shellLines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-readme-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const sh = (line: string, cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile('bash', ['-c', line], { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });

describe('README', () => {
  it('every curl example answers 200 with non-empty data: a success envelope with rows (peer comparisons with their summaries), or a file of CSV rows, Parquet or Arrow', async () => {
    const curls = shellLines.filter((l) => l.startsWith('curl ') && !l.includes('If-None-Match'));
    expect(curls.length).toBeGreaterThan(20);
    for (const line of curls) {
      const local = line.replaceAll('http://127.0.0.1:8080', financeUrl()).replaceAll('http://127.0.0.1:8081', arrestsUrl()).replace(/-o (\S+)/, `-o ${tmp}/$1`);
      const r = await sh(`${local.replace(/^curl -s /, 'curl -s -w "\\n%{http_code}" ')}`, tmp);
      const status = r.stdout.trimEnd().split('\n').at(-1);
      expect(status, line).toBe('200');
      const out = /-o (\S+)/.exec(line);
      // A saved page is CSV, a Parquet file (PAR1 at both ends) or an Arrow stream (its first message's continuation marker).
      const saved = out ? readFileSync(path.join(tmp, out[1]!)) : undefined;
      if (out && out[1]!.endsWith('.parquet')) expect([saved!.subarray(0, 4).toString(), saved!.subarray(-4).toString()], line).toEqual(['PAR1', 'PAR1']);
      else if (out && out[1]!.endsWith('.arrow')) expect(saved!.readUInt32LE(0), line).toBe(0xffffffff);
      else if (out) {
        expect(saved!.toString('utf8'), line).toMatch(/^year,canonical_govid,/);
        expect(saved!.toString('utf8').split('\r\n').filter(Boolean).length, line).toBeGreaterThan(1);
      } else {
        const env = JSON.parse(r.stdout.slice(0, r.stdout.trimEnd().lastIndexOf('\n')));
        expect(env.status, line).toBe('success');
        expect(env.data.length, line).toBeGreaterThan(0);
        // A peer comparison is only worth showing with its peers' percentiles (they were all null where no peer was found).
        if (line.includes('/peer-comparison')) {
          const medians = env.data.filter((row: { role: string }) => row.role === 'summary_p50');
          expect(medians.length, line).toBeGreaterThan(0);
          expect(medians.every((row: { amt_per_capita_nominal: number | null }) => row.amt_per_capita_nominal !== null), line).toBe(true);
        }
      }
    }
  }, 300_000);

  it('every health path it names answers 200 on both services (issue 31: it named /health, a 404)', async () => {
    const paths = [...readme.matchAll(/(?<![\w.])(\/[\w/-]*health\b)/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThanOrEqual(5);
    for (const p of new Set(paths)) {
      for (const base of [financeUrl(), arrestsUrl()]) {
        const res = await fetch(`${base}${p}`);
        await res.arrayBuffer();
        expect(res.status, `${base}${p}`).toBe(200);
      }
    }
  });

  it('its offline commands run as written: the quick start export writes a CSV, query, export and verify succeed', async () => {
    // `npx civicstream` as in a clone: the built command, run where the README's relative paths resolve.
    writeFileSync(path.join(tmp, 'civicstream'), `#!/bin/sh\nexec node ${JSON.stringify(path.join(ROOT, 'dist/src/cli/main.js'))} "$@"\n`);
    chmodSync(path.join(tmp, 'civicstream'), 0o755);
    symlinkSync(path.join(ROOT, 'fixtures'), path.join(tmp, 'fixtures'));
    const lines = shellLines.filter((l) => l.startsWith('npx civicstream ') && !/ (serve|generate|build-estimates)\b/.test(l));
    expect(lines.length).toBeGreaterThanOrEqual(7);
    for (const line of lines) {
      const cmd = line.replace(/^npx civicstream /, './civicstream ').replace(/\s+#.*$/, '');
      const r = await sh(cmd, tmp, { WORKERS: '1' });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      const out = /--out (\S+)|> (\S+)/.exec(cmd);
      if (out) {
        const file = path.join(tmp, out[1] ?? out[2]!);
        expect(existsSync(file), line).toBe(true);
        if (file.endsWith('.parquet')) expect(readFileSync(file).subarray(0, 4).toString(), line).toBe('PAR1');
        else expect(readFileSync(file, 'utf8').split('\r\n').length, line).toBeGreaterThan(100);
      } else expect(r.stdout.length, line).toBeGreaterThan(0);
    }
  }, 180_000);
});
