// The data dictionary and llms.txt, generated from the route table, the error
// catalog and the service's decision list, so they say what the code does.

import { MIN_COMPRESS_BYTES, OFF_THREAD_BYTES } from './compress.js';
import { LEVELS, OFFERED } from './encoding.js';
import { ERROR_CATALOG, codesOf, type ServiceName } from './errors.js';
import { STREAM_KEPT_ABOVE } from './kept-streams.js';
import { FORMAT_IDS, FORMATS, PAGE_FORMATS, namesOf } from './formats.js';
import type { FieldDoc, ParamSpec, RouteSpec } from './route-spec.js';
import type { Landing } from './pages/landing.js';
import { BYTES_PER_TOKEN, REVALIDATION_COST, ROWS_PER_TOKEN } from './rate-stage.js';

export interface Decision {
  topic: string;
  decision: string;
}

/** The HTTP caching rule both services follow (the front end implements it for every route marked cacheable). */
export const HTTP_CACHING: Decision = {
  topic: 'HTTP caching',
  decision:
    '200 answers of the data routes (every route but /, /health and the documentation routes /examples, /data-dictionary, /llms.txt, /openapi.json and /__docs__/) are a pure function of the request and the mirror, and carry a strong ETag derived from the manifest digest, the service version, the configured mirror URL and the canonical request, with Cache-Control: public, max-age=3600. The canonical request is the route\'s path and the query keys given, in the order the route declares them (the order of /openapi.json), each value percent-encoded one way (a space as %20; , : / @ ; $ bare), empty pieces (&&) dropped: spellings of one query share one ETag and one response-cache entry, and provenance.call is that canonical request. If-None-Match with that tag (or *) is a 304 with no body, before any work but validation (an invalid request is its 400 whatever it sends). CSV pulls carry one too. Errors and live routes carry none. The docs and explorer files carry an ETag of their bytes and Cache-Control: public, max-age=300, and revalidate to a 304. Access-Control-Expose-Headers lets browser scripts read ETag, X-Total-Count, X-Page, X-Limit and X-Request-Id.',
};

/** The formats the wire does not compress (Parquet), and the page formats it compresses as they stream (CSV, Arrow): from the format registry. */
const SENT_AS_IS = FORMAT_IDS.filter((f) => !FORMATS[f].compressible);
const STREAMS_COMPRESSED = namesOf(PAGE_FORMATS.filter((f) => FORMATS[f].compressible));

/** Content codings, the same on both services, written from what encoding.ts and compress.ts offer. */
export const COMPRESSION: Decision = {
  topic: 'compression',
  decision:
    `Every answer may come compressed: Accept-Encoding chooses among ${OFFERED.filter((e) => e !== 'identity').join(', ')} and identity, by the client's q-values; where a client weighs several alike, the first of that list is sent` +
    ` (zstd, where offered, comes with the server's Node version: node:zlib has it from Node 22.15). A coding the client does not name is not sent; identity, unnamed, is acceptable but weighs no more than the codings named.` +
    ` An element of the header that cannot be read (a bad q-value) and an unknown coding are ignored, so a malformed header gets identity; a header that refuses every coding offered and identity (identity;q=0 with no other, or *;q=0) is a 406 E_NOT_ACCEPTABLE envelope, sent uncompressed.` +
    ` Bodies under ${MIN_COMPRESS_BYTES} bytes and media types that do not gain (${namesOf(SENT_AS_IS, 'and')} ${SENT_AS_IS.length === 1 ? 'compresses its' : 'compress their'} own pages) go as they are. Every answer says Vary: Accept-Encoding.` +
    ` A JSON envelope or a page of the docs is compressed whole (gzip level ${LEVELS.gzip.body}, brotli quality ${LEVELS.br.body}): the docs once at start, an answer of ${OFF_THREAD_BYTES.toLocaleString('en-US')} bytes or more on a thread of its own (libuv's), not on the thread that serves. A bulk page (${STREAMS_COMPRESSED}) in gzip or brotli is compressed by the worker that writes it, piece by piece as it writes, at the fastest levels (gzip ${LEVELS.gzip.stream}, brotli ${LEVELS.br.stream}), and streamed as the worker goes: one gzip or brotli stream that any client decodes (curl, Python requests, Node's fetch and Chromium are tested); a stream in another coding (zstd) is compressed chunk by chunk as the client reads it. Either way a slow reader holds one page slot and at most one compressor, freed when it leaves (the figures behind the levels: bench/results/compression.md).` +
    ` Each coding of an answer is its own representation: its ETag is the identity ETag with -gzip, -br or -zstd before the closing quote (also when the body was too small to compress), If-None-Match is compared with that ETag, and the response cache keeps each coding's bytes as sent, so a repeat costs no compression. A compressed bulk page (${STREAMS_COMPRESSED}, 200, GET) is kept too, once it has gone out whole (never one whose client left, never a HEAD, never an identity page, which is recomputed as fast as the wire takes it), within the cache's budget and at most an eighth of it an entry; a repeat is streamed from the kept bytes with X-Cache: hit and holds a page slot for its life, as a computed page does. HEAD gives the Content-Length of the coded body (a bulk stream has none: it is sent chunked).`,
};

/** Repeated keys and the query syntax, the same on both services (the query parser enforces them). */
export const REPEATED_KEYS: Decision = {
  topic: 'repeated query keys',
  decision: 'A key given twice is a 400 (E_REPEATED_KEY), not "last wins": a key that takes several values (years, govid, govids, category) takes them comma-separated in one key, as its message shows.',
};

export const QUERY_SYNTAX: Decision = {
  topic: 'query syntax',
  decision: 'Malformed percent-encoding or invalid UTF-8 in the query is a 400. "+" is a space. Spaces and tabs around a value, and around the commas of a key that takes a list, are ignored (limit=%205 is limit=5, years=2019,%202020 is years=2019,2020: one request, one ETag); spaces inside a value are kept, and free text (q, pattern: a literal substring) is taken as sent, edge spaces included. Keys are case-sensitive; enumerated values, state codes and category names are case-insensitive, and an alias (type=2) reads as its value: provenance.call and the ETag name each as the answer reads it (type=city, state=CA, the table\'s category name), so every spelling of one question is one request.',
};

/** Limits on a request, the same on both services (enforced in the front end). */
export const REQUEST_LIMITS: Decision = {
  topic: 'request limits',
  decision:
    'A URL over 8,192 characters is a 414; more than 64 query keys a 400; request headers over 16,384 bytes in all a 431; each an error envelope. ' +
    'Those limits hold for a request whose head (request line and headers) the server reads in one piece. This uWebSockets.js build keeps a head that arrives in several reads in a fixed 4 KB buffer, which cannot be configured: a head over 4,096 bytes that the network splits (TCP segments are about 1,448 bytes) is dropped with no answer, and the connection closed (an audit of 2026-11-28, with the head sent in 1,448-byte pieces: answered at 4,096 bytes, dropped from 4,200). So keep a request\'s head under 4 KB, about a 280-id govid list with a few headers, and split a longer list across requests. A body sent with a GET is read and ignored (the next request on the connection is unaffected). Past WORKERS + POOL_QUEUE jobs a request is a 503 with Retry-After: 1 (bulk jobs, such as pages, counts, rollups and peers, may fill three quarters of those places: the last quarter is kept for one government\'s queries); past REQUEST_TIMEOUT_MS before its answer starts, a 504 and its job is cancelled. ' +
    'Below HTTP, the uWebSockets.js build in use (20.30) parses requests before the server sees them, and answers only HTTP/1.1: ' +
    'an HTTP/1.0 request (nginx speaks it to upstreams unless proxy_http_version 1.1 is set; ApacheBench and some health checkers too), an HTTP/1.1 request without Host, a request line with an absolute-form target, a control character in the path, bare LF line ends, more than 48 headers, empty lines before the request line, the targets * (OPTIONS *) and host:port (CONNECT), a Content-Length header holding a list (3, 4; also 3, 3), a chunked body with a chunk extension, or a line that is not HTTP at all never reaches the server, ' +
    'so it cannot be answered 400, 501 or 505: the connection gets no status and is closed at the idle timeout (see connections). A method the parser does not know, or one in lower case, is closed at once. A chunked body with trailer fields takes the request after it on the connection with it (unanswered, the connection left to the idle timeout); Transfer-Encoding values such as xchunked or gzip, chunked are read as chunked. Speak HTTP/1.1 to it (behind nginx: proxy_http_version 1.1; nginx refuses the odd framings itself and sends the server plain ones).',
};

/**
 * What a connection carries, the same on both services: the limits of the uWebSockets.js build (uws-outgoing.ts, http.ts),
 * measured in test/connections.test.ts and test/request-limits.test.ts.
 */
export const CONNECTIONS: Decision = {
  topic: 'connections',
  decision:
    'Idle timeout: a connection that is silent (after its last answer, or before a whole request, such as the HTTP/1.0 and malformed requests above) is closed 8 to 12 s after it fell silent, never later: uWebSockets.js times it out at 10 s on a clock that ticks every 4 s. A connection whose answer is still going out is not idle while its socket keeps becoming writable: one whose send buffer does not drain enough to wake it for 10 s (a client with a small receive window reading a bulk page at tens of KB/s: 16 KB read at 20 KB/s for 30 s was cut at 3.6 of 4 MB) is closed with the answer cut (a chunked body without its last chunk). Hosts where clients reach the server directly set net.ipv4.tcp_notsent_lowat=131072 (deploy/docker-compose.yml), which wakes it as the client reads; behind the proxy, nginx reads the server\'s answer at once. Measured 2026-11-28. ' +
    'Pipelining (several requests sent before their answers come): requests whose answers are ready at once (a cached page sent whole, /livez, an error, the docs files, the metadata routes) are answered in order, each whole, however many are pipelined, while the client reads them, when each is 16 KB or less. An answer over 16 KB is written only once uWebSockets.js has read the whole packet it came in, and then kept until the client has read it, as a stream is (below): a request pipelined behind it closes the connection before any of it is sent. An answer of 16 KB or less that the connection cannot take whole (the client has stopped reading) is kept the same way, and a request behind it closes the connection with that answer short of its Content-Length. So a client that pipelines and never reads costs the server one answer, not one per request. ' +
    `An answer that waits on a job (an uncached page in any format, a bulk file read from disk, peers, rollups), and every answer that is streamed (a bulk page, also a compressed one over ${STREAM_KEPT_ABOVE / 1024} KB streamed from the cache), is never followed on its connection: a stream starts only once uWebSockets.js has read all of the packet it came in, so that a request pipelined behind it in that packet ends the connection before any of it is sent, rather than in the middle of it; a request that arrives later, while a stream is going out, still ends the connection in the middle of the stream, which then lacks its last chunk (or its Content-Length\'s bytes): a client takes such an answer as not given and asks again. ` +
    'For such an answer, when another request arrives on a connection whose answer is still being made, this uWebSockets.js build closes the connection at once (it denies "async pipelining", so that answers cannot be sent out of order), and the server cannot answer it first, nor keep it for later. ' +
    'Connection: close is honoured (the connection closes after the answer) when nothing is pipelined behind the request that sent it. With another request behind it in the same packet, this build forgets the close when it parses the next request, answers that one too and keeps the connection (RFC 9112 9.6 says it must not process it); holding the answer until the parse ends, as a framing error\'s is, makes uWebSockets.js close the connection before either is answered, which is worse, so the build\'s behaviour stands: a client that sends Connection: close should send nothing after it. ' +
    'Nothing out of order is sent, nothing partial from a pipeline sent in one packet, but what that connection had not yet sent is lost: the waiting answer, the requests after it, and answers to earlier requests read in the same packet that had not yet gone out. ' +
    'The server cannot even refuse such a pipeline in words: uWebSockets.js reads the whole packet and closes the connection on the request behind the waiting one before the server sees that request, and it offers no way to flush the earlier answers first (this is the build\'s, not a choice; a newer uWebSockets.js does the same). ' +
    'Behind the deployment\'s proxy (deploy/nginx) pipelining is fine: nginx reads a client\'s pipeline and sends the server one request at a time on its kept-alive connections, so every answer comes whole and in order, waiting ones included, in every place of a pipeline (tested in 2-, 3- and 10-request pipelines of cached and uncached JSON, CSV, Arrow and Parquet, bulk files and HEAD). The limit is for clients that reach the server directly. ' +
    'So a client that reaches the server directly must not pipeline behind such an answer: send the next request when the last answer is in (keep-alive is fine: it costs nothing), or use one connection per request in flight; a pipelining client retries on a new connection the requests its closed connection left unanswered, as RFC 9112 9.3.2 asks of it (every route is a GET, safe to retry). ' +
    'Framing: a request with two Content-Length headers whose values differ is a 400 E_BAD_FRAMING with Connection: close, and the connection is closed after it (RFC 9112 6.3); a request pipelined behind it is never answered (then the connection is closed without the 400). Two equal values are one.',
};

/** The per-client rate limits, the same on both services (rate-stage.ts). */
export const RATE_LIMITS: Decision = {
  topic: 'rate limits',
  decision:
    `Each client has a token bucket per service: RATE_LIMIT tokens a second (100 by default), at most RATE_LIMIT_BURST at once (500), one bucket for the whole process whichever thread answers. A request costs 1 token; a bulk page of /spending or /revenue (CSV, Arrow, Parquet, or JSON) 1 more per ${ROWS_PER_TOKEN.toLocaleString('en-US')} rows it asks for (limit, or the cap of its format when none is given: a 50,000-row CSV page costs 6), so a walk of bulk pages is paced by rows, not by requests; a bulk file 1 more per ${BYTES_PER_TOKEN / 1024 / 1024} MB it sends (the byte range it honours, or the whole file when it cannot honour the Range). A HEAD costs 1 on every route: the extra tokens pay for rows or bytes sent, and a HEAD sends none. A revalidation answered 304 (If-None-Match naming the current ETag of a data route, a bulk file, or a docs or explorer file; GET or HEAD) costs ${REVALIDATION_COST} of a token: it is answered before any work but validation, and revalidating a kept copy is what a client should do rather than fetching it again (a tenth, not nothing, so that a flood of them is still limited; RateLimit reports whole tokens left). A request that fails before its route is known costs 1. ` +
    'Past the limit: a 429 envelope (E_RATE_LIMITED) with Retry-After in seconds. Every charged answer carries RateLimit-Policy: "default";q=<burst>;w=<seconds to refill it> and RateLimit: "default";r=<tokens left>;t=<seconds until full> (draft-ietf-httpapi-ratelimit-headers). The client is the socket\'s peer (an IPv6 client by its /64, which one host or home usually holds whole); behind a proxy listed in TRUST_PROXY, the right-most X-Forwarded-For address that is not itself a trusted proxy (the left-most when every one is; a malformed entry stops the walk at the last good address). From any other peer the header is ignored, so a client cannot choose its bucket; TRUST_PROXY should name the proxies only, since a client inside a trusted range can write the header its proxy extends. The buckets are a fixed table (65,536 per service): a flood of new addresses cannot grow memory, and may at worst give a client a fresh bucket. /livez, /readyz and /metrics, CORS preflights, the server\'s own 503s (so a proxy retries them elsewhere) and the in-process callers (the CLI, the bulk-file build) are never charged. The typed client waits out a 429 as it does a 503.',
};

/** The operator's routes, the same on both services (ops-routes.ts). */
export const OPERATIONS: Decision = {
  topic: 'operations',
  decision:
    '/livez is 200 while the process answers. /readyz is 200 once the corpus is loaded and verified (the server listens only then), a pool worker is alive (finance) and the server is not shutting down; 503 with the reason otherwise. On SIGTERM /readyz turns 503 at once, the server answers as before for SHUTDOWN_DELAY_MS (2 s) so a balancer stops sending, then closes its listening sockets, answers what is in flight for SHUTDOWN_GRACE_MS at most, and exits 0. ' +
    '/metrics is the Prometheus text format (prom-client), summed over every thread that serves the service: http_server_request_duration_seconds (OpenTelemetry buckets; labels route, the route id and never the raw path, with asset for the docs files and unmatched for no route; method; status_class 1xx-5xx, or aborted when the client left first), http_server_active_requests, http_server_response_body_bytes_total by format and encoding, civicstream_response_cache_lookups_total by result, civicstream_requests_refused_total by status (429, 503, 504), civicstream_jobs_total (inline or pool), civicstream_worker_busy_seconds_total, the pool\'s queue, jobs, workers and capacity, the page slots in use, event-loop lag (p99, mean and max over the last second, less the 10 ms sampling interval) and heap per thread, process_resident_memory_bytes, civicstream_corpus_rows and civicstream_build_info. Request counters move as each request ends; the pool\'s figures and the gauges are sampled each second per thread. The three routes are never cached, never rate limited, and answered while the server drains.',
};

/** The pages for people, the same on both services (pages/, explore.ts). */
export const PAGES: Decision = {
  topic: 'pages for people',
  decision:
    'GET / is the landing page (what the service is, its scope, the ways in, examples that run) when the client prefers text/html, as a browser does; any other client (no Accept, */*, application/json) gets the same facts as a JSON index in the envelope (a one-row array: service, title, summary, scope, synthetic, links), rather than a 404, so a script can discover the API from its root. ' +
    '/api/v1/data-dictionary answers the same way: a page (a section per kind, an anchor per entry, the error catalog as a table) to a browser, the rows as JSON to anyone else; format=html or format=json chooses explicitly, and both answers say Vary: Accept. These two are reached by links, so a query key they do not declare (utm_source, fbclid) is ignored there; every other route refuses it (E_UNKNOWN_KEY). ' +
    'The explorers (/explore/) draw with Observable Plot over d3 (chosen because it is a well-kept library whose marks, scales, tips and legends are declared rather than hand-drawn, and whose d3-geo projections draw the maps), with the Census\'s own cartographic boundaries (us-atlas, 1:10,000,000) for states and counties, all served from this host (no CDN, nothing fetched elsewhere); a state\'s county boundaries are served alone (/explore/geo/counties-<state FIPS>.json), so a map loads only its own. The pages and the favicon carry a Content-Security-Policy allowing scripts from this host only; every HTML page (the docs, the explorers, the landing page, the dictionary) carries Referrer-Policy: same-origin, so following a link to another site sends no Referer. Every number an explorer draws comes from an API call it links to.',
};

export interface DictionaryRow {
  section: string;
  name: string;
  type: string;
  description: string;
  routes: string[];
}

export interface ServiceDocs {
  /** Which service: its error codes are the catalog's shared ones and its own (codesOf). */
  service: ServiceName;
  title: string;
  /** What the landing page at / says (pages/landing.ts). */
  landing: Landing;
  summary: string;
  envelope: FieldDoc[];
  meta: FieldDoc[];
  decisions: Decision[];
  caveats?: DictionaryRow[];
  attribution: string;
}

export function dictionaryRows<Ctx>(docs: ServiceDocs, routes: readonly RouteSpec<Ctx>[], ctx: Ctx): DictionaryRow[] {
  const rows: DictionaryRow[] = [];
  for (const f of docs.envelope) rows.push({ section: 'envelope', ...f, routes: [] });
  for (const f of docs.meta) rows.push({ section: 'meta', ...f, routes: [] });

  const params = new Map<string, { spec: ParamSpec<Ctx, unknown>; routes: string[] }>();
  for (const r of routes) {
    for (const [name, spec] of [...Object.entries(r.pathParams ?? {}), ...Object.entries(r.query)]) {
      const key = `${name}\u0000${spec.description}`;
      const entry = params.get(key) ?? { spec, routes: [] };
      entry.routes.push(r.path);
      params.set(key, entry);
    }
  }
  for (const [key, { spec, routes: rs }] of params) {
    const d = spec.default;
    const dflt = spec.defaultText ?? (d === undefined ? 'none' : typeof d === 'function' ? 'computed' : JSON.stringify(d));
    rows.push({ section: 'parameter', name: key.split('\u0000')[0]!, type: spec.allowed, description: `${spec.description} Default: ${dflt}.`, routes: rs });
  }
  const seenFields = new Map<string, DictionaryRow>();
  for (const r of routes) {
    for (const f of r.rowFields ?? []) {
      const key = `${f.name}\u0000${f.description}`;
      const row = seenFields.get(key);
      if (row) row.routes.push(r.path);
      else {
        const nr: DictionaryRow = { section: 'row', name: f.name, type: f.type, description: f.when ? `${f.description} Present when ${f.when}.` : f.description, routes: [r.path] };
        seenFields.set(key, nr);
        rows.push(nr);
      }
    }
  }
  for (const d of docs.decisions) rows.push({ section: 'decision', name: d.topic, type: 'text', description: d.decision, routes: [] });
  for (const c of docs.caveats ?? []) rows.push(c);
  for (const code of codesOf(docs.service)) {
    const e = ERROR_CATALOG[code];
    rows.push({ section: 'error', name: code, type: `HTTP ${e.status}`, description: e.summary, routes: [] });
  }
  void ctx;
  return rows;
}

export function llmsText<Ctx>(docs: ServiceDocs, routes: readonly RouteSpec<Ctx>[]): string {
  const out: string[] = [`# ${docs.title}`, '', `> ${docs.summary}`, ''];
  out.push('Every JSON answer is an envelope: `status`, `data` (array of rows, or null on error), `error`, `meta` (`meta.version` is always `v1`), `provenance`, `suggestions` (always an array). Errors are HTTP 400 with a message naming the parameter and what is allowed; unknown paths are 404.', '');
  out.push('Machine-readable: [OpenAPI 3.1](/openapi.json). Interactive docs: [/__docs__/](/__docs__/). Data dictionary: [/api/v1/data-dictionary](/api/v1/data-dictionary) (a page to a browser, JSON rows to any other client, or choose with format=html|json). Landing page and JSON index: [/](/). Explorer for people: [/explore/](/explore/).', '');
  out.push('## Routes', '');
  for (const r of routes) {
    out.push(`### GET ${r.path}`, '', r.description, '');
    const ps = [...Object.entries(r.pathParams ?? {}), ...Object.entries(r.query)];
    if (ps.length === 0) out.push('No query parameters.', '');
    for (const [name, s] of ps) {
      const d = s.defaultText ?? (s.default === undefined || typeof s.default === 'function' ? undefined : JSON.stringify(s.default));
      out.push(`- \`${name}\`${s.required ? ' (required)' : ''}: ${s.description} Allowed: ${s.allowed}.${d ? ` Default: ${d}.` : ''}`);
    }
    if (ps.length) out.push('');
    if (r.rowFields?.length) out.push(`Row fields: ${r.rowFields.map((f) => `\`${f.name}\`${f.when ? ` (with ${f.when})` : ''}`).join(', ')}.`, '');
  }
  out.push('## Decisions where the spec is silent', '');
  for (const d of docs.decisions) out.push(`- **${d.topic}**: ${d.decision}`);
  out.push('', '## Errors', '');
  for (const code of codesOf(docs.service)) out.push(`- \`${code}\` (HTTP ${ERROR_CATALOG[code].status}): ${ERROR_CATALOG[code].summary}`);
  out.push('', '## Attribution', '', docs.attribution, '');
  return out.join('\n');
}
