// OpenAPI 3.1 as a pure function of the route table and the error catalog.

import { ERROR_CATALOG } from './errors.js';
import type { FieldDoc, ParamSpec, RouteSpec } from './route-spec.js';

export interface ApiInfo {
  title: string;
  version: string;
  description: string;
}

function fieldSchema(f: FieldDoc): Record<string, unknown> {
  const types = f.type.split('|').map((t) => t.trim());
  const json = types.map((t) => (t === 'integer' || t === 'number' || t === 'string' || t === 'boolean' || t === 'null' || t === 'array' || t === 'object' ? t : 'string'));
  return { type: json.length === 1 ? json[0] : json, description: f.when ? `${f.description} Present when ${f.when}.` : f.description };
}

function paramObject<Ctx>(name: string, spec: ParamSpec<Ctx>, where: 'query' | 'path'): Record<string, unknown> {
  const schema = { ...spec.schema };
  const notes = [`Allowed: ${spec.allowed}.`];
  if (spec.defaultText) notes.push(`Default: ${spec.defaultText}.`);
  return {
    name,
    in: where,
    required: where === 'path' ? true : spec.required === true,
    description: `${spec.description} ${notes.join(' ')}`,
    schema,
    ...(spec.example !== undefined ? { example: spec.example } : {}),
  };
}

export function openapiDocument<Ctx>(info: ApiInfo, routes: readonly RouteSpec<Ctx>[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const errorCodes = Object.keys(ERROR_CATALOG);
  for (const r of routes) {
    const parameters = [
      ...Object.entries(r.pathParams ?? {}).map(([n, s]) => paramObject(n, s, 'path')),
      ...Object.entries(r.query).map(([n, s]) => paramObject(n, s, 'query')),
    ];
    const ok =
      r.produces === 'envelope'
        ? {
            description: 'Success envelope.',
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    { $ref: '#/components/schemas/Envelope' },
                    r.rowFields
                      ? { type: 'object', properties: { data: { type: 'array', items: { type: 'object', properties: Object.fromEntries(r.rowFields.map((f) => [f.name, fieldSchema(f)])) } } } }
                      : { type: 'object' },
                  ],
                },
              },
            },
          }
        : { description: 'Document.', content: { [r.produces]: { schema: r.produces === 'application/json' ? { type: 'object' } : { type: 'string' } } } };
    paths[r.path] = {
      get: {
        operationId: r.id,
        summary: r.summary,
        description: r.description,
        tags: r.tags,
        parameters,
        responses: {
          '200': ok,
          '400': { $ref: '#/components/responses/BadRequest' },
          '404': { $ref: '#/components/responses/NotFound' },
          '503': { $ref: '#/components/responses/Busy' },
          '504': { $ref: '#/components/responses/Timeout' },
          '500': { $ref: '#/components/responses/Internal' },
        },
      },
    };
  }
  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } });
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: {
        Envelope: {
          type: 'object',
          required: ['status', 'data', 'error', 'meta', 'provenance', 'suggestions'],
          properties: {
            status: { type: 'string', enum: ['success', 'error'] },
            data: { type: ['array', 'null'], items: { type: 'object' } },
            error: { type: ['string', 'null'] },
            meta: { type: 'object', required: ['version'], properties: { version: { const: 'v1' } } },
            provenance: { type: ['object', 'null'] },
            suggestions: { type: 'array' },
          },
        },
        ErrorEnvelope: {
          type: 'object',
          required: ['status', 'data', 'error', 'meta', 'provenance', 'suggestions'],
          properties: {
            status: { const: 'error' },
            data: { type: 'null' },
            error: { type: 'string' },
            meta: {
              type: 'object',
              properties: { version: { const: 'v1' }, error_code: { type: 'string', enum: errorCodes }, request_id: { type: 'string' } },
            },
            provenance: { type: 'null' },
            suggestions: { type: 'array', maxItems: 0 },
          },
        },
      },
      responses: {
        BadRequest: errorResponse('A bad parameter: the message names it and what is allowed.'),
        NotFound: errorResponse('No route at this path.'),
        Busy: errorResponse('At capacity or shutting down; retry after Retry-After seconds.'),
        Timeout: errorResponse('Past the time budget (REQUEST_TIMEOUT_MS); the job was cancelled.'),
        Internal: errorResponse('An unexpected fault, logged with the request id.'),
      },
    },
    'x-error-codes': Object.fromEntries(Object.entries(ERROR_CATALOG).map(([k, v]) => [k, v])),
  };
}
