// The school arrest-rate service on the committed (synthetic) mirror: every
// route, default and error; intervals nested and ordered on every row; the
// summaries recomputed from the draws with DuckDB; /draws' SQL run as is.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { arrestsUrl, expectErrorEnvelope, get as getFrom } from './helpers/http.js';
import { query } from './helpers/duckdb.js';
import { ROOT } from './helpers/server.js';

const get = (p: string) => getFrom(p, undefined, arrestsUrl());
const err = async (p: string): Promise<string> => expectErrorEnvelope(await get(p), 400);
const A = path.join(ROOT, 'fixtures/arrests');
const DRAWS = `read_parquet('${A}/parquet/*/*/*/*.parquet', hive_partitioning = true)`;
const MODELS = ['unified_m1', 'unified_m2', 'unified_m3', 'unified_m4', 'unified_m5', 'stratified_m1', 'stratified_m2', 'stratified_m3', 'stratified_m4', 'stratified_m5'];

describe('defaults and routes', () => {
  it('/estimates defaults: model unified_m2, interval 95, limit 100, page 0; rows ordered by leaid, race, sex', async () => {
    const { body } = await get('/api/v1/estimates');
    expect(body.meta).toMatchObject({ model: 'unified_m2', interval: 95, limit: 100, page: 0 });
    expect(body.data.length).toBe(100);
    const key = (r: any) => `${r.leaid}|${r.race}|${r.sex}|${r.year}`;
    expect(body.data.map(key)).toEqual([...body.data.map(key)].sort());
    expect(Object.keys(body.data[0])).toEqual(['leaid', 'lea_name', 'state', 'state_name', 'lat', 'lon', 'race', 'sex', 'year', 'model', 'interval', 'stu_enroll', 'observed_arrests', 'rate_median', 'rate_lower', 'rate_upper', 'count_median', 'count_lower', 'count_upper']);
    const [{ n }] = await query(`SELECT count(*) AS n FROM (SELECT DISTINCT LEAID, RACE, SEX FROM ${DRAWS} WHERE model_id = 'unified_m2_mod')`);
    expect(body.meta.total).toBe(n);
  });

  it('model takes the _mod suffix and any case; a stratified model only when asked for', async () => {
    const a = (await get('/api/v1/estimates/1000047?model=stratified_m2')).body;
    const b = (await get('/api/v1/estimates/1000047?model=STRATIFIED_M2_MOD')).body;
    expect(a.data).toEqual(b.data);
    expect(a.meta.model).toBe('stratified_m2');
    const d = (await get('/api/v1/estimates/1000047')).body;
    expect(d.meta.model).toBe('unified_m2');
    expect(d.data.map((r: any) => r.count_upper)).not.toEqual(a.data.map((r: any) => r.count_upper));
  });

  it('lower and upper follow the interval; rates are counts over enrollment', async () => {
    for (const interval of [50, 80, 95]) {
      const { body } = await get(`/api/v1/estimates?state=RI&year=21-22&interval=${interval}&limit=200`);
      expect(body.meta.interval).toBe(interval);
      for (const r of body.data) {
        expect(r.interval).toBe(interval);
        if (r.stu_enroll > 0) {
          expect(r.rate_median).toBeCloseTo(r.count_median / r.stu_enroll, 12);
          expect(r.rate_lower).toBeCloseTo(r.count_lower / r.stu_enroll, 12);
          expect(r.rate_upper).toBeCloseTo(r.count_upper / r.stu_enroll, 12);
        } else expect(r.rate_median).toBeNull();
      }
    }
  });

  it('/estimates filters by leaid, state, race, sex and year, and pages', async () => {
    const { body } = await get('/api/v1/estimates?state=VT&race=HI&sex=F&year=21-22&limit=7&page=1');
    expect(body.data.length).toBe(7);
    expect(body.data.every((r: any) => r.state === 'VT' && r.race === 'HI' && r.sex === 'F' && r.year === '21-22')).toBe(true);
    const all = (await get('/api/v1/estimates?state=VT&race=HI&sex=F&year=21-22&limit=1000')).body;
    expect(body.data).toEqual(all.data.slice(7, 14));
    expect(body.meta.total).toBe(all.data.length);
    const one = (await get('/api/v1/estimates?leaid=1000047&year=21-22')).body;
    expect(one.data.every((r: any) => r.leaid === '1000047')).toBe(true);
    expect(one.data).toEqual((await get('/api/v1/estimates/1000047?year=21-22')).body.data);
  });

  it('with no year answers every year the model covers', async () => {
    const m3 = (await get('/api/v1/estimates/1000047?model=unified_m3&race=WH&sex=M')).body;
    expect(m3.data.map((r: any) => r.year)).toEqual(['15-16', '17-18', '21-22']);
  });

  it('/states and /states/{state}: state rows with grain state', async () => {
    const s = (await get('/api/v1/states?year=21-22')).body;
    expect(s.meta.grain).toBe('state');
    expect(new Set(s.data.map((r: any) => r.state))).toEqual(new Set(['DE', 'NH', 'RI', 'VT']));
    const one = (await get('/api/v1/states/ri?year=21-22&race=BL')).body;
    expect(one.data.length).toBe(2);
    expect(one.data.every((r: any) => r.state === 'RI' && r.state_name === 'Rhode Island')).toBe(true);
  });

  it('/districts: literal case-insensitive name search, state filter, paging', async () => {
    const { body } = await get('/api/v1/districts?q=COUNTY&state=nh&limit=5');
    expect(body.data.length).toBe(5);
    expect(body.data.every((r: any) => r.lea_name.toLowerCase().includes('county') && r.state === 'NH')).toBe(true);
    expect(Object.keys(body.data[0])).toEqual(['leaid', 'lea_name', 'state', 'state_name', 'lat', 'lon']);
    const [{ n }] = await query(`SELECT count(*) AS n FROM read_parquet('${A}/districts.parquet') WHERE state = 'NH' AND strpos(lower(lea_name), 'county') > 0`);
    expect(body.meta.total).toBe(n);
    expect((await get('/api/v1/districts?q=.*')).body.meta.total).toBe(0);
    expect((await get(`/api/v1/districts?q=${encodeURIComponent("O'")}`)).body.data.every((r: any) => r.lea_name.includes("O'"))).toBe(true);
  });

  it('/models lists the ten models, the years each covers and the default', async () => {
    const { body } = await get('/api/v1/models');
    expect(body.data.map((m: any) => m.model)).toEqual(MODELS);
    expect(body.data.filter((m: any) => m.is_default).map((m: any) => m.model)).toEqual(['unified_m2']);
    for (const m of body.data) {
      expect(m.years).toEqual(m.model.endsWith('m1') || m.model.endsWith('m2') ? ['21-22'] : ['15-16', '17-18', '21-22']);
      expect(typeof m.description).toBe('string');
      expect(m.years_in_mirror).toEqual(m.years);
    }
  });
});

describe('errors', () => {
  it('unknown key names it and lists the accepted keys', async () => {
    const m = await err('/api/v1/estimates?district=1');
    expect(m).toContain("'district'");
    for (const k of ['leaid', 'state', 'race', 'sex', 'year', 'model', 'interval', 'limit', 'page']) expect(m).toContain(k);
  });

  it('values outside an enumeration name the parameter and the allowed values', async () => {
    expect(await err('/api/v1/estimates?race=XX')).toContain('race must be one of AM, BL, HI, WH');
    expect(await err('/api/v1/estimates?sex=U')).toContain('sex must be one of F, M');
    expect(await err('/api/v1/estimates?year=2021')).toContain('year must be one of 15-16, 17-18, 21-22');
    expect(await err('/api/v1/estimates?interval=90')).toContain('interval must be one of 50, 80, 95');
    expect(await err('/api/v1/estimates?model=nat_m2')).toContain('unified_m2');
  });

  it('leaid: malformed is 400 E_LEAID_FORMAT; well-formed unknown is 400 E_LEAID_UNKNOWN with the exact message (as govids)', async () => {
    const code = async (p: string): Promise<unknown> => ((await get(p)).body as { meta: { error_code?: string } }).meta.error_code;
    for (const bad of ['100004', '10000477', 'abcdefg', '1000-47']) {
      expect(await err(`/api/v1/estimates/${bad}`)).toContain('is not an LEA id. Expected 7 digits');
      expect(await err(`/api/v1/estimates?leaid=${bad}`)).toContain('is not an LEA id');
      expect(await code(`/api/v1/estimates?leaid=${bad}`)).toBe('E_LEAID_FORMAT');
    }
    expect(await err('/api/v1/estimates/9999999')).toBe("Unknown leaid '9999999'.");
    expect(await err('/api/v1/estimates?leaid=1000048')).toBe("Unknown leaid '1000048'.");
    expect(await code('/api/v1/estimates/9999999')).toBe('E_LEAID_UNKNOWN');
    expect(await code('/api/v1/estimates?leaid=1000048')).toBe('E_LEAID_UNKNOWN');
  });

  it('an unknown state is 400 listing the states of the mirror', async () => {
    expect(await err('/api/v1/estimates?state=CA')).toContain('DE, NH, RI, VT');
    expect(await err('/api/v1/states/ZZ')).toContain('DE, NH, RI, VT');
    await err('/api/v1/districts?state=Texas');
  });

  it('a model without a fit for the year is 400 saying which years it covers', async () => {
    expect(await err('/api/v1/estimates?model=unified_m1&year=15-16')).toBe('model unified_m1 has no fit for 15-16; it covers 21-22.');
    expect(await err('/api/v1/states?model=stratified_m2&year=17-18')).toContain('it covers 21-22');
  });

  it('limit above 1000 is 400 (never clamped); bad paging is 400', async () => {
    expect(await err('/api/v1/estimates?limit=1001')).toContain('1000');
    for (const q of ['limit=0', 'page=-1', 'limit=1e3']) await err(`/api/v1/estimates?${q}`);
  });

  it('/draws requires model, year and state; leaid must be in the state', async () => {
    expect(await err('/api/v1/draws?year=21-22&state=DE')).toContain('model is required');
    expect(await err('/api/v1/draws?model=unified_m2&state=DE')).toContain('year is required');
    expect(await err('/api/v1/draws?model=unified_m2&year=21-22')).toContain('state is required');
    expect(await err('/api/v1/draws?model=unified_m2&year=21-22&state=RI&leaid=1000047')).toContain('not in state RI');
    expect(await err('/api/v1/draws?model=unified_m1&year=17-18&state=DE')).toContain('it covers 21-22');
  });
});

describe('summaries against the draws', () => {
  it('every row of every model has nested intervals (50 in 80 in 95) and lower <= median <= upper', async () => {
    for (const model of MODELS) {
      const rows: any[][] = [];
      for (const interval of [50, 80, 95]) {
        const r: any[] = [];
        for (let page = 0; ; page++) {
          const b = (await get(`/api/v1/estimates?model=${model}&interval=${interval}&limit=1000&page=${page}`)).body;
          r.push(...b.data);
          if (b.data.length < 1000) break;
        }
        rows.push(r);
      }
      const [r50, r80, r95] = rows as [any[], any[], any[]];
      expect(r50.length).toBeGreaterThan(1000);
      expect(r80.length).toBe(r50.length);
      expect(r95.length).toBe(r50.length);
      for (let i = 0; i < r50.length; i++) {
        const a = r50[i], b = r80[i], c = r95[i];
        expect(c.count_lower).toBeLessThanOrEqual(b.count_lower);
        expect(b.count_lower).toBeLessThanOrEqual(a.count_lower);
        expect(a.count_upper).toBeLessThanOrEqual(b.count_upper);
        expect(b.count_upper).toBeLessThanOrEqual(c.count_upper);
        for (const x of [a, b, c]) {
          expect(x.count_lower).toBeLessThanOrEqual(x.count_median);
          expect(x.count_median).toBeLessThanOrEqual(x.count_upper);
        }
      }
    }
  });

  // Written here, independently of the service: median, then the 95, 80 and 50 windows in turn,
  // each the narrowest of k sorted draws containing the median and inside the wider one (ties to the lower bound).
  const hpdSql = (source: string, keys: string): string => {
    const k = { 95: 475, 80: 400, 50: 250 } as Record<number, number>;
    const win = (p: number, wider?: number) => `
      w${p} AS (SELECT ${keys}, pred AS lo, lead(pred, ${k[p]! - 1}) OVER (PARTITION BY ${keys} ORDER BY pred) AS hi, med FROM s),
      c${p} AS (SELECT w.* FROM w${p} w ${wider ? `JOIN r${wider} USING (${keys})` : ''} WHERE w.hi IS NOT NULL AND w.lo <= w.med AND w.hi >= w.med ${wider ? `AND w.lo >= r${wider}.lo AND w.hi <= r${wider}.hi` : ''}),
      r${p} AS (SELECT ${keys}, min(lo) AS lo, min(lo) + any_value(width) AS hi FROM c${p} JOIN (SELECT ${keys}, min(hi - lo) AS width FROM c${p} GROUP BY ALL) USING (${keys}) WHERE hi - lo = width GROUP BY ALL)`;
    return `WITH d AS (${source}), m AS (SELECT ${keys}, median(pred) AS med FROM d GROUP BY ALL), s AS (SELECT * FROM d JOIN m USING (${keys})),
      ${win(95)}, ${win(80, 95)}, ${win(50, 80)}
      SELECT m.*, r50.lo AS lo50, r50.hi AS hi50, r80.lo AS lo80, r80.hi AS hi80, r95.lo AS lo95, r95.hi AS hi95
      FROM m JOIN r50 USING (${keys}) JOIN r80 USING (${keys}) JOIN r95 USING (${keys})`;
  };

  it('count_median and the HPD bounds of sampled cells equal DuckDB over the parquet, for every interval', async () => {
    const cells = await query(`SELECT DISTINCT LEAID FROM ${DRAWS} WHERE model_id = 'stratified_m4_mod' AND YEAR = '17-18' ORDER BY hash(LEAID) LIMIT 12`);
    const list = cells.map((c) => `'${c.LEAID}'`).join(', ');
    const src = `SELECT LEAID, RACE, SEX, pred FROM ${DRAWS} WHERE model_id = 'stratified_m4_mod' AND YEAR = '17-18' AND LEAID IN (${list})`;
    const sums = new Map((await query(hpdSql(src, 'LEAID, RACE, SEX'))).map((r) => [`${r.LEAID}|${r.RACE}|${r.SEX}`, r]));
    const med = new Map([...sums].map(([key, r]) => [key, r.med]));
    for (const interval of [50, 80, 95] as const) {
      const hpd = new Map([...sums].map(([key, r]) => [key, [r[`lo${interval}`], r[`hi${interval}`]]]));
      let checked = 0;
      for (const leaid of cells.map((c) => c.LEAID)) {
        const b = (await get(`/api/v1/estimates/${leaid}?model=stratified_m4&year=17-18&interval=${interval}`)).body;
        for (const r of b.data) {
          const key = `${r.leaid}|${r.race}|${r.sex}`;
          expect(r.count_median, key).toBe(med.get(key));
          expect([r.count_lower, r.count_upper], `${key} ${interval}`).toEqual(hpd.get(key));
          checked++;
        }
      }
      expect(checked).toBe(med.size);
    }
  });

  it('state estimates of two states equal DuckDB summing the districts within each draw', async () => {
    for (const st of ['RI', 'NH']) {
      const src = `SELECT RACE, SEX, draw_id, sum(pred) AS pred FROM ${DRAWS} WHERE model_id = 'unified_m4_mod' AND YEAR = '15-16' AND LEA_STATE = '${st}' GROUP BY ALL`;
      const sums = await query(hpdSql(src, 'RACE, SEX'));
      const med = new Map(sums.map((r) => [`${r.RACE}|${r.SEX}`, r.med]));
      const hpd = new Map(sums.map((r) => [`${r.RACE}|${r.SEX}`, [r.lo95, r.hi95]]));
      const enroll = new Map((await query(`
        SELECT race, sex, sum(stu_enroll) AS n FROM read_parquet('${A}/enrollment.parquet') e
        WHERE year = '15-16' AND leaid IN (SELECT DISTINCT LEAID FROM ${DRAWS} WHERE model_id = 'unified_m4_mod' AND YEAR = '15-16' AND LEA_STATE = '${st}' AND RACE = e.race AND SEX = e.sex) GROUP BY ALL`)).map((r) => [`${r.race}|${r.sex}`, r.n]));
      const { body } = await get(`/api/v1/states/${st}?model=unified_m4&year=15-16`);
      expect(body.data.length).toBe(med.size);
      for (const r of body.data) {
        const key = `${r.race}|${r.sex}`;
        expect(r.count_median).toBe(med.get(key));
        expect([r.count_lower, r.count_upper]).toEqual(hpd.get(key));
        expect(r.stu_enroll).toBe(enroll.get(key));
      }
    }
  });

  it("provenance.sql_query recomputes the answer's medians and bounds from the draws", async () => {
    const { body } = await get('/api/v1/estimates/1000047?model=unified_m5&interval=80');
    const rows = await query(body.provenance.sql_query);
    const key = (r: any) => `${r.LEAID}|${r.RACE}|${r.SEX}|${r.YEAR}`;
    const sql = new Map(rows.map((r) => [key(r), r]));
    for (const r of body.data) {
      const s = sql.get(`${r.leaid}|${r.race}|${r.sex}|${r.year}`)!;
      expect([s.count_median, s.count_lower_80, s.count_upper_80]).toEqual([r.count_median, r.count_lower, r.count_upper]);
    }
    expect(rows.length).toBe(body.data.length);
  });
});

describe('/draws', () => {
  it("answers the shard's address and SQL that, run as is, returns exactly the selected draws", async () => {
    const { body } = await get('/api/v1/draws?model=unified_m2_mod&year=21-22&state=DE&leaid=1000047&race=WH&sex=F');
    const d = body.data[0];
    expect(Object.keys(d).sort()).toEqual(['dataset', 'duckdb_sql', 'parquet_url']);
    expect(d.parquet_url).toBe(`${A}/parquet/model_id=unified_m2_mod/YEAR=21-22/LEA_STATE=DE/*.parquet`);
    const rows = await query(d.duckdb_sql);
    expect(rows.length).toBe(500);
    expect(rows.every((r) => r.LEAID === '1000047' && r.RACE === 'WH' && r.SEX === 'F' && r.model_id === 'unified_m2_mod' && r.YEAR === '21-22' && r.LEA_STATE === 'DE')).toBe(true);
    expect(rows.map((r) => r.draw_id)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    const direct = await query(`SELECT pred FROM ${DRAWS} WHERE model_id = 'unified_m2_mod' AND YEAR = '21-22' AND LEAID = '1000047' AND RACE = 'WH' AND SEX = 'F' ORDER BY draw_id`);
    expect(rows.map((r) => r.pred)).toEqual(direct.map((r) => r.pred));
    const state = (await get('/api/v1/draws?model=stratified_m3&year=15-16&state=VT')).body.data[0];
    const [{ n }] = await query(`SELECT count(*) AS n FROM (${state.duckdb_sql})`);
    const [{ m }] = await query(`SELECT count(*) AS m FROM ${DRAWS} WHERE model_id = 'stratified_m3_mod' AND YEAR = '15-16' AND LEA_STATE = 'VT'`);
    expect(n).toBe(m);
  });
});

// The spec gives /states no limit or page: every row in one page (it was cut at 1,000, with no way to the rest).
describe('/states pages', () => {
  it('answer every matching row, meta.limit equal to meta.total, and refuse limit and page', async () => {
    for (const p of ['/api/v1/states', '/api/v1/states?year=21-22', '/api/v1/states/DE']) {
      const { body, status } = await get(p);
      expect(status, p).toBe(200);
      expect(body.data.length, p).toBe(body.meta.total);
      expect(body.meta.limit, p).toBe(body.meta.total);
    }
    expectErrorEnvelope(await get('/api/v1/states?limit=5'), 400);
  });
});

describe('the synthetic mirror says so on every answer of rows', () => {
  it('meta.synthetic is true on each data route\'s example answer (districts, estimates, states, models, draws), none left out', async () => {
    const DATA = ['/api/v1/districts', '/api/v1/estimates', '/api/v1/estimates/{leaid}', '/api/v1/states', '/api/v1/states/{state}', '/api/v1/models', '/api/v1/draws'];
    const examples = (await get('/api/v1/examples')).body.data as { endpoint: string; path: string }[];
    const seen = new Set<string>();
    for (const e of examples.filter((x) => DATA.includes(x.endpoint))) {
      const { status, body } = await get(e.path);
      expect(status, e.path).toBe(200);
      expect(body.data.length, e.path).toBeGreaterThan(0);
      expect(body.meta.synthetic, e.path).toBe(true);
      seen.add(e.endpoint);
    }
    expect([...seen].sort()).toEqual([...DATA].sort());
  });
});
