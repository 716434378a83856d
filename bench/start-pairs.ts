// The CPU a start costs: this build against another (--old DIR, a built checkout), started in turns on the
// same mirrors, each run until both services log "listening". Reports the wall time and the whole process's
// CPU (every thread: loaders, front threads, pool workers) from /proc, which is what a test suite that starts
// many servers, and a fleet that restarts, pays. Appends to bench/results/start-pairs.md unless --no-write.
//   node dist/bench/start-pairs.js --old /work/old [--rounds 4]

import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg } from './lib/args.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const old = arg('old', null) ?? undefined;
const rounds = Number(arg('rounds', '4'));
const TICK = 100; // clock ticks a second (getconf CLK_TCK on Linux)

interface Start { wallS: number; cpuS: number }

/** One start of the build in dir on this checkout's fixtures: wall and CPU seconds to both listening lines. */
function start(dir: string): Promise<Start> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const proc = spawn(process.execPath, [path.join(dir, 'dist/src/main.js')], {
      cwd: dir,
      env: {
        ...process.env, FINANCE_PORT: '0', ARRESTS_PORT: '0', ACCESS_LOG: 'false', BULK_BUILD: 'false',
        FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v6'), ARRESTS_DATA: path.join(ROOT, 'fixtures/arrests'),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // A start that hangs ends the bench with its reason, not the machine's patience.
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`${dir}: not listening within 120 s`)); }, 120_000);
    let out = '', done = false;
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (done || (out.match(/"event":"listening"/g) ?? []).length < 2) return;
      done = true;
      clearTimeout(timer);
      const wallS = (performance.now() - t0) / 1000;
      const f = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      const cpuS = (Number(f[11]) + Number(f[12])) / TICK; // utime and stime, fields 14 and 15
      proc.kill('SIGKILL');
      proc.once('exit', () => resolve({ wallS, cpuS }));
    });
    proc.once('exit', (code) => { if (!done) reject(new Error(`${dir}: exited ${code} before listening`)); });
  });
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };

const builds: [string, string][] = [...(old ? [['old', path.resolve(old)] as [string, string]] : []), ['new', ROOT]];
const got = new Map<string, Start[]>(builds.map(([name]) => [name, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, dir] of builds) {
    const s = await start(dir);
    got.get(name)!.push(s);
    console.log(JSON.stringify({ round: r + 1, code: name, wall_s: +s.wallS.toFixed(2), cpu_s: +s.cpuS.toFixed(2) }));
  }
}
const lines = [
  `## ${new Date().toISOString()}: a start to both services listening, fixtures, Node ${process.version}, ${os.availableParallelism()} cores, ${rounds} rounds in turns${old ? ` (old: ${old})` : ''}`,
  '',
  '| | wall (s, median) | CPU, whole process (s, median) | every round: wall, CPU |',
  '|---|---:|---:|---|',
  ...builds.map(([name]) => {
    const xs = got.get(name)!;
    return `| ${name} | ${median(xs.map((x) => x.wallS)).toFixed(2)} | ${median(xs.map((x) => x.cpuS)).toFixed(2)} | ${xs.map((x) => `${x.wallS.toFixed(2)}, ${x.cpuS.toFixed(2)}`).join('; ')} |`;
  }),
  '',
];
console.log(lines.join('\n'));
if (!process.argv.includes('--no-write')) appendFileSync(path.join(ROOT, 'bench/results/start-pairs.md'), `${lines.join('\n')}\n`);
