// What the money routes' pages in CSV, Arrow and Parquet share (issue 19):
// the headers a bulk page carries, the key-value metadata of the binary
// formats, and the page of a one-government answer written on the thread
// that serves it (a flat page is written by a worker: workers/finance/money-page.ts).

import { chunksOf } from '../../bytes/csv-writer.js';
import { FORMATS, pageFormat } from '../../formats/registry.js';
import { shortDigest } from '../../server/freshness.js';
import { pageFileName, pageLinks } from '../../server/paging.js';
import type { Reply } from '../../server/route-spec.js';
import type { FinanceCtx } from '../context.js';
import type { PageFormat } from '../job-io.js';
import type { MoneyParams } from './money-queries.js';
import { moneyTable, tableOptions, type MoneyRoute, type TableParams } from '../money-table.js';
import { manifestBlock } from '../provenance.js';
import { UNITS_CONVERSION } from '../money-provenance.js';
import type { MoneyResult } from '../plan.js';

/** The formats of a page that are not the envelope (the registry's page formats). */
export { isPageFormat } from '../../formats/registry.js';

/** A bulk page's headers: the paging counts, Link to the pages around it, and the file name naming the query and the page. */
/** A one-government route's file names its government (two governments' pulls would share a name otherwise). */
// One government's file is named government-<id>_<verb>: the flat route's govid=<id> file is spending_govid-<id>,
// and the two hold different rows (every year against the latest), so they must not share a name.
const fileRoute = (route: MoneyRoute, url: string): string => {
  const gov = /\/governments\/([0-9]{12})\//.exec(url)?.[1];
  return gov === undefined ? route.verb : `government-${gov}_${route.verb}`;
};

export function pageHeaders(route: MoneyRoute, url: string, total: number, params: { page: number; limit: number }, format: PageFormat): Record<string, string> {
  const link = pageLinks(url, params.page, params.limit, total);
  return {
    'X-Total-Count': String(total), 'X-Page': String(params.page), 'X-Limit': String(params.limit),
    ...(link !== undefined ? { Link: link } : {}),
    'Content-Disposition': pageFileName(fileRoute(route, url), url, params.page, FORMATS[format].extension, shortDigest),
  };
}

/** The canonical URL as its first JSON row: format (json is the default), page and limit dropped, then limit=1. */
const firstJsonRow = (url: string): string => {
  const q = url.indexOf('?');
  const kept = q < 0 ? [] : url.slice(q + 1).split('&').filter((kv) => kv !== '' && !/^(?:format|page|limit)=/.test(kv));
  return `${q < 0 ? url : url.slice(0, q)}?${[...kept, 'limit=1'].join('&')}`;
};

/**
 * A flat page's provenance, for its Arrow schema or Parquet footer. The page is written by a worker that
 * stops at the page's end and runs beside the count, before the query's scan findings exist (codes summed,
 * rows excluded by harmonization, aggregate fallback, completion counts), so the record says what the query
 * asked and from what corpus, and names the JSON page whose envelope carries the whole record.
 */
export function queryProvenance(ctx: FinanceCtx, route: MoneyRoute, url: string, p: MoneyParams & TableParams): Record<string, unknown> {
  const { recipe, category } = p;
  return {
    verb: route.verb,
    call: url,
    years: p.years,
    category: recipe ? ctx.catalog.recipes[recipe.index]!.label : category ? (category.names.length === 1 ? category.names[0]! : category.names) : null,
    basis: recipe ? 'recipe' : p.basis,
    ...(p.expenditure_concept !== undefined ? { expenditure_concept: p.expenditure_concept } : {}),
    ...(p.revenue_concept !== undefined ? { revenue_concept: p.revenue_concept } : {}),
    transformations: {
      units_conversion: UNITS_CONVERSION,
      per_capita: { applied: p.per_capita },
      inflation: p.adjust === 'real' ? { applied: true, base_year: p.base_year, source: ctx.catalog.cpi.source } : { applied: false },
    },
    completion: { applied: p.complete === true },
    manifest: manifestBlock(ctx),
    record: firstJsonRow(url),
    record_note: "The JSON envelope of the same query (its first row) carries the query's whole provenance record: codes summed, harmonization exclusions, aggregate fallback, completion and the SQL.",
  };
}

/**
 * The key-value metadata of an Arrow or Parquet page: its provenance record (its call the page's canonical
 * URL) as JSON, under one key. One: parquet-wasm keeps the pairs in a hash map, whose order varies from
 * write to write, and a page's bytes are the same every time it is written (test/money-page.test.ts).
 */
export const pageMetadata = (provenance: Record<string, unknown>): [string, string][] => [['civicstream.provenance', JSON.stringify(provenance)]];

/** A page written here, whole, from a job result (a one-government answer: at most 1,000 rows). */
export function tablePage(
  ctx: FinanceCtx, route: MoneyRoute, url: string, params: MoneyParams & TableParams, res: MoneyResult,
  format: PageFormat, provenance: Record<string, unknown>,
): Reply {
  const table = moneyTable(ctx, route, tableOptions(params), res);
  const f = pageFormat(format);
  // A fresh buffer sized for money rows with per-capita columns, for a writer that fills the one it is given.
  const bytes = f.write(table, f.carriesMeta ? pageMetadata(provenance) : [], 4096 + 160 * table.n);
  return { kind: 'stream', format, headers: pageHeaders(route, url, res.total, params, format), next: chunksOf(bytes) };
}
