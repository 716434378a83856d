// The Piscina worker entry. Each job is a pure, synchronous function of the
// shared corpus and a small plan; this file only attaches the corpus once and
// names the jobs. No HTTP, no I/O here.

import { workerData, threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { FinanceColumns } from '../src/finance/columns.js';
import { attachFinance, type FinanceView } from './finance/corpus.js';
import type { EngineCatalog } from '../src/finance/engine-catalog.js';
import { packRows, type MoneyPlan, type MoneyResult, type PackedMoneyRows } from '../src/finance/plan.js';
import * as codeYearsJob from './finance/code-years.js';
import * as govYears from './finance/government-years.js';
import { money as moneyJob } from './finance/money.js';
import { moneyCsv as moneyCsvJob, type MoneyCsvArgs, type MoneyCsvResult } from './finance/money-csv.js';
import { tableCtxOf, type TableCtx, type TableNames } from '../src/finance/table-ctx.js';
import type { PageSlots } from '../src/server/page-arena.js';
import * as peersJob from './finance/peers.js';
import { fault as faultJob, type FaultArgs } from './fault.js';

interface WorkerData {
  finance?: FinanceColumns;
  financeCatalog?: EngineCatalog;
  financeNames?: TableNames;
  financePages?: PageSlots;
}

const data = (workerData ?? {}) as WorkerData;
const finance: FinanceView | null = data.finance ? attachFinance(data.finance) : null;
let table: TableCtx | null = null;

function needFinance(): FinanceView {
  if (finance === null) throw new Error('finance corpus not attached to this worker');
  return finance;
}

function needCatalog(): EngineCatalog {
  if (!data.financeCatalog) throw new Error('finance catalog not attached to this worker');
  return data.financeCatalog;
}

/** The CSV page job with this worker's names (a TableCtx built on its first page) and page slots. */
function csvPage(a: MoneyCsvArgs): MoneyCsvResult {
  if (!data.financeNames || !data.financePages) throw new Error('finance names and page slots not attached to this worker');
  table ??= tableCtxOf(needCatalog(), data.financeNames);
  return moneyCsvJob(needFinance(), table, data.financePages, threadId, a);
}

export interface Jobs {
  ping: [Record<string, never>, { threadId: number }];
  governmentYears: [govYears.GovernmentYearsArgs, govYears.GovernmentYearsResult];
  money: [MoneyPlan, Omit<MoneyResult, 'rows'> & { rows: PackedMoneyRows }];
  moneyCsv: [MoneyCsvArgs, MoneyCsvResult];
  codeYears: [{ nCodes: number }, codeYearsJob.CodeYearsResult];
  peers: [peersJob.PeersArgs, peersJob.PeersResult];
  fault: [FaultArgs, never];
}
export type JobName = keyof Jobs;
export type JobArgs<N extends JobName> = Jobs[N][0];
export type JobResult<N extends JobName> = Jobs[N][1];

export interface BatchItem { name: JobName; args: unknown }
export type BatchOutcome = { ok: true; value: unknown } | { ok: false; message: string; stack: string | undefined };

const JOBS: Record<JobName, (a: never) => unknown> = {
  ping: () => ping(), governmentYears: (a) => governmentYears(a), money: (a) => money(a), moneyCsv: (a) => csvPage(a), codeYears: (a) => codeYears(a), peers: (a) => peers(a), fault: (a) => fault(a),
};

/** Several small jobs in one message (see Pool.runSmall); a job that throws fails alone. */
export function batch(items: BatchItem[]): BatchOutcome[] {
  // A loop, not items.map: once optimized, map returns a holey array, which is posted back index by index (a sparse array).
  const out: BatchOutcome[] = [];
  for (const it of items) {
    try {
      out.push({ ok: true, value: JOBS[it.name](it.args as never) });
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      out.push({ ok: false, message: err.message, stack: err.stack });
    }
  }
  return out;
}

export const ping = (): JobResult<'ping'> => ({ threadId });
export const governmentYears = (a: JobArgs<'governmentYears'>): JobResult<'governmentYears'> => govYears.governmentYears(needFinance(), a);
/** The money job; its rows cross back as one buffer (see rowsOf). */
export const money = (plan: MoneyPlan): JobResult<'money'> => {
  const r = moneyJob(needFinance(), needCatalog(), plan);
  return { ...r, rows: packRows(r.rows) };
};
/** A flat query's CSV page, in its shared slot or else in a buffer moved (not copied) to the main thread. */
export const moneyCsv = (a: JobArgs<'moneyCsv'>): JobResult<'moneyCsv'> => {
  const r = csvPage(a);
  if (r.csv === null) return r;
  return move({ [transferableSymbol]: [r.csv.buffer], [valueSymbol]: r }) as unknown as JobResult<'moneyCsv'>;
};
export const codeYears = (a: JobArgs<'codeYears'>): JobResult<'codeYears'> => codeYearsJob.codeYears(needFinance(), a);
export const peers = (a: JobArgs<'peers'>): JobResult<'peers'> => peersJob.peers(needFinance(), needCatalog(), a);
export const fault = (a: JobArgs<'fault'>): never => faultJob(a);
