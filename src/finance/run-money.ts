// Runs a money plan through the context's job runner: on the pool, or a
// small one on a front thread itself. A large fleet plan over several years
// is split by year across the workers: rows are ordered by year first, so the
// parts' rows concatenate in order, and their summaries merge by the
// summary's own per-field rules (mergeSummaries, beside SummaryAcc).

import type { PageCodingSpec } from '../bytes/page-coder.js';
import { BusyError } from '../domain-errors.js';
import type { FinanceCtx } from './context.js';
import { indexedCount } from './count-index.js';
import { slotStream } from './page-stream.js';
import type { PageFormat } from './job-io.js';
import { tableOptions, type MoneyRoute, type TableParams } from './money-table.js';
import { countable, countOfSummary, fastPath, rowsOf, type MoneyCount, type MoneyPlan, type MoneyResult, type MoneyRows } from './plan.js';
import type { EngineCatalog } from './engine-catalog.js';
import { mergeSummaries } from '../../workers/finance/money-summary.js';

/**
 * One money job, its rows as views again. A small one runs on a front thread itself, or is batched
 * with the others of its turn on the pool; any other runs on the pool.
 */
export async function moneyJob(ctx: FinanceCtx, plan: MoneyPlan, signal?: AbortSignal | (() => AbortSignal), small = false): Promise<MoneyResult> {
  const r = await (small ? ctx.pool.runSmall('money', plan, signal) : ctx.pool.run('money', plan, typeof signal === 'function' ? signal() : signal));
  return { ...r, rows: rowsOf(r.rows) };
}

export interface BulkPage {
  /** The query's count and coverage (MoneyCount): X-Total-Count and X-Units-*. */
  count: MoneyCount;
  /** Pulls the page's bytes in chunks, as its worker writes them (page-stream.ts). */
  next: () => Uint8Array | null | Promise<Uint8Array | null>;
  /** Gives the page's slot back; called once the page is streamed or abandoned. */
  release: () => void;
}

/**
 * A flat query's page (CSV, Arrow or Parquet), written by a worker into a page slot (workers/finance/money-page.ts) that the
 * thread serving the request only streams from, as it is written (page-stream.ts): a CSV page's first rows go
 * to the client while the worker writes the rest, coded by the worker when `coding` is given. A slot is held for
 * the stream's whole life, so the slots are the cap on concurrent CSV streams and the only memory they hold:
 * with every slot held, the pull is a 503 with Retry-After at once, before any job runs (issue 23: slow readers
 * had pushed RSS past 2 GB when pages without a slot were formatted on the thread).
 *
 * The headers need the query's count: the memo's (known), the counts kept at load (count-index.ts), or, when
 * neither has it, a count job beside the page job when the plan can stop at its page's end (countMoney);
 * otherwise the page job walks the whole query and counts it, and the page is whole before its first byte.
 * Resolves once the count is known and the worker has published the page's first bytes; a job failing before
 * that is the request's error (4xx, 503), after it the stream's, which cuts the connection.
 */
export async function runMoneyPage(
  ctx: FinanceCtx, plan: MoneyPlan, route: MoneyRoute, params: TableParams, page: { format: PageFormat; metadata: [string, string][]; coding?: PageCodingSpec },
  known: MoneyCount | undefined, signal: AbortSignal,
): Promise<BulkPage> {
  const lease = ctx.pages.acquire();
  if (lease === null) {
    throw new BusyError('page-slots', ctx.pages.total);
  }
  const release = (): void => ctx.pages.release(lease);
  const early = fastPath(plan);
  // Until the stream starts, the request's end (its client left, its time budget spent) cancels the jobs, ending
  // their worker; after, giving the lease up stops the page's writer between pieces, and the worker lives on.
  // Either job failing cancels the other too: neither's work is of use alone.
  const cancel = new AbortController();
  const onAbort = (): void => cancel.abort(signal.reason);
  if (signal.aborted) onAbort(); else signal.addEventListener('abort', onAbort, { once: true });
  // A page job that stops at its page's end is posted without the signal: it is short, and cancelled it stops
  // by itself (its slot's lease given up: it cannot claim the slot, or stops between pieces). Piscina puts a task
  // with a signal that it shifted off but could not place in a queue of its own, which a newer task bypasses
  // whenever the main queue is empty: with one worker a front thread, a pull among four waited for the worker
  // about 10 s at full scale while hundreds of newer page jobs ran (bench/fresh-stall.ts). A job that walks the
  // whole query keeps the signal, so a request that ends stops it at once (its worker ended).
  const job = ctx.pool.run('moneyPage', {
    plan: { ...plan, stopAtPage: early }, route, table: tableOptions(params), lease: { slot: lease.slot, token: lease.token },
    format: page.format, metadata: page.metadata, ...(page.coding !== undefined ? { coding: page.coding } : {}),
  }, early ? undefined : cancel.signal);
  // Observed here until the stream starts (a failure while the count is awaited is still the request's), by the stream after.
  const failed: { err?: unknown; yes?: true } = {};
  job.catch((err: unknown) => { failed.err = err; failed.yes = true; });
  const indexed = known ?? indexedCount(ctx, plan);
  const count = indexed === undefined && early ? countMoney(ctx, plan, cancel.signal) : undefined;
  try {
    // A page job that stops at its page's end leaves the count to the memo, the index or the count job; one that walks the query counts it.
    const first = indexed !== undefined || early ? Promise.race([ctx.pages.moreWritten(lease, 0), job]) : job;
    const [, c] = await Promise.all([first, count]);
    if (failed.yes) throw failed.err;
    const total = indexed ?? c ?? (await job).count!;
    return { count: total, next: slotStream(ctx.pages, lease, job), release };
  } catch (err) {
    cancel.abort();
    // The page job may still be writing the slot: the arena frees it once the writer is done or its thread gone.
    release();
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A query's row count. A plan the count job takes (plan.ts countable) is counted by aggregating its groups
 * with no summary, sort or rows (workers/finance/money-count.ts): about 7x less work than the money job's
 * walk, so a never-seen query's first bulk pull costs about what a repeat does (issue 19). Any other plan
 * is walked by the money job with an empty page.
 */
export async function countMoney(ctx: FinanceCtx, plan: MoneyPlan, signal?: AbortSignal): Promise<MoneyCount> {
  if (countable(plan)) return ctx.pool.run('moneyCount', plan, signal);
  const r = await runMoney(ctx, { ...plan, stopAtPage: false, offset: 0, limit: 0 }, signal);
  return countOfSummary(ctx.engine, plan.years, r.total, r.summary);
}

/** Government-years above which a plan is worth splitting across workers. */
const SPLIT_WORK = 4000;

export async function runMoney(ctx: FinanceCtx, plan: MoneyPlan, signal?: AbortSignal): Promise<MoneyResult> {
  const parts = Math.min(ctx.workers, plan.years.length);
  const splittable = parts > 1 && !plan.stopAtPage && plan.govs.length * plan.years.length >= SPLIT_WORK && !plan.consistent && plan.peerTarget === null && !plan.suggest;
  if (!splittable) return moneyJob(ctx, plan, signal);
  const blocks: number[][] = Array.from({ length: parts }, () => []);
  plan.years.forEach((y, i) => blocks[Math.floor((i * parts) / plan.years.length)]!.push(y));
  const results = await Promise.all(
    blocks.map((years) => moneyJob(ctx, { ...plan, years, offset: 0, limit: plan.offset + plan.limit }, signal)),
  );
  return merge(ctx.engine, results, blocks, plan);
}

/** The parts' rows in order, paged; their summaries merged by the summary's own rules (workers/finance/money-summary.ts). */
function merge(e: EngineCatalog, parts: MoneyResult[], blocks: number[][], plan: MoneyPlan): MoneyResult {
  const rows = sliceRows(concatRows(parts.map((p) => p.rows)), plan.offset, plan.offset + plan.limit);
  const summary = mergeSummaries(e, plan, parts.map((p, i) => ({ years: blocks[i]!, summary: p.summary })));
  return { total: parts.reduce((n, p) => n + p.total, 0), rows, summary };
}

type Columns = Omit<MoneyRows, 'n' | 'codesStart' | 'codes'>;
const FIXED: (keyof Columns)[] = ['year', 'gov', 'flow', 'cat', 'sub', 'amt', 'flags', 'valueSource', 'pop'];

function concatRows(list: MoneyRows[]): MoneyRows {
  if (list.length === 1) return list[0]!;
  const n = list.reduce((k, r) => k + r.n, 0);
  const out = { n } as MoneyRows;
  for (const key of FIXED) {
    const Ctor = list[0]![key].constructor as new (n: number) => Columns[typeof key];
    const col = new Ctor(n);
    let at = 0;
    for (const r of list) { (col as Uint8Array).set(r[key] as Uint8Array, at); at += r.n; }
    (out as unknown as Record<string, unknown>)[key] = col;
  }
  out.codes = new Uint16Array(list.reduce((k, r) => k + r.codes.length, 0));
  out.codesStart = new Uint32Array(n + 1);
  let row = 0, code = 0;
  for (const r of list) {
    out.codes.set(r.codes, code);
    for (let i = 0; i < r.n; i++) out.codesStart[row + i] = r.codesStart[i]! + code;
    row += r.n;
    code += r.codes.length;
  }
  out.codesStart[n] = code;
  return out;
}

function sliceRows(r: MoneyRows, start: number, end: number): MoneyRows {
  const s = Math.min(start, r.n), e = Math.min(end, r.n);
  if (s === 0 && e === r.n) return r;
  const out = { n: e - s } as MoneyRows;
  for (const key of FIXED) (out as unknown as Record<string, unknown>)[key] = (r[key] as Uint8Array).slice(s, e);
  const c0 = r.codesStart[s]!, c1 = r.codesStart[e]!;
  out.codes = r.codes.slice(c0, c1);
  out.codesStart = r.codesStart.slice(s, e + 1).map((x) => x - c0);
  return out;
}
