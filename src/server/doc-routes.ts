// The documentation routes every service has, generated from its route table:
// the landing page /, /examples, /data-dictionary, /llms.txt and
// /openapi.json. The landing page and the dictionary answer a page for people
// to a browser (its Accept prefers text/html, or format=html) and JSON to any
// other client, through the format negotiation every route has.

import { ok, type Envelope } from './envelope.js';
import { dictionaryRows, llmsText, type ServiceDocs } from './docs-text.js';
import { openapiDocument } from './openapi.js';
import { formatParam } from './params.js';
import { dictionaryHtml } from './pages/dictionary.js';
import { htmlReply } from './pages/html.js';
import { landingHtml, landingIndex } from './pages/landing.js';
import { envelopeReply, type Reply, type RouteSpec } from './route-spec.js';

const PAGE_FORMATS = ['json', 'html'] as const;
const pageFormat = formatParam(PAGE_FORMATS);
// One URL answers a page or JSON by Accept: a shared cache must key it by Accept too (the data routes of
// several formats get this Vary with their validators; these routes carry none).
const BY_ACCEPT = { Vary: 'Accept, Accept-Encoding' };

/** The page or the envelope, by the negotiated format; both say Vary: Accept. */
function pageOrJson(format: string, html: () => string, envelope: () => Envelope): Reply {
  if (format === 'html') { const r = htmlReply(html()); return { ...r, headers: { ...r.headers, ...BY_ACCEPT } }; }
  return { ...envelopeReply(envelope()), headers: BY_ACCEPT };
}

/**
 * A value made once per service context: the corpus is immutable, so its docs, dictionary rows, pages,
 * llms.txt and OpenAPI document are too (the landing facts scan the whole registry: not per request).
 */
function perCtx<Ctx extends object, T>(make: (ctx: Ctx) => T): (ctx: Ctx) => T {
  const made = new WeakMap<Ctx, T>();
  return (ctx) => {
    if (!made.has(ctx)) made.set(ctx, make(ctx));
    return made.get(ctx)!;
  };
}

const HOST_OK = /^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

export function docRoutes<Ctx extends { routes: RouteSpec<Ctx>[] }>(v1: string, makeDocs: (ctx: Ctx) => ServiceDocs): RouteSpec<Ctx>[] {
  const docsOf = perCtx(makeDocs);
  const rowsOf = perCtx((ctx: Ctx) => dictionaryRows(docsOf(ctx), ctx.routes, ctx));
  const landingPage = perCtx((ctx: Ctx) => landingHtml(docsOf(ctx).landing, ctx.routes, ctx));
  const dictionaryPage = perCtx((ctx: Ctx) => { const d = docsOf(ctx); return dictionaryHtml(d.title, d.landing.service, d.landing.synthetic, rowsOf(ctx)); });
  const llmsOf = perCtx((ctx: Ctx) => llmsText(docsOf(ctx), ctx.routes));
  const openapiOf = perCtx((ctx: Ctx) => { const d = docsOf(ctx); return JSON.stringify(openapiDocument({ service: d.service, title: d.title, version: '1.0.0', description: d.summary }, ctx.routes)); });
  return [
    {
      id: 'home', path: '/', tags: ['metadata'], produces: 'envelope', formats: PAGE_FORMATS, query: { format: pageFormat }, ignoresUnknownKeys: true,
      summary: 'Landing page', description: 'What this service is, its scope and the ways in (explorer, docs, examples, bulk files, data dictionary): a page to a browser, the same facts as a JSON index to any other client.',
      rowFields: [
        { name: 'service', type: 'string', description: 'The service.' },
        { name: 'title', type: 'string', description: 'Its title.' },
        { name: 'summary', type: 'string', description: 'What it publishes.' },
        { name: 'scope', type: 'object', description: 'The scope facts the page lists (years, holes, units, source), by label.' },
        { name: 'synthetic', type: 'boolean', description: 'True while the mirror is synthetic (its numbers describe nothing real).' },
        { name: 'links', type: 'object', description: 'The ways in, by name: api, openapi, explorer, api_docs, data_dictionary, examples, llms_txt, and bulk_files on finance.' },
        { name: 'attribution', type: 'string', description: 'Sources and licences.' },
      ],
      examples: () => [{ description: 'The landing page as a JSON index', path: '/?format=json' }],
      handle: (req) => pageOrJson(req.params.format, () => landingPage(req.ctx), () => ok(landingIndex(docsOf(req.ctx).landing))),
    },
    {
      id: 'examples', path: `${v1}/examples`, tags: ['metadata'], produces: 'envelope', query: {},
      summary: 'Example calls', description: 'Example calls generated against the live data, with absolute URLs built from the request host.',
      rowFields: [
        { name: 'endpoint', type: 'string', description: 'The route.' },
        { name: 'description', type: 'string', description: 'What the call shows.' },
        { name: 'path', type: 'string', description: 'Path and query.' },
        { name: 'example_url', type: 'string', description: 'Absolute URL on the host the request was sent to.' },
      ],
      handle: (req) => {
        // The Host header is echoed only when it looks like a host: no injection into the URLs.
        const host = HOST_OK.test(req.host) ? req.host : 'localhost';
        // On a synthetic mirror every example says so: a reader of its answers reads made-up numbers.
        const mark = docsOf(req.ctx).landing.synthetic ? ' (synthetic data: the mirror describes nothing real)' : '';
        const rows = req.ctx.routes.flatMap((r) =>
          (r.examples?.(req.ctx) ?? []).map((e) => ({ endpoint: r.path, description: `${e.description}${mark}`, path: e.path, example_url: `http://${host}${e.path}` })),
        );
        return envelopeReply(ok(rows, { total: rows.length }));
      },
    },
    {
      id: 'data_dictionary', path: `${v1}/data-dictionary`, tags: ['metadata'], produces: 'envelope', formats: PAGE_FORMATS, query: { format: pageFormat }, ignoresUnknownKeys: true,
      summary: 'Data dictionary', description: 'Every field, parameter, decision, caveat and error code of this service: rows in JSON, or a page for people (sections, anchors, the error catalog as a table) to a browser.',
      rowFields: [
        { name: 'section', type: 'string', description: 'envelope, meta, parameter, row, decision, caveat or error.' },
        { name: 'name', type: 'string', description: 'Field, parameter, topic or code.' },
        { name: 'type', type: 'string', description: 'Type or allowed values.' },
        { name: 'description', type: 'string', description: 'Meaning.' },
        { name: 'routes', type: 'array', description: 'Routes it applies to, where relevant.' },
      ],
      handle: (req) => pageOrJson(req.params.format, () => dictionaryPage(req.ctx), () => ok(rowsOf(req.ctx), { total: rowsOf(req.ctx).length })),
    },
    {
      id: 'llms', path: `${v1}/llms.txt`, tags: ['metadata'], produces: 'text/plain', query: {},
      summary: 'llms.txt', description: 'The API described in plain text for language models and people.',
      handle: (req) => ({ kind: 'body', contentType: 'text/plain; charset=utf-8', body: llmsOf(req.ctx) }),
    },
    {
      id: 'openapi', path: '/openapi.json', tags: ['metadata'], produces: 'application/json', query: {},
      summary: 'OpenAPI 3.1 document', description: 'This document, generated from the route table.',
      handle: (req) => ({ kind: 'body', contentType: 'application/json; charset=utf-8', body: openapiOf(req.ctx) }),
    },
  ];
}
