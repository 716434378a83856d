// The finance API without a server: the service's own request pipeline, run
// in-process (inject), so an offline answer is the API's answer byte for byte.

import os from 'node:os';
import { readConfig } from '../config.js';
import type { FinanceCtx } from '../finance/context.js';
import { financeService, loadFinance } from '../finance/http/service.js';
import { csvField } from '../bytes/csv-writer.js';
import { inject } from '../server/inject.js';
import type { Service } from '../server/service.js';
import { CliError } from './args.js';

/**
 * `civicstream query <name>`: the API route each name answers with. spending and revenue are the flat
 * routes (many governments, the latest year by default); government-spending and government-revenue are
 * one government's history (every published year by default), as balances and profile are.
 */
export const QUERY_ROUTES: Record<string, string> = {
  spending: '/api/v1/spending',
  revenue: '/api/v1/revenue',
  'government-spending': '/api/v1/governments/{govid}/spending',
  'government-revenue': '/api/v1/governments/{govid}/revenue',
  balances: '/api/v1/governments/{govid}/balances',
  profile: '/api/v1/governments/{govid}/profile',
  rollups: '/api/v1/rollups',
  peers: '/api/v1/governments/{govid}/peers',
  'peer-comparison': '/api/v1/governments/{govid}/peer-comparison',
};

export interface Offline {
  ctx: FinanceCtx;
  service: Service<FinanceCtx>;
  close(): Promise<void>;
}

export async function openFinance(data: string | undefined, workers: string | undefined): Promise<Offline> {
  const config = readConfig({ ...process.env, ...(data ? { FINANCE_DATA: data } : {}), WORKERS: workers ?? String(Math.min(2, os.availableParallelism())) });
  const ctx = await loadFinance(config);
  // No response cache (an export reads every page once) and no time budget (a command waits for its answer).
  const service: Service<FinanceCtx> = { ...financeService(ctx, config), cache: undefined, timeoutMs: undefined, accessLog: false };
  return { ctx, service, close: () => ctx.pool.close() };
}

export interface OfflineReply {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: Buffer;
  /** The error message of a failed answer. */
  error?: string;
  /** The rows of a JSON answer. */
  rows?: Record<string, unknown>[];
}

/** Runs a query name (or a route path) with API parameters; an error is an answer (its status and message), as over HTTP. */
export async function runRoute(off: Offline, name: string, params: Map<string, string>, format?: string): Promise<OfflineReply> {
  let p = QUERY_ROUTES[name] ?? name;
  const query = apiKeys(params);
  if (p.includes('{govid}')) {
    const govid = query.get('govid');
    if (govid === undefined) throw new CliError(`query ${name}: --govid is required`);
    p = p.replace('{govid}', encodeURIComponent(govid));
    query.delete('govid');
  }
  const route = off.service.routes.find((r) => r.path === (QUERY_ROUTES[name] ?? name));
  // A route with its own CSV answers format=csv itself; for the others the CLI renders the rows.
  if (format !== undefined && route !== undefined && 'format' in route.query) query.set('format', format === 'csv' ? 'csv' : 'json');
  const url = query.size ? `${p}?${[...query].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : p;
  const r = await inject(off.service, url);
  if (!r.headers['content-type']!.startsWith('application/json')) return { status: r.status, headers: r.headers, body: r.body };
  const env = r.json<{ data: Record<string, unknown>[] | null; error: string | null }>();
  return { status: r.status, headers: r.headers, body: r.body, ...(env.error !== null ? { error: env.error } : { rows: env.data ?? [] }) };
}

const isCsv = (r: OfflineReply): boolean => (r.headers['content-type'] ?? '').startsWith('text/csv');

/**
 * Flags as the API's keys: the CLI's kebab-case (--per-capita, --base-year) is the API's snake_case
 * (per_capita, base_year), either spelling accepted; both spellings of one key is an error.
 */
export function apiKeys(flags: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of flags) {
    const key = k.replaceAll('-', '_');
    if (out.has(key)) throw new CliError(`--${k} and --${key} are the same parameter; give it once`);
    out.set(key, v);
  }
  return out;
}

/** What `query --help` says of each name: the route it calls and the defaults of its parameters, from the route table. */
export function queryRoutesHelp(routes: readonly { path: string; query: Record<string, { default?: unknown; defaultText?: string }> }[]): string {
  return Object.entries(QUERY_ROUTES).map(([name, path]) => {
    const spec = routes.find((r) => r.path === path);
    const defaults = spec === undefined ? [] : Object.entries(spec.query)
      .filter(([k, q]) => (q.defaultText !== undefined || (q.default !== undefined && typeof q.default !== 'function')) && k !== 'page')
      .map(([k, q]) => `${k}=${q.defaultText ?? String(q.default)}`);
    return `  ${name.padEnd(20)} GET ${path}${defaults.length ? `\n  ${''.padEnd(20)} defaults: ${defaults.join('; ')}` : ''}`;
  }).join('\n');
}

/** A table cell is cut past this many characters, its end marked with an ellipsis. */
export const TABLE_CELL = 40;

/** The reply as text in a CLI format: csv (the API's own CSV where the route has one), json (the envelope) or table. */
export function replyText(r: OfflineReply, format: string): string {
  if (isCsv(r)) {
    if (format === 'csv') return r.body.toString('utf8');
    throw new CliError('a CSV answer has no other format');
  }
  if (format === 'json' || r.status !== 200) return `${r.body.toString('utf8')}\n`;
  const rows = r.rows ?? [];
  if (format === 'table' && rows.length === 0) return '(no rows)\n';
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  if (format === 'csv') return [names.map(csvField).join(','), ...rows.map((row) => names.map((n) => csvField(cell(row[n]))).join(','))].map((l) => `${l}\r\n`).join('');
  // A cut cell ends with an ellipsis, and a page short of the whole says which rows it shows: a table never passes for more than it is.
  const text = rows.map((row) => names.map((n) => { const v = cell(row[n]); return v.length > TABLE_CELL ? `${v.slice(0, TABLE_CELL - 1)}…` : v; }));
  const width = names.map((n, c) => Math.max(n.length, ...text.map((t) => t[c]!.length)));
  const line = (cells: string[]): string => cells.map((s, c) => s.padEnd(width[c]!)).join('  ').trimEnd();
  const meta = (JSON.parse(r.body.toString('utf8')) as { meta?: { total?: number; page?: number; limit?: number } }).meta ?? {};
  const from = (meta.page ?? 0) * (meta.limit ?? 0);
  const foot = typeof meta.total === 'number' && meta.total > rows.length
    ? [`(rows ${rows.length === 0 ? 0 : from + 1}-${from + rows.length} of ${meta.total}${from + rows.length < meta.total ? `; --page ${(meta.page ?? 0) + 1} for the next` : ''})`]
    : [];
  return `${[line(names), line(width.map((w) => '-'.repeat(w))), ...text.map(line), ...foot].join('\n')}\n`;
}
