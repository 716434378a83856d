// What one government's JSON answer costs the thread that serves it, in-process, one build against another
// (issue 32): microseconds of CPU per answer, every answer computed (no response cache, no rate limit), the
// money job run inline as on a front thread. Three spans, each timed over the same governments:
//   pipeline           the whole request through inject() (validate, freshness, the handler, render): all but uWS
//   handler + render   the route's handler (plan, the money job, answer()) and serialize() of its envelope
//   answer + render    answer() and serialize() alone, over a money result computed once per government
// Rounds alternate which build goes first; each figure is the median of the rounds. Before timing, both builds
// answer every URL and the bodies must be byte-identical. Beside each shape's figures, in the same run: DuckDB
// (in this process, over the same parquet, its default threads, warm) answering the same question, each
// answer's provenance SQL (as bench/load.ts's scenario 1 does), over the first --duck-govs governments: the
// median wall and the mean CPU (all its threads) of one query, in microseconds.
//   node dist/bench/answer-cost.js [--old <an older build's root, holding dist/>] [--data DIR] [--govs 200] [--rounds 9] [--ms 150]
//     [--pipeline] [--only <part of a span's name>] [--shape <part of a shape's name>] [--duck-govs 20] [--served]
// --data: the corpus (default the fixture, fixtures/finance/v6); at full scale `--data .data/finance-46m` (each
// build loads it, about 20 s and its memory a build).
// Without --old only this build is timed. Run briefly: the machine is shared, so only old against new in the
// same run means anything.

import path from 'node:path';
import { duckCost, duckThreads, type DuckCost } from './lib/duck.js';
import type { financeService } from '../src/finance/http/service.js';
import { withRows } from './lib/governments.js';
import { inlineBuild } from './lib/inline-build.js';
import type { inject } from '../src/server/inject.js';
import type { serialize, Envelope } from '../src/server/envelope.js';
import type { answer } from '../src/finance/http/money.js';
import type { planOf } from '../src/finance/plan-of.js';
import type { moneyJob } from '../src/finance/run-money.js';
import type { MoneyRoute } from '../src/finance/money-table.js';
import type { Reply, RouteRequest } from '../src/server/route-spec.js';
import type { FinanceCtx } from '../src/finance/context.js';
import { arg } from './lib/args.js';

const HERE = path.resolve(import.meta.dirname, '../..');
const nGovs = Number(arg('govs', '200')), rounds = Number(arg('rounds', '9')), ms = Number(arg('ms', '150'));
const DATA = path.resolve(arg('data', path.join(HERE, 'fixtures/finance/v6')));
const duckGovs = Number(arg('duck-govs', '20'));

/** The URLs timed: the issue's answer first, then other shapes of one government's answer. */
const ALL_SHAPES: [string, string, string][] = [
  ['spending?category=Police', 'spending', 'category=Police'],
  ['spending all categories', 'spending', ''],
  ['profile adjust=real per_capita', 'profile', 'adjust=real&per_capita=true'],
  ['balances', 'balances', ''],
];
/** --shape keeps only the shapes it names: timed and held to identical bodies (an intended change elsewhere is no failure). */
const SHAPES = ALL_SHAPES.filter(([label]) => label.includes(arg('shape', '')));
const ROUTES: Record<string, MoneyRoute> = {
  spending: { verb: 'spending', flows: ['expenditure'], subtypeField: 'spend_subtype', withFlow: false },
  profile: { verb: 'profile', flows: ['expenditure', 'revenue'], subtypeField: 'subtype', withFlow: true },
  balances: { verb: 'balances', flows: ['balance'], subtypeField: 'balance_subtype', withFlow: false },
};

interface Build {
  name: string;
  inject: typeof inject;
  serialize: typeof serialize;
  answer: typeof answer;
  planOf: typeof planOf;
  moneyJob: typeof moneyJob;
  ctx: FinanceCtx;
  service: ReturnType<typeof financeService>;
  /** The validated request each URL's handler was given, and the handler. */
  reqs: Map<string, RouteRequest<FinanceCtx, never>>;
  handles: Map<string, (req: RouteRequest<FinanceCtx, never>) => Promise<Reply> | Reply>;
}

async function load(name: string, root: string): Promise<Build> {
  const { ctx, service, inject: inj, from } = await inlineBuild(root, DATA);
  const b: Build = {
    name, ctx, service, reqs: new Map(), handles: new Map(), inject: inj,
    serialize: (await from<{ serialize: typeof serialize }>('src/server/envelope.js')).serialize,
    answer: (await from<{ answer: typeof answer }>('src/finance/http/money.js')).answer,
    planOf: (await from<{ planOf: typeof planOf }>('src/finance/plan-of.js')).planOf,
    moneyJob: (await from<{ moneyJob: typeof moneyJob }>('src/finance/run-money.js')).moneyJob,
  };
  // The money routes' handlers, wrapped to keep the request each URL was given (only while capturing).
  for (const r of b.service.routes as { id: string; handle: (req: RouteRequest<FinanceCtx, never>) => Promise<Reply> | Reply }[]) {
    if (!/^government_(spending|profile|balances)$/.test(r.id)) continue;
    const orig = r.handle;
    r.handle = (req) => { if (capturing) { b.reqs.set(req.url, req); b.handles.set(req.url, orig); } return orig(req); };
  }
  return b;
}

let capturing = true;
const builds: Build[] = [];
const oldRoot = arg('old', '');
if (oldRoot) builds.push(await load('old', path.resolve(oldRoot)));
builds.push(await load('new', HERE));
const first = builds[0]!.ctx;
// --served: the governments the served benches ask for (bench:load, bench:pairs): the 1,000 most populous with
// rows in the mirror, taken evenly; otherwise evenly over the whole registry (many without rows).
const served = process.argv.includes('--served')
  ? withRows((await builds[0]!.inject(builds[0]!.service, '/api/v1/governments?limit=1000')).json())
  : null;
const govids = served !== null
  ? Array.from({ length: Math.min(nGovs, served.length) }, (_, k) => served[Math.floor((k * served.length) / Math.min(nGovs, served.length))]!)
  : Array.from({ length: nGovs }, (_, k) => first.catalog.governments[Math.floor((k * first.catalog.governments.length) / nGovs)]!.canonical_govid);
const urlOf = (verb: string, q: string, g: string): string => `/api/v1/governments/${g}/${verb}${q ? `?${q}` : ''}`;

// Same bytes from both builds, for every URL; and each build's captured requests (canonical URLs).
const canonical = new Map<string, string>();
/** Per shape, the provenance SQL of its first --duck-govs governments' answers: what DuckDB is timed on. */
const duckSql = new Map<string, string[]>();
for (const [label, verb, q] of SHAPES) {
  duckSql.set(label, []);
  for (const [k, g] of govids.entries()) {
    const bodies = await Promise.all(builds.map((b) => b.inject(b.service, urlOf(verb, q, g))));
    if (bodies.some((r) => r.status !== 200)) throw new Error(`not 200: ${urlOf(verb, q, g)}`);
    if (bodies.some((r) => !r.body.equals(bodies[0]!.body))) throw new Error(`bodies differ: ${urlOf(verb, q, g)}`);
    canonical.set(urlOf(verb, q, g), [...builds[0]!.reqs.keys()].at(-1)!);
    if (k < duckGovs) duckSql.get(label)!.push((JSON.parse(bodies[0]!.body.toString()) as { provenance: { sql_query: string } }).provenance.sql_query);
  }
}
capturing = false;
console.log(`identical: ${canonical.size} URLs (${SHAPES.length} shapes x ${govids.length} governments), body bytes`);

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]!; };

/** DuckDB's one answer of a shape: each government's SQL run twice, the second timed (DuckDB warm); median wall, mean CPU (us). */
async function duckShape(sqls: string[]): Promise<{ wall: number; cpu: number }> {
  const each: DuckCost[] = [];
  for (const sql of sqls) each.push(await duckCost(sql, 1));
  return { wall: 1000 * median(each.map((c) => c.wallMs)), cpu: (1000 * each.reduce((n, c) => n + c.cpuMs, 0)) / each.length };
}
const duck = new Map<string, { wall: number; cpu: number }>();
for (const [label] of SHAPES) if (label.includes(arg('shape', ''))) duck.set(label, await duckShape(duckSql.get(label)!));
console.log(`DuckDB ${await duckThreads()} threads (its default), in this process, the same parquet (${DATA}); its figures: the answers' provenance SQL over the first ${Math.min(duckGovs, govids.length)} governments`);

/** Per build, per shape: the span's one answer for government k. */
type Span = (b: Build, verb: string, q: string) => Promise<(k: number) => unknown>;
const spans: Record<string, Span> = {
  pipeline: async (b, verb, q) => (k) => b.inject(b.service, urlOf(verb, q, govids[k]!)),
  'handler + render': async (b, verb, q) => {
    const reqs = govids.map((g) => b.reqs.get(canonical.get(urlOf(verb, q, g))!)!);
    const handle = b.handles.get(reqs[0]!.url)!;
    return async (k) => {
      const reply = await handle(reqs[k]!);
      return reply.kind === 'envelope' ? b.serialize(reply.envelope) : reply;
    };
  },
  'answer + render': async (b, verb, q) => {
    const route = ROUTES[verb]!;
    const parts = await Promise.all(govids.map(async (g) => {
      const req = b.reqs.get(canonical.get(urlOf(verb, q, g))!)! as unknown as RouteRequest<FinanceCtx, Parameters<typeof answer>[2]['params'] & { govid: number; years: number[] }>;
      const gov = b.ctx.catalog.governments[req.params.govid]!;
      const plan = b.planOf(b.ctx, route, { gids: [req.params.govid], years: req.params.years, params: req.params as never });
      const res = await b.moneyJob(b.ctx, plan, undefined, true);
      return { req, plan, res, shape: { govids: [gov.canonical_govid], govNames: [gov.gov_name], perGovernment: true } };
    }));
    return (k) => { const p = parts[k]!; return b.serialize(b.answer(b.ctx, route, p.req, p.res, p.plan, p.shape) as Envelope); };
  },
};

/** Answers for about `ms` milliseconds; microseconds of wall and of process CPU per answer. */
async function timed(one: (k: number) => unknown): Promise<{ wall: number; cpu: number }> {
  let n = 0;
  const c0 = process.cpuUsage(), t0 = performance.now();
  while (performance.now() - t0 < ms) {
    for (let k = 0; k < govids.length; k++) await one(k);
    n += govids.length;
  }
  const wall = performance.now() - t0, c = process.cpuUsage(c0);
  return { wall: (wall * 1000) / n, cpu: (c.user + c.system) / n };
}

console.log(`| span | shape | ${builds.map((b) => `${b.name} us/answer (wall) | ${b.name} (cpu)`).join(' | ')}${builds.length > 1 ? ' | new/old (wall) | new/old (cpu)' : ''} | DuckDB us/answer (wall) | DuckDB (cpu) |`);
console.log(`|---|---|${'---:|'.repeat(2 * builds.length + (builds.length > 1 ? 2 : 0) + 2)}`);
// The pipeline span is opt-in (--pipeline): it is mostly the server's stages, not this work, and slow to time.
const only = arg('only', '');
for (const [spanName, span] of Object.entries(spans)) {
  if ((spanName === 'pipeline' && !process.argv.includes('--pipeline')) || !spanName.includes(only)) continue;
  for (const [label, verb, q] of SHAPES) {
    if (!label.includes(arg('shape', ''))) continue;
    const ones = await Promise.all(builds.map((b) => span(b, verb, q)));
    for (const one of ones) await timed(one); // warm-up
    const wall: number[][] = builds.map(() => []), cpu: number[][] = builds.map(() => []);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? builds.map((_, i) => i) : builds.map((_, i) => builds.length - 1 - i);
      for (const i of order) { const t = await timed(ones[i]!); wall[i]!.push(t.wall); cpu[i]!.push(t.cpu); }
    }
    const w = wall.map(median), c = cpu.map(median);
    const d = duck.get(label)!;
    console.log(`| ${spanName} | ${label} | ${builds.map((_, i) => `${w[i]!.toFixed(1)} | ${c[i]!.toFixed(1)}`).join(' | ')}${builds.length > 1 ? ` | ${(w[1]! / w[0]!).toFixed(2)} | ${(c[1]! / c[0]!).toFixed(2)}` : ''} | ${d.wall.toFixed(0)} | ${d.cpu.toFixed(0)} |`);
  }
}
await Promise.all(builds.map((b) => b.ctx.pool.close()));
