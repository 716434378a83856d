// The money job in-process, one build against another: interleaved timings
// (rounds alternate which build goes first; medians of the rounds) and a check
// that both builds give the same result columns and summaries byte for byte.
//   node dist/bench/money-ab.js [--old <an older build's dist>] [--new <a build's dist, default this one>] [--govs 200] [--rounds 15] [--only <part of a variant's name>] [--clock cpu|wall]
// (--new naming a copy of --old is the A/A run: how much the order alone gives.)
// The corpus is loaded and the plans made by the newer build: its columns are
// a superset of an older build's (the key starts of issue 32), which an older
// job ignores, and an older loader's would lack what the newer job reads.

import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { readConfig } from '../src/config.js';
import type { loadFinance } from '../src/finance/http/service.js';
import type { planOf } from '../src/finance/plan-of.js';
import type { MoneyRoute } from '../src/finance/money-table.js';
import type { MoneyPlan, MoneyResult } from '../src/finance/plan.js';
import type { attachFinance, FinanceView } from '../workers/finance/corpus.js';
import { arg } from './lib/args.js';

type Job = (c: FinanceView, e: Parameters<typeof import('../workers/finance/money.js').money>[1], p: MoneyPlan) => MoneyResult;
const oldDist = path.resolve(arg('old', '/work/base/dist'));
const nGovs = Number(arg('govs', '200')), rounds = Number(arg('rounds', '15'));
const from = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(oldDist, file)).href)) as T;
const old = (await from<{ money: Job }>('workers/finance/money.js')).money;
const newDist = path.resolve(arg('new', path.resolve(import.meta.dirname, '..')));
const money = ((await import(pathToFileURL(path.join(newDist, 'workers/finance/money.js')).href)) as { money: Job }).money;
const fromNew = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(newDist, file)).href)) as T;
const { readConfig: config } = await fromNew<{ readConfig: typeof readConfig }>('src/config.js');
const { loadFinance: load } = await fromNew<{ loadFinance: typeof loadFinance }>('src/finance/http/service.js');
const { planOf: planFor } = await fromNew<{ planOf: typeof planOf }>('src/finance/plan-of.js');
const { attachFinance: attach } = await fromNew<{ attachFinance: typeof attachFinance }>('workers/finance/corpus.js');
const ROOT = path.resolve(import.meta.dirname, '../..');

const ctx = await load(config({ ...process.env, FINANCE_DATA: path.join(ROOT, 'fixtures/finance/v6'), WORKERS: '1' }));
const view: FinanceView = attach(ctx.columns);
const { catalog, engine } = ctx;

// Governments with rows in every year, spread over the id range: long histories of every type.
const full = catalog.governments.map((_, i) => i).filter((i) => ctx.govYears[i]!.length === catalog.years.length);
const gids = Array.from({ length: nGovs }, (_, k) => full[Math.floor((k * full.length) / nGovs)]!);
const route = (verb: string, flows: MoneyRoute['flows'], subtypeField: string, withFlow = false): MoneyRoute => ({ verb, flows, subtypeField, withFlow } as MoneyRoute);
const spending = route('spending', ['expenditure'], 'spend_subtype'), revenue = route('revenue', ['revenue'], 'revenue_subtype');
const balances = route('balances', ['balance'], 'balance_subtype'), profile = route('profile', ['expenditure', 'revenue'], 'subtype', true);
const police = engine.categories.indexOf('Police');
const cat = (name: string, id: number) => ({ category: { ids: [id], all: false, names: [name] } });
const allCats = { category: { ids: null, all: true, names: ['All Categories'] } };
const base = { basis: 'harmonized', page: 0, limit: 1000, adjust: 'nominal', per_capita: false, base_year: catalog.maxYear };
const plan = (r: MoneyRoute, govs: number[], params: Record<string, unknown> = {}, extra: Partial<MoneyPlan> = {}): MoneyPlan =>
  ({ ...planFor(ctx, r, { gids: govs, years: catalog.years, params: { ...base, ...params } as never }), ...extra });

/** Each variant: its plans (one per government, or one over all of them). */
const perGov = (r: MoneyRoute, params?: Record<string, unknown>, extra?: Partial<MoneyPlan>): MoneyPlan[] => gids.map((g) => plan(r, [g], params, extra));
const allVariants: Record<string, MoneyPlan[]> = {
  'spending, 1 gov x 200 (fast)': perGov(spending),
  'spending Police, 1 gov x 200 (fast, keys)': perGov(spending, cat('Police', police)),
  'profile, 1 gov x 200 (fast)': perGov(profile),
  'spending All Categories total, 1 gov x 200 (fast)': perGov(spending, { ...allCats, expenditure_concept: 'total' }),
  'spending complete, 1 gov x 200 (materialized)': perGov(spending, { complete: true }),
  'spending Police total, 1 gov x 200 (materialized)': perGov(spending, { ...cat('Police', police), expenditure_concept: 'total' }),
  'spending, 200 govs, page 1000 (fast)': [plan(spending, gids)],
  'revenue, 200 govs, page 1000 (fast)': [plan(revenue, gids)],
  'balances, 200 govs (fast)': [plan(balances, gids)],
  'spending, 200 govs, peers (materialized)': [plan(spending, gids, {}, { peerTarget: gids[0]! })],
  'spending, 200 govs, per-capita drop + consistent (materialized)': [plan(spending, gids, {}, { dropNoPopulation: true, consistent: true })],
  'profile complete, 200 govs (materialized)': [plan(profile, gids, { complete: true })],
};
const only = arg('only', '');
const variants = Object.fromEntries(Object.entries(allVariants).filter(([name]) => name.includes(only)));

// Same answers, byte for byte: the packed row buffer, the total, and the summary (values and key order).
const bytes = (r: MoneyResult): Buffer => Buffer.from(r.rows.amt.buffer as ArrayBuffer);
let checked = 0;
for (const [name, plans] of Object.entries(variants)) {
  for (const p of plans) {
    const a = old(view, engine, p), b = money(view, engine, p);
    const same = a.total === b.total && bytes(a).equals(bytes(b)) && isDeepStrictEqual(a.summary, b.summary) && JSON.stringify(a.summary) === JSON.stringify(b.summary);
    if (!same) throw new Error(`results differ: ${name}, govs ${p.govs.slice(0, 3).join(',')}...`);
    checked++;
  }
}
console.log(`identical: ${checked} plans (${Object.keys(variants).length} variants), rows buffer, total and summary`);

// The process's CPU time by default: on a machine others share, wall time also counts the time this
// process waited for a core (--clock wall to use it anyway).
const clock = arg('clock', 'cpu');
const now = (): number => {
  if (clock === 'wall') return Number(process.hrtime.bigint()) / 1e6;
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
};
/** Milliseconds to run every plan of a variant reps times. */
function time(job: Job, plans: MoneyPlan[], reps: number): number {
  const t0 = now();
  for (let r = 0; r < reps; r++) for (const p of plans) job(view, engine, p);
  return now() - t0;
}
const median = (v: number[]): number => { const s = [...v].sort((p, q) => p - q); return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };

console.log(`| variant (${clock} time) | old (ms) | new (ms) | new/old (median of round ratios) |`);
console.log('|---|---|---|---|');
// Warm both builds on every variant first (the first variant timed would otherwise pay for the JIT).
for (const plans of Object.values(variants)) for (let i = 0; i < 10; i++) { time(old, plans, 1); time(money, plans, 1); }
for (const [name, plans] of Object.entries(variants)) {
  // About 20 ms a timing: reps scaled from one warm run.
  const reps = Math.max(1, Math.round(20 / Math.max(0.01, time(money, plans, 1))));
  const o: number[] = [], n: number[] = [], ratio: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const [to, tn] = r % 2 ? [time(old, plans, reps), time(money, plans, reps)] : (() => { const b = time(money, plans, reps); return [time(old, plans, reps), b]; })();
    o.push(to / reps); n.push(tn / reps); ratio.push(tn / to);
  }
  console.log(`| ${name} | ${median(o).toFixed(3)} | ${median(n).toFixed(3)} | ${median(ratio).toFixed(3)} |`);
}
await ctx.pool.close();
