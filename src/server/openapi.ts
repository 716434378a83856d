// OpenAPI 3.1 as a pure function of the route table and the error catalog.

import { ERROR_CATALOG, codesOf, exampleMessage, type ErrorCode, type ErrorEntry, type MessageKey, type ServiceName } from './errors.js';
import { FORMATS, JSON_ONLY } from './formats.js';
import type { FieldDoc, ParamSpec, RouteSpec } from './route-spec.js';

export interface ApiInfo {
  /** Which service: the error codes documented are the catalog's shared ones and its own. */
  service: ServiceName;
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

/** A route's 200: the envelope in JSON, and each other format it declares by its media type and description (src/formats/registry.ts). */
function envelopeResponse<Ctx>(r: RouteSpec<Ctx>): Record<string, unknown> {
  const rows = r.rowFields
    ? { type: 'object', properties: { data: { type: 'array', items: { type: 'object', properties: Object.fromEntries(r.rowFields.map((f) => [f.name, fieldSchema(f)])) } } } }
    : { type: 'object' };
  const content: Record<string, unknown> = {};
  for (const f of r.formats ?? JSON_ONLY) {
    content[FORMATS[f].openapiType] = f === 'json' ? { schema: { allOf: [{ $ref: '#/components/schemas/Envelope' }, rows] } } : { schema: { type: 'string', description: FORMATS[f].description } };
  }
  const others = (r.formats ?? JSON_ONLY).filter((f) => f !== 'json');
  return { description: others.length === 0 ? 'Success envelope.' : `Success envelope; with format=${others.join(' or format=')}, the rows in that format.`, content };
}

export function openapiDocument<Ctx>(info: ApiInfo, routes: readonly RouteSpec<Ctx>[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const errorCodes = codesOf(info.service);
  for (const r of routes) {
    const parameters = [
      ...Object.entries(r.pathParams ?? {}).map(([n, s]) => paramObject(n, s, 'path')),
      ...Object.entries(r.query).map(([n, s]) => paramObject(n, s, 'query')),
    ];
    const ok = r.produces === 'envelope' ? envelopeResponse(r) : { description: 'Document.', content: { [r.produces]: { schema: r.produces === 'application/json' ? { type: 'object' } : { type: 'string' } } } };
    paths[r.path] = {
      get: {
        operationId: r.id,
        summary: r.summary,
        description: r.description,
        tags: r.tags,
        parameters,
        responses: {
          '200': ok,
          ...Object.fromEntries(ERROR_RESPONSES.filter((e) => e.multiFormat !== true || (r.formats?.length ?? 1) > 1)
            .map((e) => [String(ERROR_CATALOG[e.code].status), { $ref: `#/components/responses/${e.name}` }])),
        },
      },
    };
  }
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
      responses: Object.fromEntries(ERROR_RESPONSES.map((e) => [e.name, errorResponse(e, errorCodes)])),
    },
    // The codes as the docs list them: status, summary, headers; the message templates stay in the catalog.
    'x-error-codes': Object.fromEntries(errorCodes.map((k) => { const { messages: _m, service: _s, ...v }: ErrorEntry = ERROR_CATALOG[k]; return [k, v]; })),
  };
}

/**
 * The error responses every route documents, each with an example of a real
 * answer of its status: the code, and the message the server words with one
 * of the code's templates, rendered with the example values declared beside
 * it in the catalog (so the docs cannot drift from what the server says).
 */
type ErrorResponse = { [C in ErrorCode]: { name: string; code: C; message: MessageKey<C>; description: string; multiFormat?: boolean } }[ErrorCode];

export const ERROR_RESPONSES: readonly ErrorResponse[] = [
  { name: 'BadRequest', code: 'E_BAD_VALUE', message: 'notOneOf', description: 'A bad parameter: the message names it and what is allowed.' },
  { name: 'NotFound', code: 'E_NOT_FOUND', message: 'noRoute', description: 'No route at this path.' },
  { name: 'MethodNotAllowed', code: 'E_METHOD', message: 'readOnly', description: 'A method other than GET, HEAD (and OPTIONS for CORS): the API is read-only.' },
  // Only a route of several formats reads Accept (pipeline.ts, acceptedFormat): one of a single format answers in it whatever Accept says.
  { name: 'NotAcceptable', code: 'E_NOT_ACCEPTABLE', message: 'mediaType', description: 'Accept refuses every format this route answers in (or Accept-Encoding every coding, identity included).', multiFormat: true },
  { name: 'RateLimited', code: 'E_RATE_LIMITED', message: 'overLimit', description: 'Over the client\'s rate limit; retry after Retry-After seconds (RateLimit and RateLimit-Policy say the limit and what is left).' },
  { name: 'Busy', code: 'E_BUSY', message: 'capacity', description: 'At capacity or shutting down; retry after Retry-After seconds.' },
  { name: 'Timeout', code: 'E_TIMEOUT', message: 'budget', description: 'Past the time budget (REQUEST_TIMEOUT_MS); the job was cancelled.' },
  { name: 'Internal', code: 'E_INTERNAL', message: 'fault', description: 'An unexpected fault, logged with the request id.' },
];

/** An error response: the envelope with the codes of its status, and its example answer. */
function errorResponse(e: ErrorResponse, serviceCodes: readonly ErrorCode[]): Record<string, unknown> {
  const status = ERROR_CATALOG[e.code].status;
  const codes = serviceCodes.filter((k) => ERROR_CATALOG[k].status === status);
  return {
    description: e.description,
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/ErrorEnvelope' },
            { type: 'object', properties: { meta: { type: 'object', properties: { error_code: { type: 'string', enum: codes } } } } },
          ],
        },
        example: {
          status: 'error', data: null, error: exampleMessage(e.code, e.message),
          // A 500 names its request id in meta too, as the server's does: the same id as the message's.
          meta: { version: 'v1', error_code: e.code, ...(e.code === 'E_INTERNAL' ? { request_id: ERROR_CATALOG.E_INTERNAL.messages.fault.example.requestId } : {}) },
          provenance: null, suggestions: [],
        },
      },
    },
  };
}
