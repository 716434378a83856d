// The finance service's own documentation content: envelope and meta fields,
// the decisions taken where the spec says "not shown", and the corpus-wide
// caveats read from the corpus's series_breaks table.

import { COMPRESSION, HTTP_CACHING, QUERY_SYNTAX, REPEATED_KEYS, REQUEST_LIMITS, type DictionaryRow, type ServiceDocs } from '../server/docs-text.js';
import type { Catalog } from './catalog.js';

export const ATTRIBUTION =
  'Data: Civilytics, US Census of Governments finance corpus (CC-BY-4.0), from US Census Bureau data (Annual Survey of State and Local Government Finances and Census of Governments, public domain). CPI: FRED CPIAUCSL (U.S. Bureau of Labor Statistics).';

export const ENVELOPE_FIELDS = [
  { name: 'status', type: 'string', description: '`success` or `error`.' },
  { name: 'data', type: 'array|null', description: 'Array of row objects; null on error. Every route answers an array, single-record routes a one-row array.' },
  { name: 'error', type: 'string|null', description: 'Null on success; the human-readable message on error.' },
  { name: 'meta', type: 'object', description: 'Paging and the filters applied; meta.version is always v1. On errors meta.error_code names the entry of the error catalog.' },
  { name: 'provenance', type: 'object|null', description: 'How the answer was made (verb, target, years, scope, manifest, sql_query, ...); null on error and on the documentation routes.' },
  { name: 'suggestions', type: 'array', description: 'Always an array; [] when there is nothing to suggest and on every error.' },
];

export const META_FIELDS = [
  { name: 'version', type: 'string', description: 'Always v1.' },
  { name: 'total', type: 'integer', description: 'Full unpaginated row count.' },
  { name: 'limit', type: 'integer', description: 'Rows per page in effect.' },
  { name: 'page', type: 'integer', description: 'Zero-based page index, echoing the request.' },
  { name: 'error_code', type: 'string', description: 'On errors: the code of the error catalog (E_...).' },
  { name: 'request_id', type: 'string', description: 'On 500 errors: the id under which the fault is logged.' },
];

export const DECISIONS = [
  { topic: 'data shape', decision: 'data is always an array of row objects. Routes about one thing (/, /health, /governments/{govid}) answer a one-row array, so clients read every answer the same way.' },
  { topic: 'default limit', decision: 'limit defaults to 1000 on the money routes and /rollups (a government\'s whole history in one page) and to 100 on /governments; the cap is 1000 in JSON mode and above it is a 400, never clamped.' },
  REPEATED_KEYS,
  QUERY_SYNTAX,
  { topic: 'q and pattern', decision: 'q (/governments) and pattern (/categories, /recipes) are case-insensitive LITERAL substrings. Nothing a client sends is ever used as a regular expression: q=( and q=.* are plain text.' },
  { topic: 'category type values', decision: '/categories takes type=spending, revenue or balance (expenditure and balances are accepted spellings). All Categories is reserved: it is not a crosswalk row and is listed in meta.reserved, not in data.' },
  { topic: 'recipes', decision: "/recipes lists the corpus's harmonization_recipes (source corpus) and the service's three whole-leg intergovernmental revenue recipes ig_federal_total_wide, ig_state_total_wide and ig_local_total_wide (source service): through FY2011 the wide-era family total B--/C--/D--, from FY2012 every code of the family. On a schema_version 4 corpus only the service recipes exist." },
  { topic: 'government registry', decision: '/governments searches the whole canonical registry (canonical_fips_xwalk), including governments with no rows in the loaded years; years_in_mirror says which loaded years hold their rows. Ordered by population_acs, largest first, unknown population last, ties by canonical_govid.' },
  { topic: 'former ids', decision: "A 12-digit id that the corpus's canonical_alias lists as a former id (pid_12 crosswalk) is not silently resolved: it is a 400 Unknown govid whose message names the canonical id to use." },
  { topic: 'government identity fields', decision: '/governments/{govid} adds to canonical_govid, gov_name and fips_state: type, type_label, state, fips_county, fips_place, census_geoid, population_acs, pop_confidence, first_year and last_year (registry lifespan), legacy_govs_id, id_source, former_ids, lineage (consolidation events) and by_year (rows, aggregate rows and population per loaded year).' },
  { topic: 'provenance on metadata routes', decision: '/governments, /governments/{govid}, /categories and /recipes carry a provenance record too; its sql_query reads the mirror metadata parquet and returns the same rows. Documentation routes (/, /health, /examples, /data-dictionary) carry provenance null.' },
  { topic: 'health', decision: '/health answers 200 only once the corpus is loaded and verified (the server does not listen before); its row reports rows, years, schema_version, workers, memory (rss_bytes, null when the system cannot say, e.g. out of descriptors: /health never fails on a system call), connections (the process\'s connection gate: open_connections, descriptors open beyond those held at start, null when they cannot be counted; max_connections, MAX_CONNECTIONS; descriptor_limit, the soft ulimit -n; paused, true while the listening sockets are closed because the cap was reached, so new clients are refused at once; pauses so far), access_log (dropped_lines: access-log lines dropped, for the whole process, because stdout did not take them and this thread already held buffer_bytes of them; buffered_bytes: what this thread holds now), compression (this thread\'s open_compressors, one per compressed stream still streaming, and streams_compressed and bodies_compressed so far), open_streams (responses still streaming), pool_jobs (jobs running or waiting for a worker; past workers + POOL_QUEUE a request is answered 503 with Retry-After), pool_batches (messages that carried small jobs batched per event-loop turn, posted early once each worker has 4, and the jobs they carried), csv_page_slots (shared memory slots that workers write CSV pages into and that each CSV stream holds to its end, CSV_PAGE_SLOTS: total, free now, pages_in_slots so far, and pulls_refused: pulls answered 503 because every slot was held), requests_in_flight (this one included), uptime_s, inline_jobs (small jobs the answering thread ran itself) and front_thread (thread_id of the thread that answered, 0 for the main thread, and of: FRONT_THREADS). With several front threads each has its own pool, page slots and counts, so pool_jobs, pool_batches, csv_page_slots, open_streams and requests_in_flight describe the thread that answered; workers is that thread\'s pool.' },
  { topic: 'front threads', decision: 'With FRONT_THREADS above 1 (the default on a machine of several cores) the finance API is served by that many threads on its one port; the kernel spreads connections across them. The corpus is loaded once, in shared memory every thread reads. Each front thread runs the small jobs (one government\'s history, tens of microseconds) itself and sends the rest (lists, rollups, peers, CSV pages) to its share of the pool: the round trip to a worker cost more than such a job, and one thread reading, writing and handing off every request was the limit of one-government throughput. WORKERS, POOL_QUEUE, RESPONSE_CACHE_MB and CSV_PAGE_SLOTS are shared out among the front threads (at least one worker each), so a 503 for a full queue depends on the thread that holds the connection. A small job run on a front thread takes no place in the queue and runs to its end (well under the time budget: about a millisecond), as any code on that thread does. FRONT_THREADS=1 serves the API on the main thread, every job on the pool. The school API is served on the main thread either way.' },
  { topic: 'category lists', decision: 'category takes one name or a comma-separated list on the money routes (exactly one on /peer-comparison); All Categories stands alone. Names are matched case-insensitively and answered in their canonical spelling.' },
  { topic: 'subtype outside the concept', decision: 'A subtype the requested concept does not include is a 400 naming the concepts that do (interest and insurance_benefits need expenditure_concept direct or total; intergovernmental needs total; utility, liquor_store and insurance_trust need revenue_concept=total), rather than an empty answer.' },
  { topic: 'codes_included and notes', decision: 'codes_included is a comma-separated string of the item codes summed (harmonized codes on basis=harmonized), null on filled cells. notes is a string of ";"-separated warnings, empty when there are none.' },
  { topic: 'completion of absent governments', decision: 'With complete=true, a government that did not report at all in a requested year gets not_reported cells even in a dense-source year: census_zero is claimed only where the government was in that year\'s file and Census published no amount.' },
  { topic: 'balances and basis', decision: 'Holdings are read from the published codes on either basis (the harmonization map carries no balance codes); meta.basis echoes the basis and provenance.basis_note says it has no effect. All Categories is not offered on /balances (stocks have no concept to sum).' },
  { topic: 'profile category', decision: '/profile takes categories of any flow (the spec exempts it from the flow gate); its rows are spending and revenue, so a balance category there yields no rows.' },
  { topic: 'suggestions', decision: "A suggestion is made for each requested year with no rows for the government on basis=harmonized with named categories, when a recipe sharing a code with those categories yields rows for that government and year. A whole-leg recipe (ig_*_total_wide) supersedes the residual ones it covers. provenance.suggestions adds the years each would fill." },
  { topic: 'categories_missing', decision: 'scope.categories_missing lists, per category found in some of years_present, the years of years_present in which it has no row.' },
  { topic: 'recipe flow', decision: 'A recipe is served by the route of the flow its component codes belong to (a revenue recipe on a spending route is a 400 naming the revenue routes); /profile takes any recipe and labels its rows flow recipe.' },
  { topic: 'flat selection', decision: 'Flat /spending and /revenue select by govid (a comma list of up to 1000 ids), by state, by type, or by state and type. govid with state or type is a 400 (E_CONFLICT) naming both keys: govid names the governments itself, state and type select a cohort, and the spec selects by one or the other (intersecting them left a listed id in neither govids_found nor govids_missing). With no selection the answer is a 400.' },
  { topic: 'CSV mode', decision: 'format=csv (or json, the default) on flat /spending and /revenue. The columns are the JSON row fields in the same order; null is an empty cell; lines end CRLF; a field is quoted when it holds a quote (doubled), a comma, a line break or a pipe. The header line is written even when there are no rows. limit defaults to the cap: 50,000, or 1,000 with subtype or recipe. Errors stay JSON envelopes. Each CSV stream holds one of the server\'s CSV_PAGE_SLOTS page slots until it ends, so a pull that finds every slot held is a 503 with Retry-After: 1 (E_BUSY), answered before any work: retry after it, or pull with fewer connections at once. HEAD on a CSV pull answers its headers (X-Total-Count counted) and writes no page. A page says what it holds of the whole: X-Total-Count, X-Page and X-Limit, a Link header (RFC 8288, relative URLs of the canonical request) with rel="next" and rel="last" while rows remain and rel="first" and rel="prev" past the first page (none on a lone page), and Content-Disposition: attachment; filename="<route>_<key>-<value>_..._page-<n>.csv" naming the query and the page (only A-Z, a-z, 0-9, dot, dash and underscore; a query of more than 120 such characters is cut and ends with 10 characters of its digest). The typed client\'s csv() and the CLI\'s export follow rel="next" to the last page. The count behind X-Total-Count is taken once per query (then remembered, the corpus being immutable) by a job that sums each government-year of the query and counts its cells without building the summary a JSON answer needs; it runs beside the page\'s job, so a query\'s first pull costs about what a repeat does, and the header is sent before the first row, as the spec has it.' },
  { topic: 'rollups', decision: "/rollups returns each government of the layer (in the state, in govids, or nationwide) with its spending rows; category defaults to All Categories (one row per government per subtype). The basis is the corpus default. With per_capita=true, governments with no population in a year are left out and listed in provenance.rollup.excluded_no_population; coverage=consistent drops those not reporting every requested year (provenance.rollup.excluded_inconsistent)." },
  { topic: 'coverage fields', decision: 'meta.n_units_expected, n_units_reporting and is_census_year describe the latest requested year; meta.coverage_by_year (and provenance.coverage) give every year when several are requested. On /rollups a unit is expected in a year when the registry lifespan (first_year to last_year) covers it or it reported that year (a unit that reported is expected by definition: some report outside their registry lifespan); on the peer routes the expected units are the peer set. Expected is never below reporting. Census years are years ending in 2 or 7.' },
  { topic: 'peers', decision: 'n defaults to 10 (1 to 50). Peers have the target\'s type and a population within 0.7 to 1.3 times the target\'s in the cohort year, closest first by |ln(population ratio)|, ties by canonical_govid. The cohort year is year, or the latest year in which the target has a population (the latest census year with coverage=census). Rows: rank, canonical_govid, gov_name, type, type_label, fips_state, state, population, pop_ratio, cohort_year.' },
  { topic: 'peer comparison', decision: 'Always per capita (per_capita is not a parameter), against the default cohort (10 peers). Rows per year: the target, then the peers by id; then summary_p25, summary_p50 and summary_p75 for each (year, subtype, category) cell where at least one peer has a value, type-7 quantiles of the peers\' per-capita dollars (summaries are computed from peer rows, so a cell without peer values has none), with gov_name Peer P25 / Peer median / Peer P75, no canonical_govid and a non-additivity warning in notes. Target rows carry target_rank (1 = highest per-capita dollars among target and peers in the cell) and ranked_of; summary rows carry ranked_of = peers in the cell.' },
  { topic: 'methods and CORS', decision: 'Only GET and HEAD are served (OPTIONS answers CORS preflight); anything else is 405. Access-Control-Allow-Origin is *.' },
  HTTP_CACHING,
  COMPRESSION,
  REQUEST_LIMITS,
];

/** Corpus-wide caveats: the series breaks whose code is the literal ALL. */
export function corpusCaveats(cat: Catalog): DictionaryRow[] {
  return (cat.tables.series_breaks ?? [])
    .filter((b) => b.fin_code === 'ALL')
    .map((b) => ({ section: 'caveat', name: String(b.break_id), type: `break year ${b.break_year}`, description: `${b.description ?? ''}${b.join_advice ? ` Advice: ${b.join_advice}` : ''}`.trim(), routes: [] }));
}

export function financeDocs(cat: Catalog): ServiceDocs {
  return {
    title: 'civicstream: US government finance API',
    summary:
      'Every dollar US state, county, city and township governments reported spending, raising and holding, from the Census of Governments, ' +
      `fiscal years ${cat.minYear}-${cat.maxYear} in this corpus, with harmonization across item-code vintages, inflation adjustment, per-capita scaling and provenance. Amounts are full US dollars.`,
    envelope: ENVELOPE_FIELDS,
    meta: META_FIELDS,
    decisions: DECISIONS,
    caveats: corpusCaveats(cat),
    attribution: ATTRIBUTION,
  };
}
