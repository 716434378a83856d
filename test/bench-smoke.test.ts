// The benchmarks cannot rot: each runs here in a tiny smoke version (the
// fixture, durations of a second) and must write its table with figures.
// No timing is asserted: speed is judged by the full runs, not by tests.

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';

// Run without blocking this process: a synchronous run held vitest's worker loop for the whole bench (84 s on a slow
// machine), past its 60-s wait for the runner's replies, and the run failed with "Timeout calling onTaskUpdate".
const run = async (script: string, ...args: string[]): Promise<string> =>
  (await promisify(execFile)(process.execPath, [path.join(ROOT, 'dist/bench', script), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 240_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ACCESS_LOG: 'false' } })).stdout;

describe('benchmark smoke runs', () => {
  it('bench:load --smoke runs every scenario on the fixture and writes its table', async () => {
    const out = await run('load.js', '--smoke');
    const table = readFileSync(path.join(ROOT, 'bench/results/load-smoke.md'), 'utf8');
    expect(out).toContain('### 1.');
    for (const section of ['### 1.', '### 2.', '### 3 and 4.', '### 5.']) expect(table).toContain(section);
    expect(table).toMatch(/\| 1,131,643 \| [\d,]+ \|/);
    expect(table).toContain('uWebSockets.js ceiling');
    // Scenario 6: the pool's answer size, the server's CPU a request and a row, and one government's one year.
    expect(table).toMatch(/Scenario 6[\s\S]*\| 1,131,643 \| [\d.,]+, [\d,]+ \| [\d,]+, [\d.,]+ \| [\d.]+ \|\n/);
    // The CPU accounting row: three measured costs, the bound they imply, and the idle share of the cores.
    expect(table).toMatch(/\| 1,131,643 \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| \d+% \| [\d,]+, \d+% \|\n/);
    expect(table).toMatch(/ceiling in the same run: [\d,]+ req\/s .*cores idle \d+%/);
    expect(table).toMatch(/CPU per 1,000 rows[\s\S]*\| 1,131,643 \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d,]+ \| \d+% \|\n/);
  }, 300_000);

  it('bench:answer-alloc measures an answer\'s heap bytes, its allocating functions and its scavenges on the fixture', async () => {
    // 1,200 answers of about 40 KB each fill the young generation a few times over: scavenges are certain.
    const out = await run('answer-alloc.js', '--no-write', '--answers', '1200', '--govs', '40', '--top', '5');
    for (const shape of ['spending?category=Police', 'spending all categories']) {
      // The build's row: bytes an answer (thousands at least: an envelope and its rows), scavenges and their pause.
      const row = new RegExp(`\\*\\*${shape.replace(/[?]/g, '\\?')}\\*\\*\\n\\n[^\\n]+\\n[^\\n]+\\n\\| new \\| (\\d+) \\| ([\\d.]+) \\| ([\\d.]+) \\|`).exec(out);
      expect(row, shape).not.toBeNull();
      const [bytes, scavenges, pause] = row!.slice(1).map(Number);
      expect(bytes).toBeGreaterThan(1000);
      // Counted, not merely printed: a count that missed the collector's entries would read 0.0 here.
      expect(scavenges).toBeGreaterThan(0);
      expect(pause).toBeGreaterThan(0);
    }
    // The functions that allocate, each with its bytes: the money table's among them.
    expect(out).toMatch(/\| `[^`]*money-table\.js:\d+[^`]*` \| \d+ \|/);
  }, 120_000);

  it('bench:wasm-rows writes real rows both ways, each equal to JSON.stringify\'s bytes, and times both', async () => {
    // The bench stops with an error when either writer's bytes differ from JSON.stringify's for the same rows.
    const out = await run('wasm-rows.js', '--no-write', '--rounds', '1', '--govs', '40');
    for (const n of ['110', '1000']) {
      const row = new RegExp(`^\\| ${n} \\| ([\\d,]+) \\| ([\\d.]+) \\| ([\\d.]+) \\| ([\\d.]+) \\|`, 'm').exec(out);
      expect(row, `${n} rows`).not.toBeNull();
      const [bytes, js, copy, view] = row!.slice(1).map((x) => Number(x.replace(/,/g, '')));
      // A batch is real rows of about 200 bytes each, and each way took some time to write it.
      expect(bytes).toBeGreaterThan(100 * Number(n));
      for (const us of [js, copy, view]) expect(us).toBeGreaterThan(0);
    }
  }, 120_000);

  it('bench:start-pairs times a start to both services listening, wall and the whole process\'s CPU', async () => {
    const out = await run('start-pairs.js', '--no-write', '--rounds', '1');
    const row = /\| new \| ([\d.]+) \| ([\d.]+) \|/.exec(out);
    expect(row).not.toBeNull();
    const [wall, cpu] = row!.slice(1).map(Number);
    // A start loads two corpora on several threads: seconds of CPU, read from /proc (0 if the fields were misread).
    expect(wall).toBeGreaterThan(0.5);
    expect(cpu).toBeGreaterThan(1);
  }, 120_000);
});
