// Every message template of the error catalog (issue 30), triggered against a
// running server: each row names a template (CODE.key), a request that makes
// the server answer with it, and the message the answer must carry, written
// here as a literal (the wording clients see today), never rendered from the
// template under test. The status and the headers a code promises are
// literals too, checked against the catalog and against the answer. The table
// is checked against the catalog, so a template added without a row here
// fails, and so does a row whose template is gone. A last test counts the
// free-text messages left in src/ (new ApiError(code, text) outside the
// catalog): at most 10.

import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOG, apiError } from '../dist/src/server/errors.js';
import { arrestsUrl, financeUrl, get, listenerClosed, type Got } from './helpers/http.js';
import { exchange, parseAnswers, portOf } from './helpers/raw-http.js';
import { heldReaders } from './helpers/held-readers.js';
import { ROOT, startServer, type Running } from './helpers/server.js';
import { busyThenTimeout } from './helpers/pool-faults.js';

type Servers = { main: string; arrests: string; legacy: Running; faults: Running; slots: Running };
type Trigger = (s: Servers) => Promise<Got>;
interface Row { trigger: Trigger; message: string | ((got: Got, s: Servers) => string) }

const finance = (p: string, init?: RequestInit): Trigger => (s) => get(p, init, s.main);
const arrests = (p: string): Trigger => (s) => get(p, undefined, s.arrests);
const legacy = (p: string, init?: RequestInit): Trigger => (s) => get(p, init, s.legacy.url);
const GOV = '/api/v1/governments/062037161174';
const WINDOW = 'Census years in the published window 2011-2020: 2012, 2017 (no source data in this corpus for 2012, 2017).';
const HOLES = 'Published range 2011-2020; years with no source data: 2012, 2013, 2014, 2015, 2016, 2017, 2018.';
const NEVER_CLAMPED = 'It is never clamped: walk pages with page=0,1,2,...';
const SPENDING_KEYS = 'govid, state, type, years, adjust, base_year, per_capita, basis, complete, identity, format, limit, page, category, subtype, recipe, expenditure_concept';
const STATES = 'AL, AK, AZ, AR, CA, CO, CT, DE, DC, FL, GA, HI, ID, IL, IN, IA, KS, KY, LA, ME, MD, MA, MI, MN, MS, MO, MT, NE, NV, NH, NJ, NM, NY, NC, ND, OH, OK, OR, PA, RI, SC, SD, TN, TX, UT, VT, VA, WA, WV, WI, WY';
const SPENDING_CATEGORIES = 'Corrections, Education K-12, Electric Utilities, Fire, Gas Utilities, General Government, Health & Hospitals, Higher Education, Highways, Housing & Community, Insurance Trust Benefits, Interest on Debt, Judicial & Legal, Libraries, Liquor Stores, Natural Resources, Other Education, Other Transportation, Parks & Recreation, Police, Protective Inspection, Public Welfare, Sewerage & Solid Waste, Transit Utilities, Veterans Services, Water Utilities, All Categories';
const RECIPES = 'cash_securities_z77_wide, cash_securities_z78_wide, corrections_capital_combined, corrections_combined, corrections_ig_local_combined, corrections_other_capital_combined, general_gov_e89_wide, higher_ed_e18_wide, ig_federal_b47_wide, ig_federal_b89_wide, ig_federal_total_wide, ig_local_d47_wide, ig_local_d89_wide, ig_local_total_wide, ig_state_c47_wide, ig_state_c89_wide, ig_state_total_wide, ige_local_m47_wide, ige_local_m89_wide, ige_state_l47_wide, ige_state_l89_wide, rents_royalties_u4_wide, t19_selective_sales_wide, t29_license_wide, t99_other_tax_wide, welfare_cash_e67_wide, welfare_cash_e68_wide';

/** One raw request (for what fetch will not send: two Content-Lengths, headers of an exact size), its answer parsed. */
async function rawRequest(base: string, request: string): Promise<Got> {
  const got = await exchange(portOf(base), [[0, request]], 5_000);
  const [a] = parseAnswers(Buffer.from(got.text, 'latin1'), ['GET']).answers;
  const text = a!.body.toString('utf8');
  return { status: a!.status, headers: new Headers(a!.headers), body: JSON.parse(text), text };
}

let pool: Promise<{ busy: Got; timeout: Got }> | undefined;
const poolState = (s: Servers) => (pool ??= busyThenTimeout(s.faults));

/** A server with one CSV page slot: a held pull takes it, and the next bulk pull is refused. */
async function secondPull(s: Running): Promise<Got> {
  const pull = '/api/v1/spending?type=city&years=2011-2020&format=csv';
  const held = await heldReaders(s.port, pull, 1);
  try {
    return await get('/api/v1/spending?type=county&years=2011-2020&format=csv', undefined, s.url);
  } finally {
    held.stop();
  }
}

/** A request on a connection kept alive from before SIGTERM, while the server drains (as test/shutdown.test.ts does). */
async function whileDraining(): Promise<Got> {
  const s = await startServer({ WORKERS: '1', SHUTDOWN_GRACE_MS: '2000', SHUTDOWN_DELAY_MS: '0' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const once = (p: string): Promise<Got> => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: s.port, path: p, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body: JSON.parse(text), text }));
    }).on('error', reject);
  });
  try {
    await once('/api/v1/categories?type=spending');
    const held = await heldReaders(s.port, '/api/v1/spending?type=city&years=2011-2020&format=csv', 1);
    s.proc.kill('SIGTERM');
    // Draining once the listener is closed (a poll: the signal's handling waits its turn on a busy machine).
    await listenerClosed(s.port);
    const late = await once('/api/v1/categories?type=revenue');
    held.stop();
    return late;
  } finally {
    agent.destroy();
    await s.stop();
  }
}

/** Each template of the catalog: the request that draws it, and the message it must carry (a literal). */
const ROWS: Record<string, Row> = {
  'E_NOT_FOUND.noRoute': { trigger: finance('/api/v1/nope'), message: 'No route /api/v1/nope. See /openapi.json for the routes of this service.' },
  'E_NOT_FOUND.bulkName': { trigger: finance('/api/v1/bulk/files/spending.csv'), message: 'No bulk file spending.csv: names are <table>-<year>-<16 hex>.<format> (GET /api/v1/bulk lists them), or <table>-latest.<format>.' },
  'E_NOT_FOUND.bulkOtherBuild': {
    trigger: finance('/api/v1/bulk/files/spending-2019-0123456789abcdef.csv.gz'),
    message: 'No bulk file spending-2019-0123456789abcdef.csv.gz (a file of another build, or one not built yet); GET /api/v1/bulk lists the files and their status.',
  },
  'E_NOT_FOUND.bulkYear': { trigger: finance('/api/v1/bulk/files/spending-1999.csv.gz'), message: 'No bulk file of 1999: the published years are 2011, 2019, 2020.' },
  // The legacy server does not build its bulk files, and has no set in its (fresh) cache.
  'E_NOT_FOUND.bulkNotReady': { trigger: legacy('/api/v1/bulk/files/spending-2019.csv.gz'), message: 'The csv.gz of spending 2019 is unavailable; GET /api/v1/bulk lists the files.' },
  'E_METHOD.readOnly': { trigger: finance('/api/v1/health', { method: 'POST', body: 'x=1' }), message: 'Method POST is not allowed; this API is read-only (GET, HEAD).' },
  'E_UNKNOWN_KEY.unknown': { trigger: finance('/api/v1/categories?nonsense=1'), message: "Unknown query parameter 'nonsense' for /api/v1/categories; accepted keys: type, pattern." },
  'E_UNKNOWN_KEY.unknownNoKeys': { trigger: finance('/api/v1/health?x=1'), message: "Unknown query parameter 'x' for /api/v1/health; this route accepts no query parameters." },
  'E_UNKNOWN_KEY.rejected': {
    trigger: finance('/api/v1/spending?year=2019'),
    message: `Query parameter 'year' is not accepted by /api/v1/spending: year (singular) is accepted only on /governments/{govid}/peers; use years (e.g. years=2019 or years=2011-2020). Accepted keys: ${SPENDING_KEYS}.`,
  },
  // No school parameter takes a list: the message does not speak of one.
  'E_REPEATED_KEY.repeated': { trigger: arrests('/api/v1/estimates?race=BL&race=WH'), message: "Query parameter 'race' is given more than once; give it once." },
  'E_REPEATED_KEY.repeatedList': {
    trigger: finance(`${GOV}/spending?years=2019&years=2020`),
    message: "Query parameter 'years' is given more than once; give it once, with its values comma-separated (years=2019,2020).",
  },
  'E_BAD_QUERY.emptyKey': { trigger: finance('/api/v1/governments?=1'), message: 'Query string has an empty key.' },
  'E_BAD_QUERY.tooManyKeys': {
    trigger: finance(`/api/v1/governments?${Array.from({ length: 65 }, (_, i) => `k${i}=1`).join('&')}`),
    message: 'Query string has more than 64 keys.',
  },
  'E_BAD_QUERY.badEncoding': { trigger: finance('/api/v1/governments?q=%E0%A4%A'), message: "Query value of 'q' has malformed percent-encoding or is not valid UTF-8." },
  'E_BAD_QUERY.badPath': { trigger: finance('/api/v1/governments/%E0%A4%A'), message: 'Path has malformed percent-encoding or is not valid UTF-8.' },
  'E_BAD_VALUE.notOneOf': { trigger: finance(`${GOV}/spending?adjust=yes`), message: "adjust must be one of nominal, real; got 'yes'." },
  'E_BAD_VALUE.mustBeOneOf': { trigger: finance('/api/v1/rollups?layer=x'), message: 'layer must be one of state, county, city.' },
  'E_BAD_VALUE.typeOutOfScope': {
    trigger: finance('/api/v1/governments?type=4'),
    message: "type must be one of state, county, city, township, 0, 1, 2, 3; got '4'. Special districts (4) and school districts (5) are out of scope of this corpus.",
  },
  'E_BAD_VALUE.notInteger': { trigger: finance('/api/v1/governments?limit=x'), message: "limit must be an integer from 1 to 1000; got 'x'." },
  'E_BAD_VALUE.outOfRange': { trigger: finance('/api/v1/governments?page=-1'), message: 'page must be an integer from 0 to 10000000; got -1.' },
  'E_BAD_VALUE.tooLong': { trigger: finance(`/api/v1/governments?q=${'x'.repeat(201)}`), message: 'q must be at most 200 characters; got 201.' },
  'E_BAD_VALUE.stateCode': { trigger: finance('/api/v1/governments?state=ZZ'), message: `state must be a two-letter state code, one of ${STATES}; got 'ZZ'.` },
  'E_BAD_VALUE.tooManyGovids': {
    trigger: finance(`/api/v1/spending?govid=${Array.from({ length: 1001 }, (_, i) => i + 1).join(',')}`),
    message: 'govid takes at most 1000 ids; got 1001. Use state and type for a whole fleet.',
  },
  'E_BAD_VALUE.totalOnlyHere': {
    trigger: finance('/api/v1/spending?state=CA&expenditure_concept=total'),
    message: 'expenditure_concept=total is available only on /governments/{govid}/spending: summed across governments it double-counts intergovernmental transfers. Use primary or direct here.',
  },
  'E_BAD_VALUE.oneYearOnPeers': { trigger: finance(`${GOV}/peers?year=2019,2020`), message: 'year takes one year on /peers (for several, use /peer-comparison with years).' },
  'E_BAD_VALUE.yearBackwards': { trigger: finance(`${GOV}/spending?years=2019-2011`), message: "year range '2019-2011' runs backwards; write it as 2011-2019." },
  'E_BAD_VALUE.censusYear': {
    trigger: finance(`${GOV}/peers?coverage=census&year=2019`),
    message: `coverage=census needs a census year (a year ending in 2 or 7); year 2019 is not one. ${WINDOW}`,
  },
  'E_BAD_VALUE.censusNonePublished': {
    trigger: finance(`${GOV}/peer-comparison?category=Police&coverage=census`),
    message: `coverage=census found no published census year (a year ending in 2 or 7). ${WINDOW}`,
  },
  'E_BAD_VALUE.censusNoneRequested': {
    trigger: finance(`${GOV}/peer-comparison?category=Police&coverage=census&years=2019,2020`),
    message: `coverage=census needs a census year (a year ending in 2 or 7); the requested years 2019, 2020 hold none. ${WINDOW}`,
  },
  'E_BAD_VALUE.censusNoPopulation': {
    trigger: finance(`${GOV}/peers?coverage=census`),
    message: `coverage=census found no census year with a population for 062037161174. ${WINDOW}`,
  },
  'E_BAD_VALUE.oneCategory': {
    trigger: finance(`${GOV}/peer-comparison?category=Police,Fire`),
    message: 'category takes exactly one category on /governments/{govid}/peer-comparison; got 2.',
  },
  'E_BAD_VALUE.emptyCategory': { trigger: finance('/api/v1/spending?state=CA&category=Police,,Fire'), message: 'category has an empty name; give category names separated by commas.' },
  'E_BAD_VALUE.allAlone': {
    trigger: finance('/api/v1/spending?state=CA&category=All%20Categories,Police'),
    message: "category 'All Categories' sums every category and cannot be combined with others.",
  },
  'E_BAD_VALUE.unknownCategory': { trigger: finance('/api/v1/spending?state=CA&category=Polce'), message: `Unknown category 'Polce'. Valid options: ${SPENDING_CATEGORIES}.` },
  'E_BAD_VALUE.categoryOtherFlow': {
    trigger: finance('/api/v1/spending?state=CA&category=Property%20Tax'),
    message: "category 'Property Tax' is a revenue category; /spending does not serve it. Revenue categories are served by /revenue and /governments/{govid}/revenue.",
  },
  'E_BAD_VALUE.subtypeOtherFlow': {
    trigger: finance(`${GOV}/balances?subtype=operations`),
    message: "subtype 'operations' is one of the expenditure subtypes; /governments/{govid}/balances serves balance subtypes: general, unemployment_trust, workers_comp_trust, other_insurance_trust, employee_retirement. Expenditure subtypes are served by /spending, /rollups and /governments/{govid}/spending.",
  },
  'E_BAD_VALUE.unknownRecipe': { trigger: finance('/api/v1/spending?state=CA&recipe=nope'), message: `Unknown recipe 'nope'. Valid ids: ${RECIPES}.` },
  'E_BAD_VALUE.recipeOtherFlow': {
    trigger: finance('/api/v1/spending?state=CA&recipe=ig_state_total_wide'),
    message: "recipe 'ig_state_total_wide' is a revenue recipe; /spending does not serve it. Revenue series are served by /revenue and /governments/{govid}/revenue.",
  },
  'E_BAD_VALUE.baseYear': { trigger: finance('/api/v1/spending?state=CA&base_year=1990'), message: "base_year must be a four-digit year in 2011-2020; got '1990'." },
  'E_BAD_VALUE.subtypeConcept': {
    trigger: finance('/api/v1/spending?state=CA&subtype=interest'),
    message: 'subtype=interest appears only under expenditure_concept direct or total; this query uses primary.',
  },
  'E_BAD_VALUE.subtypeTotalOnly': {
    trigger: finance('/api/v1/spending?state=CA&subtype=intergovernmental'),
    message: 'subtype=intergovernmental appears only under expenditure_concept total (total is available only on /governments/{govid}/spending); this query uses primary.',
  },
  'E_BAD_VALUE.subtypeRevenueTotal': { trigger: finance('/api/v1/revenue?state=CA&subtype=utility'), message: 'subtype=utility appears only under revenue_concept=total; this query uses general.' },
  'E_BAD_VALUE.subtypeNotInCategory': {
    trigger: finance(`${GOV}/balances?category=Retirement%20System%20Holdings&subtype=general`),
    message: 'subtype=general is not a subtype of Retirement System Holdings; that category holds employee_retirement.',
  },
  'E_LEAID_FORMAT.notLeaid': {
    trigger: arrests('/api/v1/estimates?leaid=12'),
    message: "leaid '12' is not an LEA id. Expected 7 digits (the 2-digit state FIPS code then 5 digits), e.g. '1000047'.",
  },
  'E_LEAID_UNKNOWN.unknown': { trigger: arrests('/api/v1/estimates?leaid=9999999'), message: "Unknown leaid '9999999'." },
  'E_BAD_VALUE.mirrorState': { trigger: arrests('/api/v1/districts?state=ZZ'), message: "state must be a state code of this mirror, one of DE, NH, RI, VT; got 'ZZ'." },
  'E_BAD_VALUE.modelNoFit': { trigger: arrests('/api/v1/estimates?model=unified_m1&year=15-16'), message: 'model unified_m1 has no fit for 15-16; it covers 21-22.' },
  'E_MISSING.required': { trigger: arrests('/api/v1/draws?model=unified_m2&state=DE'), message: 'year is required for /draws.' },
  'E_MISSING.mustBeOneOf': { trigger: finance('/api/v1/rollups'), message: 'layer must be one of state, county, city.' },
  'E_MISSING.selectGovernments': { trigger: finance('/api/v1/spending'), message: 'Select governments with govid (a comma-separated list) or with state and/or type.' },
  'E_LIMIT_CAP.routeCap': { trigger: finance('/api/v1/governments?limit=1001'), message: `limit must be at most 1000 (the cap of this route); got 1001. ${NEVER_CLAMPED}` },
  'E_LIMIT_CAP.formatCap': {
    trigger: finance('/api/v1/spending?state=CA&format=csv&subtype=capital&limit=40000'),
    message: `limit must be at most 1000 for format=csv with subtype or recipe; got 40000. ${NEVER_CLAMPED}`,
  },
  'E_GOVID_FORMAT.notCanonical': {
    trigger: finance('/api/v1/governments/06203716117'),
    message: "govid '06203716117' is not a canonical_govid. Expected 12 digits (a canonical_govid as /governments returns it, e.g. '062037161174'); names, FIPS codes and truncated ids are not accepted.",
  },
  'E_GOVID_UNKNOWN.unknown': { trigger: finance('/api/v1/governments/999999999999'), message: "Unknown govid '999999999999'." },
  'E_GOVID_UNKNOWN.formerId': { trigger: finance('/api/v1/governments/022195160799'), message: "Unknown govid '022195160799'. It is a former id of '022198160799'; use that." },
  'E_YEAR_FORMAT.fourDigits': { trigger: finance(`${GOV}/spending?years=20x9`), message: 'year must be a four-digit year in 2011-2020.' },
  'E_YEAR_RANGE.outside': { trigger: finance(`${GOV}/spending?years=1990`), message: 'year must be in 2011-2020.' },
  'E_YEAR_HOLE.noData': { trigger: finance(`${GOV}/spending?years=2015`), message: `year 2015 has no source data. ${HOLES}` },
  'E_YEAR_EMPTY_RANGE.empty': { trigger: finance(`${GOV}/spending?years=2012-2018`), message: `years 2012-2018 hold no published year. ${HOLES}` },
  'E_CONFLICT.recipeCategory': {
    trigger: finance(`${GOV}/revenue?recipe=ig_state_total_wide&category=Property%20Tax`),
    message: 'recipe and category are mutually exclusive: a recipe defines its own component codes.',
  },
  'E_CONFLICT.recipeSubtype': { trigger: finance(`${GOV}/revenue?recipe=ig_state_total_wide&subtype=federal`), message: 'recipe and subtype are mutually exclusive: recipe rows carry subtype recipe.' },
  'E_CONFLICT.recipeComplete': {
    trigger: finance(`${GOV}/revenue?recipe=ig_state_total_wide&complete=true`),
    message: 'recipe and complete=true are mutually exclusive: a recipe has no category grid to fill.',
  },
  'E_CONFLICT.recipeTotal': {
    trigger: finance(`${GOV}/spending?recipe=corrections_combined&expenditure_concept=total`),
    message: 'recipe and expenditure_concept=total are mutually exclusive; a recipe pairs with primary or direct.',
  },
  'E_CONFLICT.completeTotal': {
    trigger: finance(`${GOV}/spending?complete=true&expenditure_concept=total`),
    message: 'complete=true is not available with expenditure_concept=total: the intergovernmental leg keeps aggregate rows, which the code-set grid does not describe. Use direct with complete=true.',
  },
  'E_CONFLICT.govidCohort': {
    trigger: finance('/api/v1/spending?govid=062037161174&state=CA&type=city'),
    message: 'govid and state and type cannot be used together: govid names the governments itself, state and type select a cohort instead. Give one or the other.',
  },
  'E_BAD_VALUE.govidNotInLayer': {
    trigger: finance('/api/v1/rollups?layer=county&govids=101003101811,062037161174'),
    message: 'govids: 062037161174 (LOS ANGELES CITY) is a city government; layer=county aggregates county governments only. Leave it out, or ask its own layer.',
  },
  'E_CONFLICT.stateGovids': {
    trigger: finance('/api/v1/rollups?layer=county&state=CA&govids=062037161174'),
    message: 'state and govids are mutually exclusive on /rollups: state scopes the layer, govids names its governments.',
  },
  'E_CONFLICT.leaidState': { trigger: arrests('/api/v1/estimates?leaid=1000047&state=RI'), message: 'leaid 1000047 is not in state RI.' },
  // A corpus of schema_version 4 has no harmonization tables, and no representation or code_set.
  'E_NOT_IN_CORPUS.harmonized': {
    trigger: legacy(`${GOV}/spending?basis=harmonized`),
    message: 'basis=harmonized requires a corpus of schema_version 5 or later; this corpus has schema_version 4 (no harmonization tables). Use basis=raw, the default here.',
  },
  'E_NOT_IN_CORPUS.representation': {
    trigger: legacy(`${GOV}/spending?complete=true`),
    message: "complete=true needs the corpus's representation and code_set tables, which this corpus (schema_version 4) does not publish.",
  },
  'E_NOT_ACCEPTABLE.encoding': {
    trigger: finance('/api/v1/health', { headers: { 'Accept-Encoding': 'identity;q=0, *;q=0' } }),
    message: 'Accept-Encoding refuses every coding this server offers (br, gzip, identity); allow one of them, or identity.',
  },
  'E_NOT_ACCEPTABLE.mediaType': {
    trigger: finance('/api/v1/spending?state=DE', { headers: { Accept: 'image/png' } }),
    message: 'Accept refuses every media type /api/v1/spending answers in: application/json, text/csv, application/vnd.apache.arrow.stream, application/vnd.apache.parquet. Allow one of them (or */*), or name one with format=.',
  },
  // A byte range past the end of a bulk file of the listing: its name and size come from the listing.
  'E_RANGE_NOT_SATISFIABLE.pastEnd': {
    trigger: async (s) => {
      const file = (await get('/api/v1/bulk', undefined, s.main)).body.data.find((e: { url: string | null }) => e.url !== null);
      return get(file.url, { headers: { Range: 'bytes=999999999-' } }, s.main);
    },
    message: (got) => {
      const [, size] = /^bytes \*\/(\d+)$/.exec(got.headers.get('content-range') ?? '') ?? [];
      const name = /: (\S+) has /.exec(got.body.error)?.[1];
      return `Range bytes=999999999- is not satisfiable: ${name} has ${size} bytes (offsets 0-${Number(size) - 1}).`;
    },
  },
  'E_URI_TOO_LONG.tooLong': { trigger: finance(`/api/v1/governments?q=${'x'.repeat(9000)}`), message: 'URL longer than 8192 characters.' },
  'E_BAD_FRAMING.contentLength': {
    trigger: (s) => rawRequest(s.main, 'GET /api/v1/categories HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nContent-Length: 0\r\n\r\nhello'),
    message: "Content-Length is given more than once with different values, so where this request's body ends cannot be known; the connection is closed. Send one Content-Length (a GET needs none).",
  },
  'E_HEADERS_TOO_LARGE.tooLarge': {
    trigger: (s) => rawRequest(s.main, `GET /api/v1/categories HTTP/1.1\r\nHost: test\r\nConnection: close\r\nx-padding: ${'x'.repeat(20_000)}\r\n\r\n`),
    message: 'Request headers of 20044 bytes; at most 16384 are accepted.',
  },
  // The legacy server believes X-Forwarded-For from loopback: one made-up client spends its bucket of 50.
  'E_RATE_LIMITED.overLimit': {
    trigger: async (s) => {
      // 80 at once: one after another, on a busy machine, the refill (20 a second) can keep up with them.
      const all = await Promise.all(Array.from({ length: 80 }, () => get('/api/v1/categories', { headers: { 'X-Forwarded-For': '203.0.113.78' } }, s.legacy.url)));
      const got = all.find((g) => g.status === 429);
      if (got) return got;
      throw new Error('80 requests of one client at once were never refused');
    },
    message: (got) => `Over this client's rate limit (a burst of 50 tokens, refilled at 20 a second; this request costs 1); retry after ${got.headers.get('retry-after')} s (Retry-After). Bulk pages cost 1 more per 10,000 rows asked: the bulk files (/api/v1/bulk) are the cheaper way to a whole table.`,
  },
  'E_BUSY.capacity': { trigger: async (s) => (await poolState(s)).busy, message: 'The server is at capacity (1 jobs running or waiting); retry after the Retry-After seconds.' },
  'E_BUSY.draining': { trigger: () => whileDraining(), message: 'The server is shutting down; retry in a moment.' },
  'E_BUSY.pageStreams': {
    trigger: (s) => secondPull(s.slots),
    message: 'Every bulk stream of this server (CSV, Arrow or Parquet; 1) is in use; retry after the Retry-After seconds, or pull with fewer connections at once.',
  },
  'E_TIMEOUT.budget': {
    trigger: async (s) => (await poolState(s)).timeout,
    message: 'The request took longer than 6000 ms and was cancelled; ask for less at once (fewer years or governments, a smaller limit) or page through it.',
  },
  'E_INTERNAL.fault': {
    trigger: async (s) => {
      await poolState(s);
      return get('/__faults__/worker?kind=throw', undefined, s.faults.url);
    },
    message: (got) => `Internal error; request id ${got.body.meta.request_id}.`,
  },
};

/**
 * Templates no request here can draw, each with why. The coverage check below counts these as covered, so
 * this list is kept short (at most 10) and every entry says what it would take; each is still rendered
 * in-process with the values its throw site gives, and its wording compared with a literal.
 */
const UNTRIGGERED: Record<string, { why: string; params: Record<string, string | number>; message: string }> = {
  'E_NOT_FOUND.bulkUnreadable': {
    why: 'a ready bulk file whose bytes vanish or change on disk between its check and its read',
    params: { name: 'spending-2020-751d26d6eda2ee74.csv.gz' },
    message: 'Bulk file spending-2020-751d26d6eda2ee74.csv.gz cannot be read now; GET /api/v1/bulk lists the files.',
  },
  'E_BUSY.keptStreams': {
    why: 'every stream place held while a compressed page is served from the response cache (test/kept-streams.test.ts)',
    params: {},
    message: 'Every bulk stream of this server is in use; retry after the Retry-After seconds, or pull with fewer connections at once.',
  },
  'E_BUSY.fileStreams': {
    why: '64 bulk-file downloads held open at once',
    params: { max: 64 },
    message: 'Every bulk-file download of this server (64) is in use; retry after the Retry-After seconds, or download with fewer connections at once.',
  },
  'E_BUSY.building': {
    why: 'a request in the seconds a bulk file is being built (a race with the build)',
    params: { format: 'parquet', table: 'revenue', year: 2019 },
    message: 'The parquet of revenue 2019 is being built; retry after the Retry-After seconds, or see GET /api/v1/bulk.',
  },
  'E_BAD_VALUE.allNotHere': {
    why: 'no route declares category with allowAll: false today',
    params: { name: 'category', all: 'All Categories', route: '/rollups', options: 'Police, Fire' },
    message: "category 'All Categories' is not available on /rollups. Valid options: Police, Fire.",
  },
  'E_BAD_VALUE.noCpi': {
    why: 'the bundled CPI series covers every year of the fixture window',
    params: { name: 'base_year', year: 2011 },
    message: 'base_year 2011 has no CPI value in the bundled series.',
  },
  'E_BAD_VALUE.noPopulation': {
    why: 'a government with no population in any year; every fixture government has one',
    params: { govid: '062037161174' },
    message: '062037161174 has no population in any loaded year, so it has no peers by population.',
  },
  'E_BAD_VALUE.noPopulationIn': {
    why: 'a government with no population in a published year of the fixture',
    params: { govid: '062037161174', year: 2019, years: 'none loaded' },
    message: '062037161174 has no population in 2019; choose a year in which it reported (none loaded).',
  },
  'E_BAD_VALUE.modelNoDraws': {
    why: 'a model of the enumeration without draws; the fixture mirror has draws for every model',
    params: { model: 'unified_m9', models: 'unified_m1, unified_m2' },
    message: 'model unified_m9 has no draws in this mirror; models with draws: unified_m1, unified_m2.',
  },
};

/** The status of each code, and the headers its answers must carry (a literal, or a pattern). */
const STATUS: Record<string, number> = {
  E_NOT_FOUND: 404, E_METHOD: 405, E_UNKNOWN_KEY: 400, E_REPEATED_KEY: 400, E_BAD_QUERY: 400, E_BAD_VALUE: 400, E_MISSING: 400,
  E_LIMIT_CAP: 400, E_GOVID_FORMAT: 400, E_GOVID_UNKNOWN: 400, E_LEAID_FORMAT: 400, E_LEAID_UNKNOWN: 400, E_YEAR_FORMAT: 400, E_YEAR_RANGE: 400, E_YEAR_HOLE: 400,
  E_YEAR_EMPTY_RANGE: 400, E_CONFLICT: 400, E_NOT_IN_CORPUS: 400, E_NOT_ACCEPTABLE: 406, E_RANGE_NOT_SATISFIABLE: 416,
  E_URI_TOO_LONG: 414, E_BAD_FRAMING: 400, E_HEADERS_TOO_LARGE: 431, E_RATE_LIMITED: 429, E_BUSY: 503, E_TIMEOUT: 504, E_INTERNAL: 500,
};
const HEADERS: Record<string, Record<string, string | RegExp>> = {
  E_METHOD: { Allow: 'GET, HEAD, OPTIONS' },
  E_BUSY: { 'Retry-After': '1' },
  E_BAD_FRAMING: { Connection: 'close' },
  E_RATE_LIMITED: { 'Retry-After': /^[1-9]\d*$/ },
  E_RANGE_NOT_SATISFIABLE: { 'Content-Range': /^bytes \*\/\d+$/ },
};

/** Every template of the catalog, as CODE.key. */
const templates = (): string[] =>
  Object.entries(ERROR_CATALOG).flatMap(([code, e]) => Object.keys((e as { messages: object }).messages).map((k) => `${code}.${k}`)).sort();

/** A data dir of symlinks to the v4 fixture's entries: the same corpus at a new path, so no bulk set is found in a cache. */
function freshLegacyDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'civicstream-msg-v4-'));
  const src = path.join(ROOT, 'fixtures/finance/v4');
  for (const name of readdirSync(src)) if (!name.startsWith('.')) symlinkSync(path.join(src, name), path.join(dir, name));
  return dir;
}

describe('error messages: every template of the catalog, drawn from a running server', () => {
  const servers = {} as Servers;
  let legacyDir = '';
  beforeAll(async () => {
    legacyDir = freshLegacyDir();
    servers.main = financeUrl();
    servers.arrests = arrestsUrl();
    [servers.faults, servers.legacy, servers.slots] = await Promise.all([
      startServer({ WORKERS: '1', FRONT_THREADS: '1', POOL_QUEUE: '0', REQUEST_TIMEOUT_MS: '6000', RESPONSE_CACHE_MB: '0', CIVICSTREAM_FAULTS: '1' }),
      startServer({ WORKERS: '1', FRONT_THREADS: '1', FINANCE_DATA: legacyDir, BULK_BUILD: 'false', RATE_LIMIT: '20', RATE_LIMIT_BURST: '50', TRUST_PROXY: '127.0.0.1' }),
      startServer({ WORKERS: '1', FRONT_THREADS: '1', CSV_PAGE_SLOTS: '1', RESPONSE_CACHE_MB: '0' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([servers.faults?.stop(), servers.legacy?.stop(), servers.slots?.stop()]);
    if (legacyDir !== '') rmSync(legacyDir, { recursive: true, force: true });
  });

  it('every template of the catalog has a row here (or a reason it cannot be drawn), and every row a template', () => {
    expect([...Object.keys(ROWS), ...Object.keys(UNTRIGGERED)].sort()).toEqual(templates());
    expect(Object.keys(ROWS).filter((k) => k in UNTRIGGERED)).toEqual([]);
    expect(Object.keys(UNTRIGGERED).length).toBeLessThanOrEqual(10);
  });

  it('the catalog says what the answers carry: its statuses and headers are the literal ones here', () => {
    expect(Object.keys(STATUS).sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
    for (const [code, entry] of Object.entries(ERROR_CATALOG) as [string, { status: number; headers?: Record<string, string>; close?: true }][]) {
      expect(entry.status, code).toBe(STATUS[code]);
      // Both ways: a header the catalog promises is written here, and a fixed one written here is in the catalog
      // (the patterns are per-answer values: Retry-After of a 429, Content-Range of a 416).
      const promised = { ...entry.headers, ...(entry.close ? { Connection: 'close' } : {}) };
      const fixed = Object.fromEntries(Object.entries(HEADERS[code] ?? {}).filter(([, v]) => typeof v === 'string'));
      expect(promised, code).toEqual(fixed);
    }
  });

  for (const [key, row] of Object.entries(ROWS)) {
    const code = key.slice(0, key.indexOf('.'));
    it(`${key}: HTTP ${STATUS[code]}, the message as written here${HEADERS[code] ? `, ${Object.keys(HEADERS[code]!).join(', ')}` : ''}`, async () => {
      const got = await row.trigger(servers);
      expect(got.status, got.text.slice(0, 300)).toBe(STATUS[code]);
      expect(got.body.meta.error_code).toBe(code);
      expect(got.body.error).toBe(typeof row.message === 'string' ? row.message : row.message(got, servers));
      // The catalog's headers, as the catalog says them, on the answer; then the literal expectations.
      const entry = ERROR_CATALOG[code as keyof typeof ERROR_CATALOG] as { headers?: Record<string, string>; close?: true };
      for (const [name, value] of Object.entries(entry.headers ?? {})) expect(got.headers.get(name), `${key} ${name}`).toBe(value);
      if (entry.close) expect(got.headers.get('connection'), `${key} Connection`).toBe('close');
      for (const [name, value] of Object.entries(HEADERS[code] ?? {})) {
        if (typeof value === 'string') expect(got.headers.get(name), `${key} ${name}`).toBe(value);
        else expect(got.headers.get(name) ?? '', `${key} ${name}`).toMatch(value);
      }
    });
  }
});

describe('the OpenAPI error examples: rendered from the templates and their example values', () => {
  it('each documented error response shows its template worded as the server words it (literals here)', async () => {
    const doc = (await get('/openapi.json', undefined, financeUrl())).body as { components: { responses: Record<string, { content: { 'application/json': { example: { error: string; meta: Record<string, string> } } } }> } };
    const examples = Object.fromEntries(Object.entries(doc.components.responses).map(([name, r]) => [name, r.content['application/json'].example]));
    expect(Object.fromEntries(Object.entries(examples).map(([name, e]) => [name, [e.meta.error_code, e.error]]))).toEqual({
      BadRequest: ['E_BAD_VALUE', "adjust must be one of nominal, real; got 'yes'."],
      NotFound: ['E_NOT_FOUND', 'No route /api/v1/nope. See /openapi.json for the routes of this service.'],
      MethodNotAllowed: ['E_METHOD', 'Method POST is not allowed; this API is read-only (GET, HEAD).'],
      NotAcceptable: ['E_NOT_ACCEPTABLE', 'Accept refuses every media type /api/v1/health answers in: application/json. Allow one of them (or */*), or name one with format=.'],
      RateLimited: ['E_RATE_LIMITED', "Over this client's rate limit (a burst of 500 tokens, refilled at 100 a second; this request costs 1); retry after 1 s (Retry-After). Bulk pages cost 1 more per 10,000 rows asked: fewer, larger pages are the cheaper way to many rows."],
      Busy: ['E_BUSY', 'The server is at capacity (12 jobs running or waiting); retry after the Retry-After seconds.'],
      Timeout: ['E_TIMEOUT', 'The request took longer than 30000 ms and was cancelled; ask for less at once (fewer years or governments, a smaller limit) or page through it.'],
      Internal: ['E_INTERNAL', 'Internal error; request id mi3x0q1a-2f.'],
    });
    expect(examples.Internal!.meta.request_id).toBe('mi3x0q1a-2f');
  });
});

describe('the templates no request here draws: rendered in-process as their throw sites do', () => {
  // The typed signature checks keys and parameters at compile time; a table of them is checked here at run time.
  const render = apiError as unknown as (code: string, key: string, params: Record<string, string | number>) => { status: number; code: string; message: string };
  for (const [key, row] of Object.entries(UNTRIGGERED)) {
    it(`${key} (${row.why})`, () => {
      const [code, name] = key.split('.') as [string, string];
      const err = render(code, name, row.params);
      expect([err.code, err.status, err.message]).toEqual([code, STATUS[code], row.message]);
    });
  }
});

/** Every .ts file under src/. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sources(p) : d.name.endsWith('.ts') ? [p] : [];
  });
}

describe('free-text error messages', () => {
  it('at most 10 errors in src/ are worded outside the catalog (new ApiError(code, text)); apiError() takes only a template', () => {
    const found: string[] = [];
    for (const file of sources(path.join(ROOT, 'src'))) {
      if (file.endsWith(path.join('server', 'errors.ts'))) continue; // the catalog itself: apiError() builds its ApiError there
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/new ApiError\s*\(/g)) found.push(`${path.relative(ROOT, file)}:${text.slice(0, m.index).split('\n').length}`);
      // apiError with a string literal that is not a template key: a sentence (a space in it) or a template string.
      for (const m of text.matchAll(/apiError\(\s*'E_[A-Z_]+'\s*,\s*(`|'[^']*\s[^']*'|"[^"]*\s[^"]*")/g)) found.push(`${path.relative(ROOT, file)}:${text.slice(0, m.index).split('\n').length} (apiError with text)`);
    }
    expect(found.length, found.join('\n')).toBeLessThanOrEqual(10);
  });
});
