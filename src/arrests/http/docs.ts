// Decisions of the school service where its spec says "not shown", kept
// consistent with the finance service's.

import { COMPRESSION, HTTP_CACHING, QUERY_SYNTAX, REPEATED_KEYS, REQUEST_LIMITS, CONNECTIONS, RATE_LIMITS, OPERATIONS, PAGES } from '../../server/docs-text.js';

export const ARRESTS_DECISIONS = [
  { topic: 'health', decision: '/health answers 200 once the draws are summarised; its row reports the mirror (districts, shards, draw rows), the summaries\' build, memory (rss_bytes, null when the system cannot say: /health never fails on a system call), access_log (lines dropped because stdout did not take them, process-wide, and this thread\'s buffer), connections (the process\'s connection gate, shared with the finance API: open_connections, max_connections, descriptor_limit, paused, pauses; see the finance data dictionary), compression (open_compressors, streams_compressed, bodies_compressed, as on the finance API), open_streams, uptime_s, and process and threads as on the finance API (the school API is served by one thread: threads has one entry; it has no pool or page slots, so those figures are 0). GET /api/v1/health is the route (the root has /livez, /readyz and /metrics, no /health).' },
  { topic: 'envelope', decision: 'The same envelope as the finance service: status, data (an array of rows on success, null on an error), error, meta (version v1), provenance, suggestions (always []). Errors are 400 with the parameter and what is allowed; unknown paths 404.' },
  { topic: 'unknown ids', decision: "A malformed leaid (not 7 digits) is a 400 E_LEAID_FORMAT; a well-formed leaid not in the mirror is a 400 E_LEAID_UNKNOWN, Unknown leaid '<id>' (as the finance service answers E_GOVID_FORMAT and E_GOVID_UNKNOWN). Each service's dictionary lists only the error codes it can answer with. A state without districts in the mirror is a 400 listing the mirror's states. (The reference answered these with an empty 200.)" },
  { topic: 'model and year', decision: 'model defaults to unified_m2 (unified_m2_mod is accepted too); a stratified model must be named. A model asked about a school year it was not fit on is a 400 naming the years it covers; with no year, every year the model covers is answered.' },
  { topic: 'estimates rows', decision: 'Rows: leaid, lea_name, state, state_name, lat, lon, race, sex, year, model, interval, stu_enroll, observed_arrests, rate_median, rate_lower, rate_upper, count_median, count_lower, count_upper; lower/upper follow the requested interval. Ordered by leaid, race, sex, then year. Groups with no enrolled students have no draws and no row.' },
  { topic: 'summary rule', decision: 'count_median is the interpolated median of pred over the 500 draws (the mean of the 250th and 251st sorted values); count_lower/count_upper are the HPD interval: the narrowest window of ceil(p*n) consecutive sorted draws, ties to the lower bound, among the windows that contain the median and lie inside the next wider interval (95% is taken first), so the intervals are nested and bracket the median by construction. For most rows the unconstrained narrowest window already meets both conditions; where whole-count draws tie heavily (about 0.3% of the fixture\'s rows, mostly at 50%: 369 of 121,806 district rows and 3 of 2,112 state rows, counted against DuckDB in an audit of 2026-11-28) the interval served is another window of the same mass, of the same width or wider, so it can differ from a plain narrowest-window HPD such as the R reference\'s; rate_* = count_* / stu_enroll, null when enrollment is unknown or zero. State rows sum pred over the state\'s districts within each draw (and enrollment over the districts with draws) and summarise the same way.' },
  { topic: 'suppression', decision: 'observed_arrests is null where the CRDC-style suppression applies (fewer than 10 students in the group, or 1-2 arrests).' },
  { topic: 'limits', decision: 'limit defaults to 100 on /estimates and /districts (cap 1000; above is a 400, never clamped); page is zero-based. /estimates/{leaid} answers every matching row up to 1000 (a district has far fewer). /states and /states/{state} take no limit or page (the spec gives them none) and answer every matching row in one page, meta.limit equal to meta.total: at most states x race x sex x years, a few thousand; before, rows past 1000 could not be fetched.' },
  { topic: 'districts search', decision: 'q is a case-insensitive literal substring of lea_name (no wildcards, no patterns); results ordered by name, then leaid.' },
  { topic: 'draws', decision: '/draws takes model, year and state (required) and race, sex, leaid (optional); it answers parquet_url (the shard on the mirror) and duckdb_sql (which returns exactly the selected draws, ordered) and dataset. Draws are never returned inline.' },
  { topic: 'provenance', decision: 'Estimate answers carry provenance: the summary rule, the mirror (dataset, digest, synthetic, seed) and sql_query, DuckDB SQL that recomputes count_median and the HPD bounds of the answer from the draws.' },
  REPEATED_KEYS,
  QUERY_SYNTAX,
  HTTP_CACHING,
  COMPRESSION,
  REQUEST_LIMITS,
  CONNECTIONS,
  RATE_LIMITS,
  OPERATIONS,
  PAGES,
];
