// The one error type of both services. Every client-visible failure is an
// ApiError built from this catalog: each code its status, summary and headers,
// and the wording of every message it is answered with, as templates with
// named {parameters} (each with example values, which the OpenAPI document's
// error examples are rendered from). The words live here, once, beside the
// code; a throw site names a template and gives its values.

/**
 * A message template: text with {name} placeholders, and example values for
 * them (the OpenAPI examples and the docs render these). Built with `msg()`,
 * which checks the example's keys against the placeholders.
 */
export interface Template<T extends string = string> {
  readonly text: T;
  readonly example: TemplateParams<T>;
}

/** The placeholder names of a template text, as a union: 'got {value} of {name}' -> 'value' | 'name'. */
export type Placeholders<T extends string> = T extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;

/** The values a template needs: one per placeholder, no others. */
export type TemplateParams<T extends string> = { readonly [K in Placeholders<T>]: string | number };

/** A template and its example values, the example's keys checked against the text's placeholders. */
const msg = <const T extends string>(text: T, example: TemplateParams<NoInfer<T>>): Template<T> => ({ text, example });

export interface ErrorEntry {
  status: number;
  summary: string;
  /** Headers every answer of this code carries. */
  headers?: Readonly<Record<string, string>>;
  /** The connection is closed after the answer, and no request after it on the connection is answered. */
  close?: true;
  /** Every message this code is answered with, by name. */
  messages: Readonly<Record<string, Template>>;
  /**
   * The one service that can answer with this code (its ids, years, bulk files); absent for a code both can.
   * Each service's dictionary, llms.txt and OpenAPI list only the codes it can answer with
   * (test/error-services.test.ts derives this from where src/ throws each code).
   */
  service?: ServiceName;
}

/** The two services, as the catalog names the one a code belongs to. */
export type ServiceName = 'finance' | 'arrests';

/** The methods this read-only API serves: the Allow of a 405 and the CORS preflight's list. */
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

const WINDOW = 'Census years in the published window 2011-2020: 2012, 2017.';

export const ERROR_CATALOG = {
  E_NOT_FOUND: {
    status: 404, summary: 'No route at this path.',
    messages: {
      noRoute: msg('No route {path}. See /openapi.json for the routes of this service.', { path: '/api/v1/nope' }),
      bulkName: msg('No bulk file {name}: names are <table>-<year>-<16 hex>.<format> (GET /api/v1/bulk lists them), or <table>-latest.<format>.', { name: 'spending.csv' }),
      bulkOtherBuild: msg('No bulk file {name} (a file of another build, or one not built yet); GET /api/v1/bulk lists the files and their status.', { name: 'spending-2019-0123456789abcdef.csv' }),
      bulkYear: msg('No bulk file of {year}: the published years are {years}.', { year: 1999, years: '2011, 2012, 2013' }),
      bulkNotReady: msg('The {format} of {table} {year} is {state}; GET /api/v1/bulk lists the files.', { format: 'csv', table: 'spending', year: 2019, state: 'failed' }),
      bulkUnreadable: msg('Bulk file {name} cannot be read now; GET /api/v1/bulk lists the files.', { name: 'spending-2019-0123456789abcdef.csv' }),
    },
  },
  E_METHOD: {
    status: 405, summary: 'The API is read-only: only GET and HEAD (and OPTIONS for CORS) are served.', headers: { Allow: ALLOWED_METHODS },
    messages: {
      readOnly: msg('Method {method} is not allowed; this API is read-only (GET, HEAD).', { method: 'POST' }),
    },
  },
  E_UNKNOWN_KEY: {
    status: 400, summary: 'A query key the route does not accept; the message lists the accepted keys.',
    messages: {
      unknown: msg("Unknown query parameter '{key}' for {path}; accepted keys: {accepted}.", { key: 'nonsense', path: '/api/v1/categories', accepted: 'type, format' }),
      unknownNoKeys: msg("Unknown query parameter '{key}' for {path}; this route accepts no query parameters.", { key: 'nonsense', path: '/api/v1/health' }),
      rejected: msg("Query parameter '{key}' is not accepted by {path}: {why} Accepted keys: {accepted}.", { key: 'year', path: '/api/v1/spending', why: 'year (singular) is accepted only on /governments/{govid}/peers; use years (e.g. years=2019 or years=2011-2020).', accepted: 'years, format' }),
    },
  },
  E_REPEATED_KEY: {
    status: 400, summary: 'A query key given more than once.',
    messages: {
      repeated: msg("Query parameter '{key}' is given more than once; give it once.", { key: 'state' }),
      repeatedList: msg("Query parameter '{key}' is given more than once; give it once, with its values comma-separated ({key}={example}).", { key: 'years', example: '2019,2020' }),
    },
  },
  E_BAD_QUERY: {
    status: 400, summary: 'A query string that cannot be decoded (bad percent-encoding or UTF-8).',
    messages: {
      emptyKey: msg('Query string has an empty key.', {}),
      tooManyKeys: msg('Query string has more than {max} keys.', { max: 64 }),
      badEncoding: msg('Query {what} has malformed percent-encoding or is not valid UTF-8.', { what: "value of 'q'" }),
      badPath: msg('Path has malformed percent-encoding or is not valid UTF-8.', {}),
    },
  },
  E_BAD_VALUE: {
    status: 400, summary: 'A value outside what the parameter allows; the message names the parameter and the allowed values.',
    messages: {
      notOneOf: msg("{name} must be one of {values}; got '{raw}'.", { name: 'adjust', values: 'nominal, real', raw: 'yes' }),
      mustBeOneOf: msg('{name} must be one of {values}.', { name: 'layer', values: 'state, county, city' }),
      govidNotInLayer: msg('{name}: {govid} ({govName}) is a {type} government; layer={layer} aggregates {layer} governments only. Leave it out, or ask its own layer.', { name: 'govids', govid: '062037161174', govName: 'LOS ANGELES CITY', type: 'city', layer: 'county' }),
      typeOutOfScope: msg("{name} must be one of {values}; got '{raw}'. Special districts (4) and school districts (5) are out of scope of this corpus.", { name: 'type', values: 'state, county, city, township, 0, 1, 2, 3', raw: '4' }),
      notInteger: msg("{name} must be an integer from {min} to {max}; got '{raw}'.", { name: 'page', min: 0, max: 10000000, raw: 'x' }),
      outOfRange: msg('{name} must be an integer from {min} to {max}; got {value}.', { name: 'n', min: 1, max: 50, value: 0 }),
      tooLong: msg('{name} must be at most {max} characters; got {length}.', { name: 'q', max: 200, length: 201 }),
      stateCode: msg("{name} must be a two-letter state code, one of {values}; got '{raw}'.", { name: 'state', values: 'AL, AK, AZ', raw: 'ZZ' }),
      tooManyGovids: msg('{name} takes at most {max} ids; got {count}. Use state and type for a whole fleet.', { name: 'govid', max: 500, count: 501 }),
      totalOnlyHere: msg('{name}=total is available only on {routes}: summed across governments it double-counts intergovernmental transfers. Use primary or direct here.', { name: 'expenditure_concept', routes: '/governments/{govid}/spending' }),
      oneYearOnPeers: msg('year takes one year on /peers (for several, use /peer-comparison with years).', {}),
      yearBackwards: msg("year range '{range}' runs backwards; write it as {last}-{first}.", { range: '2019-2011', last: 2011, first: 2019 }),
      censusYear: msg('coverage=census needs a census year (a year ending in 2 or 7); year {year} is not one. {window}', { year: 2019, window: WINDOW }),
      censusNonePublished: msg('coverage=census found no published census year (a year ending in 2 or 7). {window}', { window: WINDOW }),
      censusNoneRequested: msg('coverage=census needs a census year (a year ending in 2 or 7); the requested years {years} hold none. {window}', { years: '2019, 2020', window: WINDOW }),
      censusNoPopulation: msg('coverage=census found no census year with a population for {govid}. {window}', { govid: '062037161174', window: WINDOW }),
      noPopulation: msg('{govid} has no population in any loaded year, so it has no peers by population.', { govid: '062037161174' }),
      noPopulationIn: msg('{govid} has no population in {year}; choose a year in which it reported ({years}).', { govid: '062037161174', year: 2019, years: '2012, 2017' }),
      oneCategory: msg('{name} takes exactly one category on {route}; got {count}.', { name: 'category', route: '/rollups', count: 2 }),
      emptyCategory: msg('{name} has an empty name; give category names separated by commas.', { name: 'category' }),
      allNotHere: msg("{name} '{all}' is not available on {route}. Valid options: {options}.", { name: 'category', all: 'All Categories', route: '/rollups', options: 'Police, Fire' }),
      allAlone: msg("{name} '{all}' sums every category and cannot be combined with others.", { name: 'category', all: 'All Categories' }),
      unknownCategory: msg("Unknown {name} '{raw}'. Valid options: {options}.", { name: 'category', raw: 'Polce', options: 'Police, Fire, All Categories' }),
      categoryOtherFlow: msg("{name} '{category}' is {flowWord} category; {route} does not serve it. {Flow} categories are served by {routes}.", { name: 'category', category: 'Property Tax', flowWord: 'a revenue', route: '/spending', Flow: 'Revenue', routes: '/revenue' }),
      subtypeOtherFlow: msg("{name} '{raw}' is one of the {other} subtypes; {route} serves {flow} subtypes: {values}. {Other} subtypes are served by {routes}.", { name: 'subtype', raw: 'taxes', other: 'revenue', route: '/spending', flow: 'spending', values: 'operations, capital', Other: 'Revenue', routes: '/revenue' }),
      unknownRecipe: msg("Unknown {name} '{raw}'. Valid ids: {ids}.", { name: 'recipe', raw: 'nope', ids: 'ig_state_total_wide' }),
      recipeOtherFlow: msg("{name} '{raw}' is {flowWord} recipe; {route} does not serve it. {Flow} series are served by {routes}.", { name: 'recipe', raw: 'ig_state_total_wide', flowWord: 'a revenue', route: '/spending', Flow: 'Revenue', routes: '/revenue' }),
      baseYear: msg("{name} must be a four-digit year in {span}; got '{raw}'.", { name: 'base_year', span: '2011-2020', raw: '1990' }),
      noCpi: msg('{name} {year} has no CPI value in the bundled series.', { name: 'base_year', year: 2020 }),
      subtypeConcept: msg('subtype={subtype} appears only under expenditure_concept {where}; this query uses {concept}.', { subtype: 'interest', where: 'direct or total', concept: 'primary' }),
      subtypeTotalOnly: msg('subtype={subtype} appears only under expenditure_concept {where} (total is available only on {routes}); this query uses {concept}.', { subtype: 'intergovernmental', where: 'total', routes: '/governments/{govid}/spending', concept: 'primary' }),
      subtypeRevenueTotal: msg('subtype={subtype} appears only under revenue_concept=total; this query uses {concept}.', { subtype: 'utility', concept: 'general' }),
      subtypeNotInCategory: msg('subtype={subtype} is not a subtype of {categories}; that category holds {values}.', { subtype: 'cash', categories: 'Fund Balances', values: 'debt_outstanding' }),
      mirrorState: msg("{name} must be a state code of this mirror, one of {values}; got '{raw}'.", { name: 'state', values: 'DE, RI', raw: 'ZZ' }),
      modelNoDraws: msg('model {model} has no draws in this mirror; models with draws: {models}.', { model: 'unified_m1', models: 'unified_m2' }),
      modelNoFit: msg('model {model} has no fit for {year}; it covers {years}.', { model: 'unified_m2', year: '15-16', years: '17-18, 21-22' }),
    },
  },
  E_MISSING: {
    status: 400, summary: 'A required parameter is missing.',
    messages: {
      required: msg('{name} is required for {where}.', { name: 'model', where: '/draws' }),
      mustBeOneOf: msg('{name} must be one of {values}.', { name: 'layer', values: 'state, county, city' }),
      selectGovernments: msg('Select governments with govid (a comma-separated list) or with state and/or type.', {}),
    },
  },
  E_LIMIT_CAP: {
    status: 400, summary: 'limit above the cap of the route; it is never clamped.',
    messages: {
      routeCap: msg('{name} must be at most {max} (the cap of this route); got {value}. It is never clamped: walk pages with page=0,1,2,...', { name: 'limit', max: 1000, value: 1001 }),
      formatCap: msg('limit must be at most {max} for {why}; got {value}. It is never clamped: walk pages with page=0,1,2,...', { max: 50000, why: 'format=csv', value: 50001 }),
    },
  },
  E_GOVID_FORMAT: {
    status: 400, summary: 'A govid that is not a 12-digit canonical_govid.', service: 'finance',
    messages: {
      notCanonical: msg("govid '{raw}' is not a canonical_govid. Expected 12 digits (a canonical_govid as /governments returns it, e.g. '062037161174'); names, FIPS codes and truncated ids are not accepted.", { raw: '06203716117' }),
    },
  },
  E_GOVID_UNKNOWN: {
    status: 400, summary: 'A well-formed govid that is not in the registry.', service: 'finance',
    messages: {
      unknown: msg("Unknown govid '{raw}'.", { raw: '999999999999' }),
      formerId: msg("Unknown govid '{raw}'. It is a former id of '{now}'; use that.", { raw: '062037161999', now: '062037161174' }),
    },
  },
  // The school service's ids, split as the finance service splits govids: malformed, and well-formed but unknown.
  E_LEAID_FORMAT: {
    status: 400, summary: 'A leaid that is not a 7-digit LEA id.', service: 'arrests',
    messages: {
      notLeaid: msg("{name} '{raw}' is not an LEA id. Expected 7 digits (the 2-digit state FIPS code then 5 digits), e.g. '{example}'.", { name: 'leaid', raw: '12', example: '0100005' }),
    },
  },
  E_LEAID_UNKNOWN: {
    status: 400, summary: 'A well-formed leaid that is not a district of this mirror.', service: 'arrests',
    messages: {
      unknown: msg("Unknown leaid '{raw}'.", { raw: '9999999' }),
    },
  },
  E_YEAR_FORMAT: {
    status: 400, summary: 'A year that is not a four-digit number.', service: 'finance',
    messages: {
      fourDigits: msg('year must be a four-digit year in {span}.', { span: '2011-2020' }),
    },
  },
  E_YEAR_RANGE: {
    status: 400, summary: 'A year outside the published range.', service: 'finance',
    messages: {
      outside: msg('year must be in {span}.', { span: '2011-2020' }),
    },
  },
  E_YEAR_HOLE: {
    status: 400, summary: 'A year inside the published range with no source data.', service: 'finance',
    messages: {
      noData: msg('year {year} has no source data. Published range {span}; years with no source data: {holes}.', { year: 2015, span: '2011-2020', holes: '2015' }),
    },
  },
  E_YEAR_EMPTY_RANGE: {
    status: 400, summary: 'A range of years holding no published year.', service: 'finance',
    messages: {
      empty: msg('years {range} hold no published year. Published range {span}; years with no source data: {holes}.', { range: '2015-2015', span: '2011-2020', holes: '2015' }),
    },
  },
  E_CONFLICT: {
    status: 400, summary: 'Parameters that cannot be used together.',
    messages: {
      recipeCategory: msg('recipe and category are mutually exclusive: a recipe defines its own component codes.', {}),
      recipeSubtype: msg('recipe and subtype are mutually exclusive: recipe rows carry subtype recipe.', {}),
      recipeComplete: msg('recipe and complete=true are mutually exclusive: a recipe has no category grid to fill.', {}),
      recipeTotal: msg('recipe and expenditure_concept=total are mutually exclusive; a recipe pairs with primary or direct.', {}),
      completeTotal: msg('complete=true is not available with expenditure_concept=total: the intergovernmental leg keeps aggregate rows, which the code-set grid does not describe. Use direct with complete=true.', {}),
      govidCohort: msg('govid and {other} cannot be used together: govid names the governments itself, {other} {select} a cohort instead. Give one or the other.', { other: 'state', select: 'selects' }),
      stateGovids: msg('state and govids are mutually exclusive on /rollups: state scopes the layer, govids names its governments.', {}),
      leaidState: msg('leaid {leaid} is not in state {state}.', { leaid: '1000060', state: 'RI' }),
    },
  },
  E_NOT_IN_CORPUS: {
    status: 400, summary: 'A well-formed request that needs a table this corpus does not publish (its schema_version predates it); the message names what is missing.', service: 'finance',
    messages: {
      harmonized: msg('basis=harmonized requires a corpus of schema_version 5 or later; this corpus has schema_version {version} (no harmonization tables). Use basis=raw, the default here.', { version: 4 }),
      representation: msg("complete=true needs the corpus's representation and code_set tables, which this corpus (schema_version {version}) does not publish.", { version: 4 }),
    },
  },
  E_NOT_ACCEPTABLE: {
    status: 406, summary: 'Accept-Encoding refuses every content coding offered, identity included; or Accept refuses every format a route answers in.',
    messages: {
      encoding: msg('Accept-Encoding refuses every coding this server offers ({offered}); allow one of them, or identity.', { offered: 'br, gzip' }),
      mediaType: msg('Accept refuses every media type {path} answers in: {types}. Allow one of them (or */*), or name one with format=.', { path: '/api/v1/health', types: 'application/json' }),
    },
  },
  E_RANGE_NOT_SATISFIABLE: {
    status: 416, summary: 'A Range on a bulk file that starts past its end (or asks for its last 0 bytes); Content-Range: bytes */<size> gives the size.', service: 'finance',
    messages: {
      pastEnd: msg('Range {range} is not satisfiable: {name} has {bytes} bytes (offsets 0-{last}).', { range: 'bytes=999999999-', name: 'spending-2019-0123456789abcdef.csv', bytes: 1000, last: 999 }),
    },
  },
  E_URI_TOO_LONG: {
    status: 414, summary: 'A URL longer than 8,192 characters.',
    messages: {
      tooLong: msg('URL longer than {max} characters.', { max: 8192 }),
    },
  },
  E_BAD_FRAMING: {
    status: 400, summary: 'Content-Length given twice (or as a list) with different values: where the body ends, and so where the next request begins, cannot be known. The connection is closed after the answer (RFC 9112 6.3).', close: true,
    messages: {
      contentLength: msg("Content-Length is given more than once with different values, so where this request's body ends cannot be known; the connection is closed. Send one Content-Length (a GET needs none).", {}),
    },
  },
  E_HEADERS_TOO_LARGE: {
    status: 431, summary: 'Request headers larger than 16,384 bytes in all.',
    messages: {
      tooLarge: msg('Request headers of {bytes} bytes; at most {max} are accepted.', { bytes: 20000, max: 16384 }),
    },
  },
  E_RATE_LIMITED: {
    status: 429, summary: 'Over the client\'s rate limit (RATE_LIMIT, RATE_LIMIT_BURST); retry after the Retry-After seconds. RateLimit-Policy and RateLimit say the limit and what is left.',
    messages: {
      overLimit: msg("Over this client's rate limit (a burst of {burst} tokens, refilled at {rate} a second; this request costs {cost}); retry after {retryAfter} s (Retry-After). Bulk pages cost 1 more per {rowsPerToken} rows asked: {cheaper}.", { burst: 500, rate: 100, cost: 1, retryAfter: 1, rowsPerToken: '10,000', cheaper: 'fewer, larger pages are the cheaper way to many rows' }),
    },
  },
  E_BUSY: {
    status: 503, summary: 'The server is at capacity or shutting down; retry after the Retry-After seconds.', headers: { 'Retry-After': '1' },
    messages: {
      capacity: msg('The server is at capacity ({jobs} jobs running or waiting); retry after the Retry-After seconds.', { jobs: 12 }),
      draining: msg('The server is shutting down; retry in a moment.', {}),
      keptStreams: msg('Every bulk stream of this server is in use; retry after the Retry-After seconds, or pull with fewer connections at once.', {}),
      pageStreams: msg('Every bulk stream of this server (CSV, Arrow or Parquet; {total}) is in use; retry after the Retry-After seconds, or pull with fewer connections at once.', { total: 8 }),
      fileStreams: msg('Every bulk-file download of this server ({max}) is in use; retry after the Retry-After seconds, or download with fewer connections at once.', { max: 16 }),
      building: msg('The {format} of {table} {year} is being built; retry after the Retry-After seconds, or see GET /api/v1/bulk.', { format: 'csv', table: 'spending', year: 2019 }),
    },
  },
  E_TIMEOUT: {
    status: 504, summary: 'The request exceeded its time budget (REQUEST_TIMEOUT_MS) and its job was cancelled.',
    messages: {
      budget: msg('The request took longer than {ms} ms and was cancelled; ask for less at once (fewer years or governments, a smaller limit) or page through it.', { ms: 30000 }),
    },
  },
  E_INTERNAL: {
    status: 500, summary: 'An unexpected fault; the request id is logged.',
    messages: {
      fault: msg('Internal error; request id {requestId}.', { requestId: 'mi3x0q1a-2f' }),
    },
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** The template names of a code. */
export type MessageKey<C extends ErrorCode> = keyof (typeof ERROR_CATALOG)[C]['messages'] & string;

type TextOf<C extends ErrorCode, K extends MessageKey<C>> = (typeof ERROR_CATALOG)[C]['messages'][K] extends Template<infer T> ? T : never;

/** The arguments after the key: none for a template without placeholders, else its values. */
export type MessageArgs<C extends ErrorCode, K extends MessageKey<C>> =
  [Placeholders<TextOf<C, K>>] extends [never] ? [] : [params: TemplateParams<TextOf<C, K>>];

export class ApiError extends Error {
  readonly status: number;
  /**
   * `message` is free text only where no template fits (see the count in
   * test/error-messages.test.ts); everywhere else apiError() renders one.
   */
  constructor(readonly code: ErrorCode, message: string) {
    super(message);
    this.status = ERROR_CATALOG[code].status;
  }
}

/** Fills a template's placeholders, in one pass (a value holding "{x}" stays as it is). */
export function renderTemplate(text: string, params: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** The template `key` of `code`, rendered with its values: the one way an error message is worded. */
export function apiError<C extends ErrorCode, K extends MessageKey<C>>(code: C, key: K, ...args: MessageArgs<C, K>): ApiError {
  const template = (ERROR_CATALOG[code].messages as Readonly<Record<string, Template>>)[key]!;
  return new ApiError(code, renderTemplate(template.text, args[0] ?? {}));
}

/**
 * A template rendered with its declared example values (the OpenAPI examples). The key is checked where the
 * pair is declared (a MessageKey<C>); here a key not in the catalog is a fault at boot, not a blank example.
 */
export function exampleMessage(code: ErrorCode, key: string): string {
  const template = (ERROR_CATALOG[code].messages as Readonly<Record<string, Template>>)[key];
  if (template === undefined) throw new Error(`${code} has no message template ${key}`);
  return renderTemplate(template.text, template.example);
}

/** Lists a set of values the way every message of both services does. */
export const listValues = (values: readonly (string | number)[]): string => values.join(', ');

/** The codes `service` can answer with, in the catalog's order: those of both services and its own. */
export const codesOf = (service: ServiceName): ErrorCode[] =>
  (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((c) => {
    const only: ServiceName | undefined = (ERROR_CATALOG[c] as ErrorEntry).service;
    return only === undefined || only === service;
  });
