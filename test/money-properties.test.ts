// Issue 22's property test: 1,000 random valid requests over every money route
// (one government's spending, revenue, balances and profile; flat spending and
// revenue; peer comparison; rollups), each answer walked page by page, and the
// invariants the spec promises checked on every one:
//   - meta.total equals the rows summed over all pages (and completion's
//     rows_filled the filled rows among them);
//   - coverage: expected is never below reporting, in meta and per year;
//   - every value_source agrees with provenance.completion;
//   - every id of a govid list is in exactly one of govids_found and govids_missing;
//   - the boolean meta fields are booleans;
//   - data: [] only when the governments reported nothing matching the filters
//     (the answer's own provenance SQL, run in DuckDB, finds no row).
// The requests are drawn by fast-check from the corpus's own governments and
// categories and the route table's enums; the seed is printed to replay a run.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { get } from './helpers/http.js';
import { query } from './helpers/duckdb.js';

const REQUESTS = 1000;
const CONCURRENCY = 6;
/** Pages walked at most; a longer answer is checked at its first and last pages and by its arithmetic. */
const MAX_PAGES = 25;
const V = '/api/v1';
const YEARS = ['2011', '2019', '2020', '2019,2020', '2011-2020', '2011,2020'];
const enc = encodeURIComponent;

interface World {
  govs: { id: string; type: number; state: string | null; data: boolean }[];
  cats: Record<'spending' | 'revenue' | 'balance', string[]>;
  enums: Map<string, string[]>;
  peerTargets: string[];
}

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
const maybe = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined, freq: 2 });
const qs = (o: Record<string, string | undefined>): string => {
  const parts = Object.entries(o).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${enc(v!)}`);
  return parts.length ? `?${parts.join('&')}` : '';
};

/** One category, two, All Categories, or none. */
const categoryArb = (names: string[], all = true): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    pick(names),
    fc.uniqueArray(pick(names), { minLength: 2, maxLength: 2 }).map((a) => a.join(',')),
    ...(all ? [fc.constant('All Categories')] : []),
    fc.constant(undefined),
  );

function requestArb(w: World): fc.Arbitrary<string> {
  const withData = w.govs.filter((g) => g.data).map((g) => g.id);
  const gov = pick(withData);
  const page = { limit: pick(['50', '200', '1000']) };
  const common = { years: maybe(pick(YEARS)), per_capita: maybe(pick(['true', 'false'])), adjust: maybe(pick(['real', 'nominal'])), basis: maybe(pick(['raw', 'harmonized'])) };
  const enumOf = (key: string): fc.Arbitrary<string | undefined> => maybe(pick(w.enums.get(key) ?? ['']));
  // complete=true is drawn with All Categories too (a subtype's row filled as its categories' cells imply); a subtype is drawn with no category and the
  // concept whose subtypes it lists (one of another category or concept is a 400 naming the right one).
  // complete=true is refused with expenditure_concept=total too (the intergovernmental leg keeps aggregate rows).
  const gridOk = (q: { category?: string; complete?: string; expenditure_concept?: string }) =>
    !(q.complete === 'true' && q.expenditure_concept === 'total');
  const subtypeOf = (route: string) => enumOf(`${route}.subtype`);
  const gSpending = fc.record({ g: gov, category: categoryArb(w.cats.spending), complete: maybe(pick(['true', 'false'])), expenditure_concept: enumOf('spending.expenditure_concept'), ...common, ...page })
    .filter(gridOk).map(({ g, ...q }) => `${V}/governments/${g}/spending${qs(q)}`);
  const gRevenue = fc.record({ g: gov, category: categoryArb(w.cats.revenue), complete: maybe(pick(['true', 'false'])), revenue_concept: enumOf('revenue.revenue_concept'), ...common, ...page })
    .filter(gridOk).map(({ g, ...q }) => `${V}/governments/${g}/revenue${qs(q)}`);
  const gSubtype = fc.record({ g: gov, verb: pick(['spending', 'balances']), years: common.years, ...page }).chain(({ verb, ...q }) =>
    (verb === 'balances' ? subtypeOf('balances') : fc.record({ expenditure_concept: fc.constant('total'), subtype: subtypeOf('spending') }).map((x) => x as Record<string, string | undefined>))
      .map((x) => `${V}/governments/${q.g}/${verb}${qs({ ...(typeof x === 'string' || x === undefined ? { subtype: x } : x), years: q.years, limit: q.limit })}`));
  const gBalances = fc.record({ g: gov, category: categoryArb(w.cats.balance), years: common.years, ...page })
    .map(({ g, ...q }) => `${V}/governments/${g}/balances${qs(q)}`);
  const gProfile = fc.record({ g: gov, category: maybe(fc.tuple(pick(w.cats.spending), pick(w.cats.revenue)).map((a) => a.join(','))), ...common, ...page })
    .map(({ g, ...q }) => `${V}/governments/${g}/profile${qs(q)}`);
  const selection = fc.oneof(
    // A govid list: governments with data, and some of the registry's without.
    fc.uniqueArray(pick(w.govs.map((g) => g.id)), { minLength: 1, maxLength: 6 }).map((ids) => ({ govid: ids.join(',') } as Record<string, string | undefined>)),
    fc.record({ state: pick(['DE', 'NH', 'RI', 'VT', 'ME', 'MA', 'CT']), type: maybe(pick(['county', 'city', 'township'])) }),
    fc.record({ type: pick(['state']) }),
  );
  const flat = (verb: 'spending' | 'revenue', cats: string[]) =>
    fc.record({ sel: selection, category: categoryArb(cats), complete: maybe(pick(['true', 'false'])), ...common, ...page, page: maybe(pick(['0', '1'])) })
      .filter(gridOk).map(({ sel, ...q }) => `${V}/${verb}${qs({ ...sel, ...q })}`);
  const peers = fc.record({ g: pick(w.peerTargets), category: fc.oneof(pick(w.cats.spending), fc.constant('All Categories')), years: maybe(pick(YEARS)), coverage: maybe(pick(['all', 'consistent'])), adjust: common.adjust, ...page })
    .map(({ g, ...q }) => `${V}/governments/${g}/peer-comparison${qs(q)}`);
  const rollups = fc.record({ layer: pick(['county', 'city']), state: pick(['DE', 'NH', 'RI', 'VT', 'ME']), category: maybe(pick([...w.cats.spending, 'All Categories'])), years: maybe(pick(YEARS)), per_capita: common.per_capita, coverage: maybe(pick(['all', 'consistent'])), ...page })
    .map((q) => `${V}/rollups${qs(q)}`);
  return fc.oneof(gSpending, gRevenue, gSubtype, gBalances, gProfile, flat('spending', w.cats.spending), flat('revenue', w.cats.revenue), peers, rollups);
}

const BOOLEAN_META = ['complete', 'expenditure_concept_direct_suppressed', 'not_gaap', 'is_census_year'];

/** The invariants of one answer, walked over its pages; a list of what fails (empty when it holds). */
async function check(url: string): Promise<string[]> {
  const bad: string[] = [];
  const first = await get(url);
  if (first.status !== 200) return [`${first.status}: ${first.text.slice(0, 200)}`];
  const { meta, provenance } = first.body;
  const limit: number = meta.limit, total: number = meta.total, page0: number = meta.page ?? 0;
  const pages = Math.max(1, Math.ceil(total / limit));
  const sep = url.includes('?') ? '&' : '?';
  const base = url.replace(/([?&])page=\d+/, '$1').replace(/[?&]$/, '');
  const rows: any[] = [];
  const walk = pages <= MAX_PAGES ? [...Array(pages).keys()] : [0, pages - 1];
  for (const p of walk) {
    const got = p === page0 ? first : await get(`${base}${base.includes('?') ? '&' : sep}page=${p}`);
    if (got.status !== 200) { bad.push(`page ${p}: ${got.status}`); continue; }
    const expected = p < pages - 1 ? limit : total - (pages - 1) * limit;
    if (got.body.data.length !== Math.max(0, expected)) bad.push(`page ${p} has ${got.body.data.length} rows, not ${expected} (total ${total}, limit ${limit})`);
    rows.push(...got.body.data);
  }
  if (pages <= MAX_PAGES && rows.length !== total) bad.push(`meta.total ${total} but ${rows.length} rows over ${pages} pages`);
  // Coverage: never fewer expected than reporting.
  if (meta.n_units_expected !== undefined && meta.n_units_expected < meta.n_units_reporting) bad.push(`meta coverage ${meta.n_units_expected} < ${meta.n_units_reporting}`);
  for (const c of [...(meta.coverage_by_year ?? []), ...(Array.isArray(provenance?.coverage) ? provenance.coverage : [])]) {
    if (c.n_units_expected < c.n_units_reporting) bad.push(`coverage ${JSON.stringify(c)}`);
    if (c.is_census_year !== undefined && typeof c.is_census_year !== 'boolean') bad.push(`coverage is_census_year ${c.is_census_year}`);
  }
  for (const k of BOOLEAN_META) if (k in meta && typeof meta[k] !== 'boolean') bad.push(`meta.${k} is ${JSON.stringify(meta[k])}`);
  if (/\/governments\/\d+\/spending/.test(url) && typeof meta.expenditure_concept_direct_suppressed !== 'boolean') bad.push('no boolean expenditure_concept_direct_suppressed on one government\'s spending');
  if (/\/balances/.test(url) && meta.not_gaap !== true) bad.push(`balances meta.not_gaap ${meta.not_gaap}`);
  // rows_filled counts the query's filled cells before a subtype filter (which provenance does not describe).
  bad.push(...completionAgrees(rows, provenance, pages <= MAX_PAGES && !/[?&]subtype=/.test(url)));
  // A govid list: each id found or missing, never both, never neither.
  const list = /[?&]govid=([^&]*)/.exec(url);
  if (list) {
    const ids = decodeURIComponent(list[1]!).split(',');
    const found = new Set<string>(provenance.scope.govids_found ?? []), missing = new Set<string>(provenance.scope.govids_missing ?? []);
    for (const id of ids) if (found.has(id) === missing.has(id)) bad.push(`govid ${id} in found ${found.has(id)}, missing ${missing.has(id)}`);
  }
  // data: [] only when nothing matched: the answer's own SQL finds no row of the filters.
  if (total === 0 && typeof provenance?.sql_query === 'string' && !/peer-comparison|rollups/.test(url)) {
    const sqlRows = (await query(provenance.sql_query)).filter((r: any) => meta.subtype === undefined || r.subtype === meta.subtype);
    if (sqlRows.length > 0) bad.push(`data: [] while its SQL finds ${sqlRows.length} rows`);
  }
  return bad;
}

/** value_source against provenance.completion: present only when completion applied, each value as absence_means and not_in_survey say. */
function completionAgrees(rows: any[], provenance: any, whole: boolean): string[] {
  const c = provenance?.completion;
  if (c === undefined) return [];
  const bad: string[] = [];
  if (!c.applied) {
    if (rows.some((r) => r.value_source !== undefined)) bad.push('value_source without completion');
    return bad;
  }
  const exceptions = new Map<number, Set<string>>((c.not_in_survey ?? []).map((e: any) => [e.year, new Set(e.canonical_govids)]));
  const cut = new Set<number>((c.not_in_survey ?? []).filter((e: any) => e.n_governments > e.canonical_govids.length).map((e: any) => e.year));
  let filled = 0;
  const unsummed = new Map<number, number>();
  const told = new Map<number, number>((c.published_not_summed ?? []).map((e: any) => [e.year, e.n_cells]));
  for (const r of rows) {
    const means = c.absence_means[String(r.year)];
    const exception = exceptions.get(r.year)?.has(r.canonical_govid) ?? false;
    if (r.value_source === 'reported') continue;
    filled++;
    if (r.value_source === 'census_zero' && (means !== 'census_zero' || exception)) bad.push(`census_zero in ${r.year} (absence_means ${means}, listed not in survey ${exception})`);
    // Else a cell published but not summed here, counted per year in published_not_summed (checked below).
    if (r.value_source === 'not_reported' && means !== 'not_reported' && !exception && !cut.has(r.year)) unsummed.set(r.year, (unsummed.get(r.year) ?? 0) + 1);
    if (r.value_source !== 'census_zero' && r.value_source !== 'not_reported') bad.push(`value_source ${r.value_source}`);
  }
  if (whole && filled !== c.rows_filled) bad.push(`rows_filled ${c.rows_filled}, but ${filled} filled rows`);
  for (const [year, n] of unsummed) {
    const t = told.get(year) ?? 0;
    if (whole ? n !== t : n > t) bad.push(`${n} not_reported cells in dense ${year} neither not in survey nor in published_not_summed (${t})`);
  }
  return bad;
}

describe('money routes: invariants over 1,000 random valid requests', () => {
  const w = {} as World;
  beforeAll(async () => {
    const types = ['state', 'county', 'city', 'township'];
    w.govs = [];
    for (const [t, type] of types.entries()) {
      const rows = (await get(`${V}/governments?type=${type}&limit=1000`)).body.data as any[];
      for (const g of rows.slice(0, 150)) w.govs.push({ id: g.canonical_govid, type: t, state: g.state, data: g.years_in_mirror.length > 0 });
    }
    w.cats = { spending: [], revenue: [], balance: [] };
    for (const k of ['spending', 'revenue', 'balance'] as const) w.cats[k] = ((await get(`${V}/categories?type=${k}`)).body.data as any[]).map((c) => c.category).filter((c, i, a) => a.indexOf(c) === i);
    const doc = (await get('/openapi.json')).body;
    w.enums = new Map();
    for (const [route, path] of [['spending', `${V}/governments/{govid}/spending`], ['revenue', `${V}/governments/{govid}/revenue`], ['balances', `${V}/governments/{govid}/balances`]]) {
      for (const p of doc.paths[path!].get.parameters) if (p.schema?.enum) w.enums.set(`${route}.${p.name}`, p.schema.enum);
    }
    // Targets with peers: mid-sized counties and cities (the largest have none within 0.7-1.3 times their population).
    const mid = [...w.govs.filter((g) => g.type === 1 && g.data).slice(40, 60), ...w.govs.filter((g) => g.type === 2 && g.data).slice(60, 80)];
    w.peerTargets = [];
    for (const g of mid) if (((await get(`${V}/governments/${g.id}/peers`)).body.data ?? []).length > 0) w.peerTargets.push(g.id);
    expect(w.peerTargets.length).toBeGreaterThan(5);
  }, 120_000);

  it('hold on every answer, every page', async () => {
    const seed = Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31);
    console.log(`money properties: seed ${seed} (PROPERTY_SEED=${seed} replays it)`);
    const urls = fc.sample(requestArb(w), { numRuns: REQUESTS, seed });
    const failures: string[] = [];
    const byRoute = new Map<string, number>();
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < urls.length) {
        const url = urls[next++]!;
        const route = url.replace(/\?.*/, '').replace(/\d{12}/, '{govid}');
        byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
        for (const b of await check(url)) failures.push(`${url}: ${b}`);
      }
    }));
    console.log(`money properties: ${urls.length} requests`, Object.fromEntries(byRoute));
    expect(byRoute.size).toBe(8);
    expect(failures.slice(0, 30)).toEqual([]);
  }, 600_000);
});
