import { describe, expect, it } from 'vitest';
import { expectErrorEnvelope, get } from './helpers/http.js';
import { long, query, table } from './helpers/duckdb.js';

const LA_CITY = '062037161174';

describe('/governments', () => {
  it('lists the registry ordered by population, largest first, ties by id', async () => {
    const { body } = await get('/api/v1/governments?limit=1000');
    expect(body.meta).toMatchObject({ limit: 1000, page: 0 });
    const expected = await query(`SELECT canonical_govid FROM ${table('canonical_fips_xwalk')} ORDER BY population_acs DESC NULLS LAST, canonical_govid LIMIT 1000`);
    expect(body.data.map((r: any) => r.canonical_govid)).toEqual(expected.map((r) => r.canonical_govid));
    const [{ n }] = await query(`SELECT count(*) AS n FROM ${table('canonical_fips_xwalk')}`);
    expect(body.meta.total).toBe(n);
  });

  it('filters by state and type (name or number) and says what it applied', async () => {
    const a = (await get('/api/v1/governments?state=ca&type=county&limit=1000')).body;
    const b = (await get('/api/v1/governments?state=CA&type=1&limit=1000')).body;
    expect(a.data).toEqual(b.data);
    expect(a.meta).toMatchObject({ state: 'CA', type: 'county' });
    const expected = await query(`SELECT canonical_govid FROM ${table('canonical_fips_xwalk')} WHERE fips_state = '06' AND govs_type = 1 ORDER BY population_acs DESC NULLS LAST, canonical_govid`);
    expect(a.data.map((r: any) => r.canonical_govid)).toEqual(expected.map((r) => r.canonical_govid));
    expect(a.data.every((r: any) => r.state === 'CA' && r.type === 1 && r.type_label === 'county')).toBe(true);
  });

  it('matches q as a case-insensitive literal substring', async () => {
    const lower = (await get('/api/v1/governments?q=los%20angeles')).body;
    const upper = (await get('/api/v1/governments?q=LOS+ANGELES')).body;
    expect(lower.data.map((r: any) => r.gov_name)).toEqual(['LOS ANGELES COUNTY', 'LOS ANGELES CITY']);
    expect(upper.data).toEqual(lower.data);
  });

  it('treats regular-expression metacharacters as plain text', async () => {
    const paren = (await get('/api/v1/governments?q=(')).body;
    const [{ n }] = await query(`SELECT count(*) AS n FROM ${table('canonical_fips_xwalk')} WHERE strpos(gov_name, '(') > 0`);
    expect(paren.meta.total).toBe(n);
    expect(paren.data.every((r: any) => r.gov_name.includes('('))).toBe(true);
    expect((await get('/api/v1/governments?q=.*')).body.meta.total).toBe(0);
    expect((await get('/api/v1/governments?q=%5B')).body.meta.total).toBe(0);
    const own = (await get(`/api/v1/governments?q=${encodeURIComponent('FREDONIA (BRISCOE) CITY')}`)).body;
    expect(own.data.map((r: any) => r.gov_name)).toEqual(['FREDONIA (BRISCOE) CITY']);
  });

  it('pages without gaps or repeats: walking pages reaches meta.total rows once', async () => {
    const seen: string[] = [];
    let total = -1;
    for (let page = 0; page < 100; page++) {
      const { body } = await get(`/api/v1/governments?state=DE&limit=7&page=${page}`);
      total = body.meta.total;
      if (body.data.length === 0) break;
      expect(body.meta.page).toBe(page);
      seen.push(...body.data.map((r: any) => r.canonical_govid));
    }
    expect(seen.length).toBe(total);
    expect(new Set(seen).size).toBe(total);
  });

  it('refuses limit above the cap (never clamped) and other bad paging', async () => {
    expect(expectErrorEnvelope(await get('/api/v1/governments?limit=1001'), 400)).toContain('1000');
    for (const q of ['limit=0', 'limit=-5', 'limit=ten', 'page=-1', 'page=1.5', 'limit=']) {
      expectErrorEnvelope(await get(`/api/v1/governments?${q}`), 400);
    }
  });

  it('refuses bad state and type values, naming the parameter and the allowed values', async () => {
    const s = expectErrorEnvelope(await get('/api/v1/governments?state=ZZ'), 400);
    expect(s).toContain('state');
    expect(s).toContain('CA');
    const t = expectErrorEnvelope(await get('/api/v1/governments?type=5'), 400);
    expect(t).toMatch(/type must be one of state, county, city, township/);
    expect(t).toContain('out of scope');
  });

  it("refuses 'name' and 'year' (not keys of this route)", async () => {
    expect(expectErrorEnvelope(await get('/api/v1/governments?name=x'), 400)).toContain("'name'");
    expect(expectErrorEnvelope(await get('/api/v1/governments?year=2019'), 400)).toContain("'year'");
  });

  it('carries provenance whose sql_query returns the same rows', async () => {
    const { body } = await get('/api/v1/governments?state=TX&type=city&q=san&limit=5&page=1');
    const rows = await query(body.provenance.sql_query);
    expect(rows.map((r) => r.canonical_govid)).toEqual(body.data.map((r: any) => r.canonical_govid));
    expect(body.provenance.manifest).toMatchObject({ schema_version: 6, pipeline_commit: 'e7394a4' });
  });
});

describe('/governments/{govid}', () => {
  it('gives identity and lifespan, with rows and population per loaded year from the long table', async () => {
    const { body } = await get(`/api/v1/governments/${LA_CITY}`);
    const row = body.data[0];
    expect(row).toMatchObject({ canonical_govid: LA_CITY, gov_name: 'LOS ANGELES CITY', type: 2, fips_state: '06', state: 'CA', first_year: 1967, last_year: 2023 });
    const expected = await query(
      `SELECT year, count(*) AS rows, sum(is_aggregate::int) AS aggregate_rows, max(population) AS population FROM ${long()} WHERE canonical_govid = '${LA_CITY}' GROUP BY year ORDER BY year`,
    );
    expect(row.by_year.map(({ year, rows, aggregate_rows, population }: any) => ({ year, rows, aggregate_rows, population }))).toEqual(expected);
    expect(row.years_in_mirror).toEqual([2011, 2019, 2020]);
    expect(body.provenance.scope.govids_found).toEqual([LA_CITY]);
  });

  it('names former ids and lineage from the corpus tables', async () => {
    const [alias] = await query(`SELECT alias_id, canonical_govid FROM ${table('canonical_alias')} WHERE id_kind = 'pid_12' AND alias_id <> canonical_govid ORDER BY alias_id LIMIT 1`);
    const { body } = await get(`/api/v1/governments/${alias!.canonical_govid}`);
    expect(body.data[0].former_ids).toContain(alias!.alias_id);
    const msg = expectErrorEnvelope(await get(`/api/v1/governments/${alias!.alias_id}`), 400);
    expect(msg).toContain(`Unknown govid '${alias!.alias_id}'.`);
    expect(msg).toContain(alias!.canonical_govid);
    const [ev] = await query(`SELECT lpad(successor_canonical::varchar, 12, '0') AS s FROM ${table('lineage_events')} LIMIT 1`);
    expect((await get(`/api/v1/governments/${ev!.s}`)).body.data[0].lineage.length).toBeGreaterThan(0);
  });

  it('refuses a govid that is not 12 digits with the spec message', async () => {
    for (const bad of ['12345', '0620371611740', 'LOS%20ANGELES', '06037', '06-203-7161174', 'https%3A%2F%2Fx', '06203716117x']) {
      const msg = expectErrorEnvelope(await get(`/api/v1/governments/${bad}`), 400);
      expect(msg).toMatch(/^govid '.*' is not a canonical_govid\. Expected 12 digits/);
    }
  });

  it('refuses a well-formed unknown govid with the spec message', async () => {
    expect(expectErrorEnvelope(await get('/api/v1/governments/999999999999'), 400)).toBe("Unknown govid '999999999999'.");
  });
});
