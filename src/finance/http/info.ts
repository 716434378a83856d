// The documentation and status routes: /, /health, /examples,
// /data-dictionary, /llms.txt and /openapi.json. All are derived from the
// route table and the catalog.

import { threadId } from 'node:worker_threads';
import { ok } from '../../server/envelope.js';
import { inFlight, openStreams } from '../../server/lifecycle.js';
import { processStats } from '../../server/process-stats.js';
import { processView } from '../../server/thread-view.js';
import { envelopeReply, type Reply, type RouteRequest } from '../../server/route-spec.js';
import type { FinanceCtx } from '../context.js';
import { ATTRIBUTION, runsText } from './docs.js';

export function scopeText(ctx: FinanceCtx): string {
  const c = ctx.catalog;
  return (
    `Fiscal years ${c.minYear}-${c.maxYear}: ${c.years.length} published year${c.years.length === 1 ? '' : 's'} (${c.years.join(', ')})` +
    (c.holes.length ? `; no source data for ${runsText(c.holes)}` : '') +
    `. Governments of types 0-3 (state, county, city, township); amounts in full US dollars.`
  );
}

export function root(req: RouteRequest<FinanceCtx>): Reply {
  const c = req.ctx.catalog;
  return envelopeReply(ok([{
    service: 'civicstream finance',
    title: 'US government finance API',
    scope: scopeText(req.ctx),
    published_years: c.years,
    holes: c.holes,
    schema_version: c.manifest.schemaVersion,
    links: { llms: '/api/v1/llms.txt', data_dictionary: '/api/v1/data-dictionary', docs: '/__docs__/', openapi: '/openapi.json' },
    attribution: ATTRIBUTION,
  }]));
}

export function health(req: RouteRequest<FinanceCtx>): Reply {
  const { ctx } = req;
  return envelopeReply(ok([{
    status: 'ok',
    corpus: { rows: ctx.stats.rows, groups: ctx.stats.groups, years: ctx.catalog.years, schema_version: ctx.catalog.manifest.schemaVersion },
    workers: ctx.workers,
    ...processStats(),
    open_streams: openStreams(),
    pool_jobs: ctx.pool.load,
    pool_batches: { messages: ctx.pool.batches, jobs: ctx.pool.batchedJobs },
    inline_jobs: ctx.pool.inlineJobs,
    front_thread: { thread_id: threadId, of: ctx.frontThreads },
    csv_page_slots: { total: ctx.pages.total, free: ctx.pages.available, pages_in_slots: ctx.pages.leased, pulls_refused: ctx.pages.refused },
    requests_in_flight: inFlight(),
    uptime_s: Math.round((Date.now() - ctx.startedAt) / 1000),
    ...processView('finance'),
  }]));
}

