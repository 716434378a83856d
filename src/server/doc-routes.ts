// The documentation routes every service has, generated from its route table:
// /examples, /data-dictionary, /llms.txt and /openapi.json.

import { ok } from './envelope.js';
import { dictionaryRows, llmsText, type ServiceDocs } from './docs-text.js';
import { openapiDocument } from './openapi.js';
import { envelopeReply, type RouteSpec } from './route-spec.js';

const HOST_OK = /^[A-Za-z0-9.\-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

export function docRoutes<Ctx extends { routes: RouteSpec<Ctx>[] }>(v1: string, docsOf: (ctx: Ctx) => ServiceDocs): RouteSpec<Ctx>[] {
  return [
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
        const rows = req.ctx.routes.flatMap((r) =>
          (r.examples?.(req.ctx) ?? []).map((e) => ({ endpoint: r.path, description: e.description, path: e.path, example_url: `http://${host}${e.path}` })),
        );
        return envelopeReply(ok(rows, { total: rows.length }));
      },
    },
    {
      id: 'data_dictionary', path: `${v1}/data-dictionary`, tags: ['metadata'], produces: 'envelope', query: {},
      summary: 'Data dictionary', description: 'Every field, parameter, decision, caveat and error code of this service, as rows.',
      rowFields: [
        { name: 'section', type: 'string', description: 'envelope, meta, parameter, row, decision, caveat or error.' },
        { name: 'name', type: 'string', description: 'Field, parameter, topic or code.' },
        { name: 'type', type: 'string', description: 'Type or allowed values.' },
        { name: 'description', type: 'string', description: 'Meaning.' },
        { name: 'routes', type: 'array', description: 'Routes it applies to, where relevant.' },
      ],
      handle: (req) => {
        const rows = dictionaryRows(docsOf(req.ctx), req.ctx.routes, req.ctx);
        return envelopeReply(ok(rows, { total: rows.length }));
      },
    },
    {
      id: 'llms', path: `${v1}/llms.txt`, tags: ['metadata'], produces: 'text/plain', query: {},
      summary: 'llms.txt', description: 'The API described in plain text for language models and people.',
      handle: (req) => ({ kind: 'body', contentType: 'text/plain; charset=utf-8', body: llmsText(docsOf(req.ctx), req.ctx.routes) }),
    },
    {
      id: 'openapi', path: '/openapi.json', tags: ['metadata'], produces: 'application/json', query: {},
      summary: 'OpenAPI 3.1 document', description: 'This document, generated from the route table.',
      handle: (req) => {
        const d = docsOf(req.ctx);
        return { kind: 'body', contentType: 'application/json; charset=utf-8', body: JSON.stringify(openapiDocument({ title: d.title, version: '1.0.0', description: d.summary }, req.ctx.routes)) };
      },
    },
  ];
}
