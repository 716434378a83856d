// The job table: each job a pure, synchronous function of the shared corpus
// and a small plan. No HTTP, no I/O. The Piscina worker entry (index.ts)
// builds it from its workerData; a front thread (src/front.ts) builds the same
// table to run the small jobs where their request arrived. The bulk files
// are written by threads of their own (workers/build.ts). The jobs' names
// and types are declared in src/job-runner.ts, which loads nothing of here.

import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { PageSlots } from '../src/bytes/page-arena.js';
import type { FinanceColumns } from '../src/finance/columns.js';
import type { EngineCatalog } from '../src/finance/engine-catalog.js';
import type { MoneyPageArgs, MoneyPageResult } from '../src/finance/job-io.js';
import { packRows } from '../src/finance/plan.js';
import { tableCtxOf, type TableCtx, type TableNames } from '../src/finance/table-ctx.js';
import type { BatchItem, BatchOutcome, JobTable } from '../src/job-runner.js';
import { fault as faultJob } from './fault.js';
import * as codeYearsJob from './finance/code-years.js';
import { attachFinance, type FinanceView } from './finance/corpus.js';
import * as govYears from './finance/government-years.js';
import { moneyPage as moneyPageJob } from './finance/money-page.js';
import { money as moneyJob } from './finance/money.js';
import { countRows } from './finance/money-count.js';
import * as peersJob from './finance/peers.js';

/** What a thread needs to run the jobs: the shared corpus columns and the catalog parts. */
export interface JobData {
  finance?: FinanceColumns;
  financeCatalog?: EngineCatalog;
  financeNames?: TableNames;
  financePages?: PageSlots;
}

/** The jobs over data, run on thread threadId (the CSV page slots are leased per thread). */
export function jobTable(data: JobData, threadId: number): JobTable {
  const finance: FinanceView | null = data.finance ? attachFinance(data.finance) : null;
  let table: TableCtx | null = null;
  const needFinance = (): FinanceView => {
    if (finance === null) throw new Error('finance corpus not attached to this thread');
    return finance;
  };
  const needCatalog = (): EngineCatalog => {
    if (!data.financeCatalog) throw new Error('finance catalog not attached to this thread');
    return data.financeCatalog;
  };
  /** This thread's names for writing tables (a TableCtx built on its first use). */
  const tableCtx = (): TableCtx => {
    if (!data.financeNames) throw new Error('finance names not attached to this thread');
    return (table ??= tableCtxOf(needCatalog(), data.financeNames));
  };
  /** The page job with this thread's names and page slots. */
  const page = (a: MoneyPageArgs): MoneyPageResult => {
    if (!data.financePages) throw new Error('finance page slots not attached to this thread');
    return moneyPageJob(needFinance(), tableCtx(), data.financePages, threadId, a);
  };
  return {
    ping: () => ({ threadId }),
    governmentYears: (a) => govYears.governmentYears(needFinance(), a),
    /** The money job; its rows cross back as one buffer (see rowsOf). */
    money: (plan) => {
      const r = moneyJob(needFinance(), needCatalog(), plan);
      return { ...r, rows: packRows(r.rows) };
    },
    /** A flat query's page, in its shared slot or else in a buffer moved (not copied) to the thread that asked. */
    moneyPage: (a) => {
      const r = page(a);
      if (r.bytes === null) return r;
      return move({ [transferableSymbol]: [r.bytes.buffer], [valueSymbol]: r }) as unknown as MoneyPageResult;
    },
    moneyCount: (plan) => countRows(needFinance(), needCatalog(), plan),
    codeYears: (a) => codeYearsJob.codeYears(needFinance(), a),
    peers: (a) => peersJob.peers(needFinance(), needCatalog(), a),
    fault: (a) => faultJob(a),
  };
}

/** Several small jobs in one message (see JobRunner.runSmall); a job that throws fails alone. */
export function runBatch(jobs: JobTable, items: BatchItem[]): BatchOutcome[] {
  // A loop, not items.map: once optimized, map returns a holey array, which is posted back index by index (a sparse array).
  const out: BatchOutcome[] = [];
  for (const it of items) {
    try {
      out.push({ ok: true, value: (jobs[it.name] as (a: unknown) => unknown)(it.args) });
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      out.push({ ok: false, message: err.message, stack: err.stack });
    }
  }
  return out;
}
