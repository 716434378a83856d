// What one government's answer allocates on the thread that serves it, in-process (issue 32): the bytes of
// JavaScript heap an answer (V8's sampling heap profiler, counting the objects the collector has freed too),
// the functions that allocate them, and the young-generation collections that garbage costs (scavenges a
// thousand answers, and their pause an answer). Served, a front thread pays these pauses between answers.
// Every answer computed, through inject() (the whole pipeline less uWS: inject's own copy of a body is
// off-heap, so it is not in the figures), the money job run inline as on a front thread.
//   node dist/bench/answer-alloc.js [--old <an older build's root, holding dist/>] [--data DIR] [--govs 1000]
//     [--answers 3000] [--shape <part of a shape's name>] [--top 12] [--no-write]
// Without --old only this build is measured. Appends its table to bench/results/answer-alloc.md unless --no-write.

import { appendFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { PerformanceObserver, constants, type PerformanceEntry as Entry } from 'node:perf_hooks';
import type { financeService } from '../src/finance/http/service.js';
import type { inject } from '../src/server/inject.js';
import { withRows } from './lib/governments.js';
import { inlineBuild } from './lib/inline-build.js';
import { arg } from './lib/args.js';

const HERE = path.resolve(import.meta.dirname, '../..');
const DATA = path.resolve(arg('data', path.join(HERE, 'fixtures/finance/v6')));
const nGovs = Number(arg('govs', '1000')), answers = Number(arg('answers', '3000')), top = Number(arg('top', '12'));
const SHAPES: [string, string][] = [['spending?category=Police', 'spending?category=Police'], ['spending all categories', 'spending']];

interface Build { name: string; inject: typeof inject; service: ReturnType<typeof financeService>; close(): Promise<void> }

async function load(name: string, root: string): Promise<Build> {
  const b = await inlineBuild(root, DATA);
  return { name, inject: b.inject, service: b.service, close: () => b.ctx.pool.close() };
}

const builds: Build[] = [];
if (arg('old', '')) builds.push(await load('old', path.resolve(arg('old', ''))));
builds.push(await load('new', HERE));
const b0 = builds[0]!;
// The governments the served benches ask for: the most populous with rows in the mirror.
const govids = withRows((await b0.inject(b0.service, `/api/v1/governments?limit=${nGovs}`)).json());

/** Young-generation collections while `run` answers: how many, and their pause in all (ms). */
async function scavenges(run: () => Promise<void>): Promise<{ count: number; ms: number }> {
  const seen = { count: 0, ms: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if ((e as Entry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) { seen.count++; seen.ms += e.duration; }
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  await run();
  // Entries are delivered asynchronously, after the loop has turned: a short wait lets the last arrive.
  await new Promise((r) => setTimeout(r, 50));
  obs.disconnect();
  return seen;
}

interface Node { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: Node[] }

/** Sampled bytes allocated while `run` answers, by allocating function (a builtin named with its caller). */
async function sampled(run: () => Promise<void>): Promise<{ total: number; by: Map<string, number> }> {
  const s = new Session();
  s.connect();
  await s.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
  await run();
  const { profile } = (await s.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: Node } };
  s.disconnect();
  const by = new Map<string, number>();
  let total = 0;
  const name = (n: Node): string => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
  const walk = (n: Node, parent: string): void => {
    const own = name(n);
    const k = n.callFrame.url === '' && parent !== '' ? `${n.callFrame.functionName || '(native)'} <- ${parent}` : own;
    if (n.selfSize > 0) { by.set(k, (by.get(k) ?? 0) + n.selfSize); total += n.selfSize; }
    for (const c of n.children) walk(c, n.callFrame.url === '' ? parent : own);
  };
  walk(profile.head, '');
  return { total, by };
}

const lines: string[] = [];
const say = (s: string): void => { console.log(s); lines.push(s); };
say(`\n## ${new Date().toISOString()}: ${DATA}, ${govids.length} governments, ${answers} answers a measure\n`);
for (const [label, q] of SHAPES) {
  if (!label.includes(arg('shape', ''))) continue;
  const urls = govids.map((g) => `/api/v1/governments/${g}/${q}`);
  const results: { b: Build; gc: { count: number; ms: number }; heap: { total: number; by: Map<string, number> } }[] = [];
  for (const b of builds) {
    const run = async (): Promise<void> => { for (let i = 0; i < answers; i++) await b.inject(b.service, urls[i % urls.length]!); };
    await run(); // warm: compiled code and kept pieces, as on a server that has been answering
    results.push({ b, gc: await scavenges(run), heap: await sampled(run) });
  }
  say(`**${label}**\n`);
  say(`| build | heap bytes an answer (sampled) | scavenges a 1,000 answers | their pause an answer (us) |`);
  say('|---|---:|---:|---:|');
  for (const r of results) say(`| ${r.b.name} | ${(r.heap.total / answers).toFixed(0)} | ${((1000 * r.gc.count) / answers).toFixed(1)} | ${((1000 * r.gc.ms) / answers).toFixed(2)} |`);
  const last = results.at(-1)!;
  say(`\nWhere the ${last.b.name} build's bytes are allocated (bytes an answer; a builtin is named with the function that called it):\n`);
  say('| function | bytes an answer |');
  say('|---|---:|');
  for (const [k, v] of [...last.heap.by].sort((p, q2) => q2[1] - p[1]).slice(0, top)) say(`| \`${k}\` | ${(v / answers).toFixed(0)} |`);
  say('');
}
await Promise.all(builds.map((b) => b.close()));
if (!process.argv.includes('--no-write')) appendFileSync(path.join(HERE, 'bench/results/answer-alloc.md'), `${lines.join('\n')}\n`);
