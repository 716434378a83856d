// `npm start` to healthy (issue 31, item 9): the time from running `npm start`
// in the checkout to /api/v1/health answering 200 on both services, on the
// bundled fixture with the defaults a user gets (ports 0, read from the
// listening lines). Runs on a built checkout (dist/ current: no tsc), then
// once with a source touched (dist/ stale: the start builds first).
//   npm run bench:start

import { spawn } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../scripts/lib/server.js';

interface Run { healthy: number; listening: number; built: boolean }

/** One `npm start` (or, direct, the server's own command): seconds to both services' /api/v1/health 200, and to the listening lines. */
async function once(direct = false): Promise<Run> {
  const t0 = performance.now();
  const [cmd, args] = direct ? [process.execPath, ['dist/src/cli/main.js', 'serve']] : ['npm', ['start', '--silent']];
  const proc = spawn(cmd, args, {
    cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FINANCE_PORT: '0', ARRESTS_PORT: '0', ACCESS_LOG: 'false' },
  });
  let out = '', err = '';
  proc.stderr!.on('data', (d) => { err += d; });
  const ports = await new Promise<{ finance: number; arrests: number; at: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen in 120 s: ${err}`)), 120_000);
    proc.stdout!.on('data', (d) => {
      out += d;
      const lines = out.split('\n').filter((l) => l.includes('"event":"listening"')).map((l) => JSON.parse(l) as { service: string; port: number });
      const f = lines.find((l) => l.service === 'finance'), a = lines.find((l) => l.service === 'arrests');
      if (f && a) { clearTimeout(timer); resolve({ finance: f.port, arrests: a.port, at: performance.now() }); }
    });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`npm start exited ${code}: ${err}`)); });
  });
  for (const port of [ports.finance, ports.arrests]) {
    for (let t = 0; t < 6000; t++) {
      const status = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.status, () => 0);
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const healthy = performance.now();
  const exited = new Promise((r) => proc.once('exit', r));
  process.kill(-proc.pid!, 'SIGTERM');
  await exited;
  return { healthy: (healthy - t0) / 1000, listening: (ports.at - t0) / 1000, built: err.includes('civicstream: building') };
}

const RUNS = 5;
const current: Run[] = [], server: Run[] = [];
await once(); // a first start warms the page cache (node_modules, the fixture), as any start after the first finds it
// Interleaved with the server started by its own command (node dist/src/cli/main.js serve), so the cost of
// `npm start` itself (npm, the staleness check) reads apart from the machine's load at the time.
for (let i = 0; i < RUNS; i++) { current.push(await once()); server.push(await once(true)); }
// A source touched: the start must build first.
const touched = path.join(ROOT, 'src/version.ts');
const now = new Date();
utimesSync(touched, now, now);
const stale = await once();
const again = await once();

const med = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const s = (x: number): string => x.toFixed(2);
const load = os.loadavg()[0]!.toFixed(1);
const table = [
  `npm start to /api/v1/health 200 on both services, fixtures (finance v6, arrests), ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores, defaults (WORKERS and FRONT_THREADS: the core count); load average ${load} at the end`,
  '',
  '| dist/ | runs | npm start to listening (s) | npm start to healthy (s) | built first |',
  '|---|---|---|---|---|',
  `| current (built checkout) | ${RUNS}, median (min-max) | ${s(med(current.map((r) => r.listening)))} | ${s(med(current.map((r) => r.healthy)))} (${s(Math.min(...current.map((r) => r.healthy)))}-${s(Math.max(...current.map((r) => r.healthy)))}) | ${current.filter((r) => r.built).length} of ${RUNS} |`,
  `| server alone (node dist/src/cli/main.js serve, interleaved) | ${RUNS}, median (min-max) | ${s(med(server.map((r) => r.listening)))} | ${s(med(server.map((r) => r.healthy)))} (${s(Math.min(...server.map((r) => r.healthy)))}-${s(Math.max(...server.map((r) => r.healthy)))}) | - |`,
  `| stale (src/version.ts touched) | 1 | ${s(stale.listening)} | ${s(stale.healthy)} | ${stale.built ? 'yes' : 'no'} |`,
  `| current again (after that build) | 1 | ${s(again.listening)} | ${s(again.healthy)} | ${again.built ? 'yes' : 'no'} |`,
  '',
  'Before issue 31 `npm start` ran tsc on every start (healthy after 6.7 s, of which the server took 2-4 s); now scripts/build.mjs --if-stale builds only when a source is newer than dist/.build-stamp.',
].join('\n');
console.log(table);
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/start.md'), `${table}\n`);
