// What one replica holds, for sizing a deploy (issue 20): RSS at ready, at
// its peak under a load that fills what the server lets grow (every CSV page
// slot held by a stream, plain and gzip; the response cache fed distinct
// small answers), and after the load. Worker threads are threads of the one
// process, so the process's RSS is the replica's; its peak is VmHWM.
// --cold starts without the load cache, as a new pod does (its temp directory empty): the whole
// mirror decoded, whose garbage the heaps keep for a while.
//   npm run bench:sizing [-- --data <mirror dir>] [--seconds 45] [--cold]   (default: the bundled fixture)

import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT, startServer } from '../scripts/lib/server.js';
import { csvPuller } from './lib/csv-pull.js';
import { load } from './lib/load.js';
import { arg } from './lib/args.js';

const data = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));
const SECONDS = Number(arg('seconds', '45'));
// One more puller than CSV_PAGE_SLOTS' default (12): every slot is held while they run.
const PULLERS = 13;

const status = (pid: number, key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
const mb = (b: number): string => (b / 1048576).toFixed(0);

const cold = process.argv.includes('--cold');
// RATE_LIMIT=0: the load is one client, which the limits would hold to 100 requests a second.
const s = await startServer({ FINANCE_DATA: data, WORKERS: '2', RATE_LIMIT: '0', ...(cold ? { CIVICSTREAM_LOAD_CACHE: 'off' } : {}) }, 300_000);
const pid = s.proc.pid!;
const atReady = Number(s.ready.rss_bytes);
const govs = (await (await fetch(`${s.url}/api/v1/governments?limit=1000`)).json() as { data: { canonical_govid: string }[] }).data.map((g) => g.canonical_govid);
const years = (s.ready.rows as number) > 5_000_000 ? [2011, 2015, 2019, 2020] : [2011, 2019, 2020];

// CSV pullers: each walks its own pages (types x years x tables), half of them gzip, 503s (no slot free) retried.
let pulled = 0, refused = 0;
const until = performance.now() + SECONDS * 1000;
const pullers = Array.from({ length: PULLERS }, async (_, i) => {
  const p = csvPuller(s.url);
  for (let k = i; performance.now() < until; k += PULLERS) {
    const q = `/api/v1/${k % 2 ? 'revenue' : 'spending'}?type=${['city', 'county', 'township'][k % 3]}&years=${years[k % years.length]}&format=csv&limit=50000`;
    // Awaited, then added: `pulled += await ...` reads pulled before the await and loses the other pullers' rows.
    try { const got = (await p.pullWith(q, i % 2 ? { 'accept-encoding': 'gzip' } : {})).rows; pulled += got; } catch { refused++; await new Promise((r) => setTimeout(r, 200)); }
  }
  p.close();
});
let n = 0;
const small = load(s.url, () => `/api/v1/governments/${govs[n++ % govs.length]}/${n % 2 ? 'spending' : 'revenue'}?years=2011-2020`, { connections: 4, seconds: SECONDS });
const [smallResult] = await Promise.all([small, ...pullers]);
const peak = status(pid, 'VmHWM'), after = status(pid, 'VmRSS');
const health = await (await fetch(`${s.url}/api/v1/health`)).json() as { data: { memory: { rss_bytes: number | null } }[] };
await s.stop();

const name = path.relative(ROOT, data) || data;
const line = `| ${name}${cold ? ' (cold: no load cache)' : ''} | ${(Number(s.ready.rows) / 1e6).toFixed(1)} M | ${mb(Number(s.ready.shared_bytes))} | ${mb(atReady)} | ${mb(peak)} | ${mb(after)} | ${SECONDS} s: ${smallResult.total} small, ${(pulled / 1e6).toFixed(1)} M CSV rows, ${refused} pulls refused 503 |`;
console.log(line);
console.log(`/health after the load: rss_bytes ${health.data[0]!.memory.rss_bytes}`);
const file = path.join(ROOT, 'bench/results/deploy-sizing.md');
mkdirSync(path.dirname(file), { recursive: true });
const head = '| mirror | rows | corpus in shared memory (MB) | RSS at ready (MB) | peak RSS under load (MB) | RSS after (MB) | load |\n|---|---|---|---|---|---|---|\n';
writeFileSync(file, `${existsSync(file) ? readFileSync(file, 'utf8') : head}${line}\n`);
