// The walk over a flat table's CSV pages, for `civicstream export` (and the
// reference the bulk files are tested against, test/helpers/bulk-reference.ts,
// since the pool builds them: bulk-build.ts): each selection paged at the
// route's CSV cap through the service's own pipeline (inject), following each
// page's Link rel="next" to the last, so what they write is the API's rows by
// construction. A page is held as text only until its consumer has written it.

import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { writeDrained } from '../../bytes/write-drained.js';
import { linkTarget } from '../../client/index.js';
import type { FinanceCtx } from '../context.js';
import { Progress } from '../../progress.js';
import { inject } from '../../server/inject.js';
import type { Service } from '../../server/service.js';

/** One page: the API's CSV text (its header first) and its row count. */
export interface CsvPage {
  text: string;
  rows: number;
}

export interface WalkOptions {
  /** Progress on stderr under this label (the selection's type is added); none when absent. */
  label?: string;
  /** Awaited before each page: the bulk builder lets the requests waiting for the pool go first. */
  beforePage?: () => Promise<void>;
  /** The error a failed page ends the walk with (the CLI's exits 2). */
  fail?: (message: string) => Error;
}

/** The page's URL: the route's path and the parameters, each encoded. */
const urlOf = (path: string, params: Map<string, string>): string =>
  `${path}?${[...params].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;

/** The pages of each selection in turn (page is set here); a page that is not a 200 ends the walk with its message. */
export async function* csvPages(service: Service<FinanceCtx>, path: string, selections: Map<string, string>[], o: WalkOptions = {}): AsyncGenerator<CsvPage> {
  const fail = o.fail ?? ((m: string) => new Error(m));
  for (const params of selections) {
    let progress: Progress | null = null;
    // The clock starts before the first page: its request counts the rows, which is most of a small selection's time.
    const t0 = performance.now();
    for (let page = 0; ; page++) {
      params.set('page', String(page));
      await o.beforePage?.();
      const r = await inject(service, urlOf(path, params));
      if (r.status !== 200) throw Object.assign(fail(`export: ${errorOf(r.body, r.status)}`), { status: r.status });
      // Rows from the headers, not by counting line ends: a quoted field may hold one.
      const total = Number(r.headers['x-total-count']), limit = Number(r.headers['x-limit']);
      const rows = Math.max(0, Math.min(limit, total - page * limit));
      progress ??= new Progress(`${o.label ?? 'export'} ${params.get('type') ?? ''}`.trim(), total, o.label === undefined, t0);
      if (rows === 0) break;
      progress.tick(rows);
      yield { text: r.body.toString('utf8'), rows };
      const next = linkTarget(r.headers.link ?? null, 'next');
      // No Link on a page of a very long query (over 4 KB, src/server/paging.ts): the counts say whether a page follows.
      if (next === null) { if (r.headers.link === undefined && (page + 1) * limit < total) continue; break; }
      // The next page is this query's, one on: anything else would be a server fault, not a page to write.
      if (new URL(next, 'http://x').searchParams.get('page') !== String(page + 1)) throw fail(`export: the API's next page is not page ${page + 1}: ${next}`);
    }
    if (o.label !== undefined) progress?.finish();
  }
}

/** The message of an error envelope, or its status when the body is not one. */
function errorOf(body: Buffer, status: number): string {
  try {
    return (JSON.parse(body.toString('utf8')) as { error?: string }).error ?? `status ${status}`;
  } catch {
    return `status ${status}`;
  }
}

/**
 * One CSV (one header line) written page by page into a stream, waiting for it to drain, so at most a
 * page is buffered; close() ends the stream and resolves once it (and whatever it pipes into) is done.
 */
export class CsvSink {
  private failed: Error | null = null;
  private first = true;
  rows = 0;

  constructor(private readonly sink: Writable, private readonly closed: Promise<void> = finished(sink)) {
    sink.on('error', (e) => { this.failed = e; });
    // Awaited in close(); until then a failure is kept in failed, not left an unhandled rejection.
    closed.catch(() => {});
  }

  async page(page: CsvPage): Promise<void> {
    // Every page starts with the header line; the file keeps one.
    const text = this.first ? page.text : page.text.slice(page.text.indexOf('\r\n') + 2);
    this.first = false;
    if (this.failed) throw this.failed;
    await writeDrained(this.sink, text);
    this.rows += page.rows;
  }

  async close(): Promise<number> {
    this.sink.end();
    await this.closed;
    if (this.failed) throw this.failed;
    return this.rows;
  }
}

/** Writes the pages as one CSV file; resolves with the rows written. On a failure its file is closed (and may be removed) before it rejects. */
export async function writeCsvPages(pages: AsyncIterable<CsvPage>, out: string): Promise<number> {
  const stream = createWriteStream(out);
  const sink = new CsvSink(stream);
  try {
    for await (const page of pages) await sink.page(page);
  } catch (e) {
    // The file opens asynchronously: until its stream has closed, a removal could come before the open creates it.
    stream.destroy();
    await finished(stream).catch(() => {});
    throw e;
  }
  return sink.close();
}
