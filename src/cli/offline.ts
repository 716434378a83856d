// The finance API without a server: the service's own request pipeline, run
// in-process (inject), so an offline answer is the API's answer byte for byte.

import os from 'node:os';
import { readConfig } from '../config.js';
import type { FinanceCtx } from '../finance/context.js';
import { financeService, loadFinance } from '../finance/service.js';
import { csvField } from '../bytes/csv-writer.js';
import { inject } from '../server/inject.js';
import type { Service } from '../server/service.js';
import { CliError } from './args.js';

/** `civicstream query <name>`: the API route each name answers with. */
export const QUERY_ROUTES: Record<string, string> = {
  spending: '/api/v1/spending',
  revenue: '/api/v1/revenue',
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
  const query = new Map(params);
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

/** The reply as text in a CLI format: csv (the API's own CSV where the route has one), json (the envelope) or table. */
export function replyText(r: OfflineReply, format: string): string {
  if (isCsv(r)) {
    if (format === 'csv') return r.body.toString('utf8');
    throw new CliError('a CSV answer has no other format');
  }
  if (format === 'json' || r.status !== 200) return `${r.body.toString('utf8')}\n`;
  const rows = r.rows ?? [];
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  if (format === 'csv') return [names.map(csvField).join(','), ...rows.map((row) => names.map((n) => csvField(cell(row[n]))).join(','))].map((l) => `${l}\r\n`).join('');
  const text = rows.map((row) => names.map((n) => cell(row[n]).slice(0, 40)));
  const width = names.map((n, c) => Math.max(n.length, ...text.map((t) => t[c]!.length)));
  const line = (cells: string[]): string => cells.map((s, c) => s.padEnd(width[c]!)).join('  ').trimEnd();
  return `${[line(names), line(width.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n')}\n`;
}
