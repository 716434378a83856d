// The Piscina worker entry: attaches the corpus from workerData once and
// exports the job table's functions by name (workers/jobs.ts), plus the batch
// of small jobs. No HTTP, no I/O here.

import { workerData, threadId } from 'node:worker_threads';
import type { BatchItem, BatchOutcome, JobTable } from '../src/job-runner.js';
import { jobTable, runBatch, type JobData } from './jobs.js';

const jobs = jobTable((workerData ?? {}) as JobData, threadId);

export const { ping, governmentYears, money, moneyPage, moneyCount, codeYears, peers, fault } = jobs;
// Piscina finds a job by its export's name: a job of the table left out here would fail only when first run.
const exported: JobTable = { ping, governmentYears, money, moneyPage, moneyCount, codeYears, peers, fault };
void exported;

export const batch = (items: BatchItem[]): BatchOutcome[] => runBatch(jobs, items);
