// bench:pairs' scenario 2 (a 50,000-row CSV page pulled again and again by 4
// clients, every pull computed) with both builds up at once, loaded one at a
// time in alternating rounds, each round's figure the server's CPU a row
// (all its threads, from /proc) beside its rows/s. bench:pairs starts a
// server per round, so a slow spell of this VM lands on one build's rounds;
// here both servers are warm for the whole run, and CPU a row does not move
// with the time this VM's cores are taken away. Appends its table to
// bench/results/pull-cpu.md.
//   node dist/bench/pull-cpu.js --old <other build's dist/src/main.js> [--data <corpus dir>] [--rounds 6] [--seconds 8] [--coding gzip]

import { appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startServer, type Running } from '../scripts/lib/server.js';
import { cpuSnapshot, type CpuSnapshot } from './lib/cpu.js';
import { csvPuller } from './lib/csv-pull.js';
import { median } from './lib/timing.js';
import { arg } from './lib/args.js';

const oldMain = path.resolve(arg('old', ''));
const dataDir = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));
const rounds = Number(arg('rounds', '6')), seconds = Number(arg('seconds', '8'));
const coding = arg('coding', '');

/** The server's CPU ticks (all threads, 10 ms each) since a snapshot. */
const serverTicks = (a: CpuSnapshot, b: CpuSnapshot): number => {
  let t = 0;
  for (const [tid, v] of b.threads) t += v - (a.threads.get(tid) ?? 0);
  return t;
};

interface Round { rate: number; nsRow: number }

async function scenario2(s: Running): Promise<Round> {
  const health = ((await (await fetch(`${s.url}/api/v1/health`)).json()) as { data: { corpus: { years: number[] } }[] }).data[0]!;
  const years = health.corpus.years;
  const csvPath = `/api/v1/spending?state=CA&type=city&years=${years[0]}-${years[years.length - 1]}&format=csv`;
  const headers: Record<string, string> = coding === '' ? {} : { 'Accept-Encoding': coding };
  const puller = csvPuller(s.url);
  await puller.pullWith(csvPath, headers);
  let rows = 0;
  const t0 = performance.now(), c0 = cpuSnapshot(s.proc.pid!);
  await Promise.all([0, 1, 2, 3].map(async () => {
    while (performance.now() - t0 < seconds * 1000) { const p = await puller.pullWith(csvPath, headers); rows += p.rows; }
  }));
  const ticks = serverTicks(c0, cpuSnapshot(s.proc.pid!));
  puller.close();
  return { rate: rows / ((performance.now() - t0) / 1000), nsRow: (ticks * 1e7) / rows };
}

const env = { FINANCE_DATA: dataDir, WORKERS: String(os.cpus().length), RESPONSE_CACHE_MB: '0' };
const servers = { old: await startServer(env, 1_800_000, oldMain), new: await startServer(env, 1_800_000, path.join(ROOT, 'dist/src/main.js')) };
const got: Record<'old' | 'new', Round[]> = { old: [], new: [] };
try {
  for (let r = 0; r < rounds; r++) {
    for (const which of (r % 2 === 0 ? ['old', 'new'] : ['new', 'old']) as ('old' | 'new')[]) got[which].push(await scenario2(servers[which]));
    const [o, n] = [got.old[r]!, got.new[r]!];
    console.log(JSON.stringify({ round: r + 1, old_rows_s: Math.round(o.rate), new_rows_s: Math.round(n.rate), old_ns_row: Math.round(o.nsRow), new_ns_row: Math.round(n.nsRow) }));
  }
} finally {
  await servers.old.stop();
  await servers.new.stop();
}

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const med = (w: 'old' | 'new', k: keyof Round): number => median(got[w].map((f) => f[k]));
const ratios = (k: keyof Round): string => got.new.map((f, i) => (f[k] / got.old[i]![k]).toFixed(3)).join(', ');
const table = [
  `## ${new Date().toISOString().slice(0, 10)}: ${path.basename(dataDir)}, Node ${process.version}, ${os.cpus().length} cores, ${rounds} rounds of ${seconds} s, 4 clients, ${coding || 'identity'}, response cache off`,
  '',
  `Old: \`${oldMain}\`. Both servers up for the whole run; the rounds alternate which goes first.`,
  '',
  '| | old | new | new / old (medians) |',
  '|---|---|---|---|',
  `| rows/s (median of ${rounds}) | ${fmt(med('old', 'rate'))} | ${fmt(med('new', 'rate'))} | ${(med('new', 'rate') / med('old', 'rate')).toFixed(3)} |`,
  `| server CPU a row, ns (median of ${rounds}) | ${fmt(med('old', 'nsRow'))} | ${fmt(med('new', 'nsRow'))} | ${(med('new', 'nsRow') / med('old', 'nsRow')).toFixed(3)} |`,
  '',
  `Per round (new / old): rows/s ${ratios('rate')}; CPU a row ${ratios('nsRow')}.`,
  '',
].join('\n');
console.log(table);
appendFileSync(path.join(ROOT, 'bench/results/pull-cpu.md'), `${table}\n`);
