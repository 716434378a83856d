import { describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { financeRoutes } from '../dist/src/finance/http/routes.js';
import { arrestsRoutes } from '../dist/src/arrests/http/routes.js';
import { arrestsUrl, expectErrorEnvelope, get, getWithHost } from './helpers/http.js';
import { query, table, V6 } from './helpers/duckdb.js';

describe('/ (metadata root)', () => {
  it('states the published years and holes and links the four documents', async () => {
    const { body } = await get('/api/v1/');
    const root = body.data[0];
    expect(root.scope).toContain('2011-2020');
    expect(root.scope).toContain('2011, 2019, 2020');
    expect(root.scope).toContain('no source data for 2012-2018');
    expect(root.published_years).toEqual([2011, 2019, 2020]);
    expect(root.holes).toEqual([2012, 2013, 2014, 2015, 2016, 2017, 2018]);
    expect(root.links).toEqual({ llms: '/api/v1/llms.txt', data_dictionary: '/api/v1/data-dictionary', docs: '/__docs__/', openapi: '/openapi.json' });
    expect(body.provenance).toBeNull();
  });

  it('links resolve at the server root; resolving docs and openapi under /api/v1 is 404', async () => {
    const { links } = (await get('/api/v1/')).body.data[0];
    for (const l of Object.values(links) as string[]) expect((await get(l)).status, l).toBe(200);
    expect((await get('/api/v1/openapi.json')).status).toBe(404);
    expect((await get('/api/v1/__docs__/')).status).toBe(404);
  });
});

describe('/health', () => {
  it('is 200 with the loaded corpus', async () => {
    const { body } = await get('/api/v1/health');
    expect(body.data[0]).toMatchObject({ status: 'ok', corpus: { rows: 1131643, years: [2011, 2019, 2020], schema_version: 6 } });
  });
});

describe('/examples', () => {
  it('builds absolute URLs from the request host, each answering 200', async () => {
    const { body } = await getWithHost('/api/v1/examples', 'api.example.org:9999');
    expect(body.data.length).toBeGreaterThan(5);
    for (const e of body.data) {
      expect(Object.keys(e).sort()).toEqual(['description', 'endpoint', 'example_url', 'path']);
      expect(e.example_url).toBe(`http://api.example.org:9999${e.path}`);
      expect((await get(e.path)).status, e.path).toBe(200);
    }
  });

  it('is generated from the live corpus: the example governments have rows in the latest year', async () => {
    const { body } = await get('/api/v1/examples');
    const govs = body.data.filter((e: any) => e.endpoint === '/api/v1/governments/{govid}');
    expect(govs.length).toBe(4);
    for (const e of govs) {
      const g = (await get(e.path)).body.data[0];
      expect(g.years_in_mirror).toContain(2020);
    }
  });

  it('does not echo a hostile Host header', async () => {
    const { body } = await getWithHost('/api/v1/examples', 'evil.com/"><script>');
    expect(body.data.every((e: any) => e.example_url.startsWith('http://localhost/'))).toBe(true);
  });
});

describe('/categories', () => {
  it("serves the corpus's categories with category_type and subtype, All Categories reserved", async () => {
    const { body } = await get('/api/v1/categories');
    const expected = await query(
      `SELECT category, category_type, COALESCE(spend_subtype, revenue_subtype, balance_subtype) AS subtype, count(*) AS n FROM ${table('summary_categories')} GROUP BY ALL`,
    );
    expect(body.data.length).toBe(expected.length);
    for (const e of expected) {
      const row = body.data.find((r: any) => r.category === e.category && r.subtype === e.subtype && r.category_type === e.category_type);
      expect(row, `${e.category}/${e.subtype}`).toBeDefined();
      expect(row.n_codes).toBe(e.n);
    }
    expect(body.data.some((r: any) => r.category === 'All Categories')).toBe(false);
    expect(body.meta.reserved).toEqual(['All Categories']);
    const types = new Set(body.data.map((r: any) => r.category_type));
    expect(types).toEqual(new Set(['expenditure', 'revenue', 'balance']));
  });

  it('filters by type and by a literal pattern', async () => {
    const spend = (await get('/api/v1/categories?type=spending')).body.data;
    expect(spend.length).toBeGreaterThan(0);
    expect(spend.every((r: any) => r.category_type === 'expenditure')).toBe(true);
    expect(spend.map((r: any) => r.category)).toContain('Police');
    const ig = (await get('/api/v1/categories?type=revenue&pattern=ig%20')).body.data.map((r: any) => r.category);
    expect(ig).toEqual(['IG Federal', 'IG Local', 'IG State']);
    expect((await get('/api/v1/categories?pattern=.*')).body.data).toEqual([]);
    expect(expectErrorEnvelope(await get('/api/v1/categories?type=flows'), 400)).toContain('spending, revenue, balance');
  });

  it('carries a sql_query that returns the same rows', async () => {
    const { body } = await get('/api/v1/categories?type=balance');
    const rows = await query(body.provenance.sql_query);
    expect(rows.map((r) => [r.category, r.subtype, r.n_codes])).toEqual(body.data.map((r: any) => [r.category, r.subtype, r.n_codes]));
  });
});

describe('/recipes', () => {
  it("serves the corpus's recipe table plus the three whole-leg IG recipes", async () => {
    const { body } = await get('/api/v1/recipes');
    const corpus = await query(`SELECT recipe_id, count(*) AS n, min(year_min)::int AS lo, max(year_max)::int AS hi FROM ${table('harmonization_recipes')} GROUP BY 1`);
    expect(body.data.length).toBe(corpus.length + 3);
    for (const c of corpus) {
      const r = body.data.find((x: any) => x.recipe_id === c.recipe_id);
      expect(r).toMatchObject({ n_components: c.n, year_min: c.lo, year_max: c.hi, source: 'corpus' });
    }
    const ids = body.data.map((r: any) => r.recipe_id);
    for (const leg of ['federal', 'state', 'local']) {
      for (const kind of ['total', leg === 'federal' ? 'b89' : leg === 'state' ? 'c89' : 'd89', leg === 'federal' ? 'b47' : leg === 'state' ? 'c47' : 'd47']) {
        expect(ids).toContain(`ig_${leg}_${kind}_wide`);
      }
    }
  });

  it('defines each ig_*_total_wide as the wide family total through FY2011 and every family code from FY2012', async () => {
    const { body } = await get('/api/v1/recipes?pattern=total_wide');
    expect(body.data.map((r: any) => r.recipe_id)).toEqual(['ig_federal_total_wide', 'ig_local_total_wide', 'ig_state_total_wide']);
    for (const r of body.data) {
      const fam = r.components[0].component_code[0];
      expect(r.source).toBe('service');
      const wide = r.components.filter((c: any) => c.year_max <= 2011);
      expect(wide.map((c: any) => c.component_code)).toEqual([`${fam}--`]);
      const modern = r.components.filter((c: any) => c.year_min >= 2012).map((c: any) => c.component_code);
      const family = await query(`SELECT item_code FROM ${table('summary_categories')} WHERE item_code LIKE '${fam}%' ORDER BY 1`);
      expect(modern).toEqual(family.map((f) => f.item_code));
      expect(modern).toContain(`${fam}89`);
    }
  });

  it('rests on a fact of the real data: in FY2011 each family total equals its leaves plus the aggregates it bundles', async () => {
    const rows = await query(`
      WITH t AS (
        SELECT canonical_govid, left(item_code, 1) AS fam,
               sum(CASE WHEN item_code LIKE '_--' THEN amt ELSE 0 END) AS total,
               sum(CASE WHEN item_code NOT LIKE '_--' THEN amt ELSE 0 END) AS parts,
               count(*) FILTER (WHERE item_code LIKE '_--') AS has_total
        FROM read_parquet('${V6}/data/long/year=2011/part-0.parquet')
        WHERE left(item_code, 1) IN ('B', 'C', 'D') GROUP BY ALL)
      SELECT fam, count(*) AS govs, count(*) FILTER (WHERE total <> parts) AS mismatched, count(*) FILTER (WHERE has_total = 0) AS without_total FROM t GROUP BY fam ORDER BY fam`);
    expect(rows.map((r) => r.fam)).toEqual(['B', 'C', 'D']);
    for (const r of rows) {
      expect(r.govs).toBeGreaterThan(1000);
      expect(r.mismatched).toBe(0);
      expect(r.without_total).toBe(0);
    }
  });
});

describe('/openapi.json and /__docs__/', () => {
  it('is valid OpenAPI 3.1 listing every route with its parameters', async () => {
    const { body } = await get('/openapi.json');
    const v = new Validator();
    const res = await v.validate(body);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(v.version).toBe('3.1');
    for (const r of financeRoutes) {
      const op = body.paths[r.path]?.get;
      expect(op, r.path).toBeDefined();
      const names = op.parameters.map((p: any) => p.name).sort();
      expect(names).toEqual([...Object.keys(r.pathParams ?? {}), ...Object.keys(r.query)].sort());
    }
  });

  it('serves a docs page that loads nothing from outside this server', async () => {
    const page = await get('/__docs__/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) expect((await get(ref)).status, ref).toBe(200);
    expect((await get('/__docs__/init.js')).text).toContain("'/openapi.json'");
  });

  it('serves no file outside its fixed list (no traversal)', async () => {
    for (const p of ['/__docs__/../package.json', '/__docs__/%2e%2e/package.json', '/__docs__/swagger-ui-dist/package.json', '/__docs__/index.js', '/fixtures/finance/v6/manifest.json']) {
      expect((await get(p)).status, p).toBe(404);
    }
  });
});

describe('/data-dictionary and /llms.txt', () => {
  it('the data dictionary documents every parameter and row field of every route, and the decisions', async () => {
    const { body } = await get('/api/v1/data-dictionary');
    const params = new Set(body.data.filter((r: any) => r.section === 'parameter').map((r: any) => r.name));
    const fields = new Set(body.data.filter((r: any) => r.section === 'row').map((r: any) => r.name));
    for (const r of financeRoutes) {
      for (const k of [...Object.keys(r.query), ...Object.keys(r.pathParams ?? {})]) expect(params.has(k), k).toBe(true);
      for (const f of r.rowFields ?? []) expect(fields.has(f.name), f.name).toBe(true);
    }
    const decisions = body.data.filter((r: any) => r.section === 'decision').map((r: any) => r.name);
    expect(decisions).toEqual(expect.arrayContaining(['default limit', 'repeated query keys', 'q and pattern']));
    const caveats = body.data.filter((r: any) => r.section === 'caveat');
    const all = await query(`SELECT break_id FROM ${table('series_breaks')} WHERE fin_code = 'ALL' ORDER BY 1`);
    // The corpus-wide breaks, and the survey calendar beside them (what a missing row most often means).
    expect(caveats.map((c: any) => c.name).sort()).toEqual([...all.map((a) => a.break_id), 'survey calendar']);
  });

  it('the school service\'s dictionary documents every parameter and row field of its routes and its decisions; its llms.txt names every route and parameter', async () => {
    const { body } = await get('/api/v1/data-dictionary', undefined, arrestsUrl());
    const params = new Set(body.data.filter((r: any) => r.section === 'parameter').map((r: any) => r.name));
    const fields = new Set(body.data.filter((r: any) => r.section === 'row').map((r: any) => r.name));
    const llms = (await get('/api/v1/llms.txt', undefined, arrestsUrl())).text;
    for (const r of arrestsRoutes) {
      expect(llms).toContain(`GET ${r.path}`);
      for (const k of [...Object.keys(r.query), ...Object.keys(r.pathParams ?? {})]) {
        expect(params.has(k), k).toBe(true);
        expect(llms, `${r.path} ${k}`).toContain(k);
      }
      for (const f of r.rowFields ?? []) expect(fields.has(f.name), f.name).toBe(true);
    }
    // The decisions both services take the same way are the same rows.
    const finance = (await get('/api/v1/data-dictionary')).body.data.filter((r: any) => r.section === 'decision');
    const school = body.data.filter((r: any) => r.section === 'decision');
    for (const name of ['repeated query keys', 'query syntax', 'HTTP caching', 'request limits']) {
      const a = finance.find((d: any) => d.name === name), b = school.find((d: any) => d.name === name);
      expect(a, name).toBeDefined();
      expect(b?.description, name).toBe(a.description);
    }
  });

  it('llms.txt names every route and is plain text', async () => {
    const got = await get('/api/v1/llms.txt');
    expect(got.headers.get('content-type')).toContain('text/plain');
    for (const r of financeRoutes) {
      expect(got.text).toContain(`GET ${r.path}`);
      for (const k of Object.keys(r.query)) expect(got.text, `${r.path} ${k}`).toContain(k);
    }
  });
});
