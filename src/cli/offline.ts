// The finance API without a server: the service's own route table, matched,
// validated and handled in-process, so an offline answer is the API's answer.

import os from 'node:os';
import { readConfig } from '../config.js';
import type { FinanceCtx } from '../finance/context.js';
import { loadFinance } from '../finance/service.js';
import { serializeText, fail } from '../server/envelope.js';
import { ApiError } from '../server/errors.js';
import { chunksOf, csvField, drainText } from '../server/csv.js';
import { Router } from '../server/router.js';
import { compileValidator, type Validator } from '../server/validate.js';
import type { Reply, RouteSpec } from '../server/route-spec.js';
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
  router: Router<{ spec: RouteSpec<FinanceCtx>; validate: Validator<FinanceCtx> }>;
  close(): Promise<void>;
}

export async function openFinance(data: string | undefined, workers: string | undefined): Promise<Offline> {
  const config = readConfig({ ...process.env, ...(data ? { FINANCE_DATA: data } : {}), WORKERS: workers ?? String(Math.min(2, os.availableParallelism())) });
  const ctx = await loadFinance(config);
  const router: Offline['router'] = new Router();
  for (const spec of ctx.routes) router.add(spec.path, { spec, validate: compileValidator(spec) });
  return { ctx, router, close: () => ctx.pool.close() };
}

export interface OfflineReply {
  status: number;
  headers: Record<string, string>;
  /** The envelope text, or null for a CSV stream (then next() pulls it). */
  body: string | null;
  next?: () => Uint8Array | null;
  error?: string;
  rows?: Record<string, unknown>[];
}

/** Runs a query name (or a route path) with API parameters; an ApiError is an answer (its status and message), as over HTTP. */
export async function runRoute(off: Offline, name: string, params: Map<string, string>, format?: string): Promise<OfflineReply> {
  let p = QUERY_ROUTES[name] ?? name;
  const query = new Map(params);
  if (p.includes('{govid}')) {
    const govid = query.get('govid');
    if (govid === undefined) throw new CliError(`query ${name}: --govid is required`);
    p = p.replace('{govid}', encodeURIComponent(govid));
    query.delete('govid');
  }
  const url = query.size ? `${p}?${[...query].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : p;
  const match = off.router.match(p);
  if (!match) throw new CliError(`no route ${p}`);
  // A route with its own CSV answers format=csv itself; for the others the CLI renders the rows.
  if (format !== undefined && 'format' in match.route.spec.query) query.set('format', format === 'csv' ? 'csv' : 'json');
  let reply: Reply;
  try {
    const values = match.route.validate(query, match.values, off.ctx);
    reply = await match.route.spec.handle({ params: values, ctx: off.ctx, host: 'localhost', url, signal: new AbortController().signal });
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { status: e.status, headers: {}, body: serializeText(fail(e)), error: e.message };
  }
  if (reply.kind === 'stream') {
    // Copied out whole and the stream's resources (a page slot) given back at once: the CLI keeps every page it reads anyway.
    const chunks: Uint8Array[] = [];
    try {
      for (let c = reply.next(); c !== null; c = reply.next()) chunks.push(c);
      return { status: reply.status ?? 200, headers: reply.headers ?? {}, body: null, next: chunksOf(Buffer.concat(chunks)) };
    } finally {
      reply.done?.();
    }
  }
  if (reply.kind === 'body') return { status: reply.status ?? 200, headers: reply.headers ?? {}, body: typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8') };
  const env = reply.envelope;
  const body = serializeText(env);
  return { status: reply.status ?? 200, headers: reply.headers ?? {}, body, rows: (JSON.parse(body).data ?? []) as Record<string, unknown>[] };
}

/** The reply as text in a CLI format: csv (the API's own CSV where the route has one), json (the envelope) or table. */
export function replyText(r: OfflineReply, format: string): string {
  if (r.next) {
    if (format === 'csv') return drainText(r.next);
    throw new CliError('a CSV answer has no other format');
  }
  if (format === 'json' || r.status !== 200) return `${r.body!}\n`;
  const rows = r.rows ?? [];
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  if (format === 'csv') return [names.map(csvField).join(','), ...rows.map((row) => names.map((n) => csvField(cell(row[n]))).join(','))].map((l) => `${l}\r\n`).join('');
  const text = rows.map((row) => names.map((n) => cell(row[n]).slice(0, 40)));
  const width = names.map((n, c) => Math.max(n.length, ...text.map((t) => t[c]!.length)));
  const line = (cells: string[]): string => cells.map((s, c) => s.padEnd(width[c]!)).join('  ').trimEnd();
  return `${[line(names), line(width.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n')}\n`;
}
