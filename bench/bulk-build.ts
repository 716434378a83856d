// The bulk set built on its build threads at nice 19 (issue 32; the
// threads and their niceness as the server's bulk_files log line reports
// them): a server started on a corpus
// with no bulk set built (its cache sets removed first; a prebuilt set beside
// the mirror is refused, since the server would serve it) builds every file,
// timed from its listening to the last file ready (and by the server's own
// bulk_files log line), while one client asks one government's JSON answer at
// a modest fixed rate (open loop: a request every 1/rate s, however long the
// others take); their p50/p99 during the build (after a warm-up of 2 s, not
// counted), and for as long again after it, beside the build's time, rows
// and bytes. Written to bench/results/bulk-build.md (not with --quick).
//   npm run bench:bulk-build [-- --data .data/finance-46m] [--rate 200] [--main path/to/dist/src/main.js --label old] [--quick]
// --main times another build's server (run the script once for each, one after the other); the table is appended.
// --quick runs on the fixture, to check that the script works (seconds, not a measurement).

import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAIN, ROOT, startServer, type Running } from '../scripts/lib/server.js';
import { cacheRoots } from '../src/finance/load-cache.js';
import { median, pct } from './lib/timing.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
};
const quick = process.argv.includes('--quick');
const rate = Number(arg('rate', quick ? '50' : '200'));
/** --quick: a fresh copy of the fixture (no set beside it, none cached for its path). */
function quickCopy(): string {
  const src = path.join(ROOT, 'fixtures/finance/v6'), out = path.join(mkdtempSync(path.join(os.tmpdir(), 'civicstream-bench-bulk-')), 'v6');
  cpSync(src, out, { recursive: true, filter: (f) => !['.civicstream-cache', 'bulk'].includes(path.relative(src, f).split(path.sep)[0]!) });
  return out;
}
const serverMain = path.resolve(arg('main', MAIN));
const label = arg('label', serverMain === MAIN ? 'this checkout' : serverMain);
const dir = path.resolve(quick ? quickCopy() : arg('data', path.join(ROOT, '.data', 'finance-46m')));

interface Listing { data: { status: string; rows: number | null; bytes: number | null }[]; meta: { total: number; ready: number; failed: number } }
const get = async (s: Running, p: string): Promise<any> => (await fetch(`${s.url}${p}`)).json();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The server's cache sets of this corpus (what it would serve rather than build) removed. */
function removeCacheSets(): void {
  for (const root of cacheRoots(dir)) {
    if (!existsSync(root)) continue;
    for (const name of readdirSync(root)) if (/^bulk-[0-9a-f]{16}$/.test(name)) rmSync(path.join(root, name), { recursive: true, force: true });
  }
}

/** One government's answers at `rate` a second until stop() resolves; each answer's milliseconds (a failed one counted apart). */
function oneGovernment(s: Running, govs: string[]): { stop: () => Promise<{ ms: number[]; failed: number }> } {
  const ms: number[] = [];
  let failed = 0, k = 0;
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const url = `${s.url}/api/v1/governments/${govs[(k++ * 7919) % govs.length]}/spending?category=Police`;
    const t0 = performance.now();
    const p = fetch(url).then(async (r) => { await r.arrayBuffer(); if (r.ok) ms.push(performance.now() - t0); else failed++; }, () => { failed++; });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }, 1000 / rate);
  return { stop: async () => { clearInterval(timer); await Promise.all(inFlight); return { ms, failed }; } };
}

/** The build's threads and the niceness they reported, from the server's bulk_files line (none reported: normal priority). */
const threadsText = (l: Record<string, unknown> | null): string => {
  const nice = l?.nice as number[] | undefined;
  return l?.build_threads === undefined ? 'n/a' : `${String(l.build_threads)}, ${nice !== undefined && nice.length > 0 ? `nice ${nice.join(', ')}` : 'normal priority'}`;
};

const figures = (r: { ms: number[]; failed: number }): string =>
  `${r.ms.length} answers, p50 ${median(r.ms).toFixed(2)} ms, p99 ${pct(r.ms, 0.99).toFixed(2)} ms, max ${Math.max(...r.ms).toFixed(1)} ms, failed ${r.failed}`;

async function main(): Promise<void> {
  if (existsSync(path.join(dir, 'bulk', 'index.json'))) throw new Error(`${dir}/bulk/ holds a prebuilt set, which the server would serve: move it away to time a build`);
  removeCacheSets();
  let logged: Record<string, unknown> | null = null;
  const s = await startServer({ FINANCE_DATA: dir, WORKERS: String(os.availableParallelism()), BULK_BUILD: 'true' }, 1_800_000, serverMain);
  const t0 = performance.now();
  s.proc.stdout!.on('data', (d: Buffer) => {
    const line = d.toString().split('\n').find((l) => l.includes('"event":"bulk_files"'));
    if (line !== undefined) logged = JSON.parse(line) as Record<string, unknown>;
  });
  try {
    const govs: string[] = (await get(s, '/api/v1/governments?limit=1000')).data.filter((g: any) => g.years_in_mirror.length > 0).map((g: any) => g.canonical_govid);
    // The first answers of a fresh server pay its warm-up (JIT, caches of names): not counted, the build going on meanwhile.
    const warm = oneGovernment(s, govs);
    await sleep(quick ? 500 : 2000);
    await warm.stop();
    const during = oneGovernment(s, govs);
    let listing: Listing = await get(s, '/api/v1/bulk');
    while (listing.meta.ready + listing.meta.failed < listing.meta.total) {
      await sleep(quick ? 50 : 250);
      listing = await get(s, '/api/v1/bulk');
    }
    const buildMs = performance.now() - t0;
    const d = await during.stop();
    // As long again (at most a minute) with no build: the same answers' latency on the same server.
    const after = oneGovernment(s, govs);
    await sleep(Math.min(60_000, Math.max(2000, buildMs)));
    const a = await after.stop();
    const rows = listing.data.filter((e) => e.status === 'ready').reduce((n, e) => n + (e.rows ?? 0), 0) / 2;
    const bytes = listing.data.reduce((n, e) => n + (e.bytes ?? 0), 0);
    const lines = [
      `## ${new Date().toISOString()}: ${label}`, '',
      `Corpus ${dir}, ${os.availableParallelism()} cores; one government's JSON at ${rate}/s throughout.`, '',
      `| | figure |`, `|---|---|`,
      `| files ready / failed / total | ${listing.meta.ready} / ${listing.meta.failed} / ${listing.meta.total} |`,
      `| rows (each table-year counted once) | ${rows.toLocaleString('en-US')} |`,
      `| bytes (all files) | ${bytes.toLocaleString('en-US')} |`,
      `| build, listening to last file ready | ${(buildMs / 1000).toFixed(1)} s (${Math.round(rows / (buildMs / 1000)).toLocaleString('en-US')} rows/s) |`,
      `| build, the server's bulk_files log | ${logged === null ? 'n/a' : `${((logged as { ms: number }).ms / 1000).toFixed(1)} s`} |`,
      `| build threads, their niceness (the same log) | ${threadsText(logged)} |`,
      `| one government during the build | ${figures(d)} |`,
      `| one government after it | ${figures(a)} |`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (!quick) appendFileSync(path.join(ROOT, 'bench/results/bulk-build.md'), `\n${lines.join('\n')}\n`);
  } finally {
    await s.stop();
    if (quick) rmSync(path.dirname(dir), { recursive: true, force: true });
  }
}

main().catch((err: unknown) => { process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`); process.exit(1); });
