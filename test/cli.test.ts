// The civicstream command: each command run as a user would (node on the
// built entry), its output compared with the API's for the same question.

import { spawn } from 'node:child_process';
import { cpSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';
import { financeUrl, get } from './helpers/http.js';
import { asCell, parseCsv } from './helpers/csv.js';
import { query } from './helpers/duckdb.js';

const CLI = path.join(ROOT, 'dist/src/cli/main.js');
const V6 = path.join(ROOT, 'fixtures/finance/v6');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The command's run; with fileLimitKb, under that limit on the size of a file it writes (ulimit -f: a write past it fails, EFBIG). */
function cli(args: string[], env: Record<string, string> = {}, fileLimitKb?: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const [cmd, argv] = fileLimitKb === undefined
      ? [process.execPath, [CLI, ...args]]
      : ['bash', ['-c', `ulimit -f ${fileLimitKb}; exec "$0" "$@"`, process.execPath, CLI, ...args]];
    const p = spawn(cmd, argv, { env: { ...process.env, WORKERS: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('civicstream query', () => {
  it('spending as CSV is the API\'s CSV, byte for byte', async () => {
    const q = { state: 'TX', type: 'county', years: '2011-2020', category: 'Police', limit: '5000' };
    const r = await cli(['query', 'spending', '--data', V6, ...Object.entries(q).flatMap(([k, v]) => [`--${k}`, v]), '--format', 'csv']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const api = await (await fetch(`${financeUrl()}/api/v1/spending?${new URLSearchParams({ ...q, format: 'csv' })}`)).text();
    expect(api.split('\r\n').length).toBeGreaterThan(100);
    expect(r.stdout).toBe(api);
  }, 180_000);

  it('revenue, rollups, peers and balances as JSON carry the API\'s rows; table and csv render them', async () => {
    // A mid-sized city: the largest have no peers within the population band.
    const city = (await get('/api/v1/governments?type=city&limit=1&page=150')).body.data[0].canonical_govid as string;
    const cases: [string[], string][] = [
      [['revenue', '--govid', '062037161174', '--years', '2020', '--category', 'Property Tax'], '/api/v1/revenue?govid=062037161174&years=2020&category=Property%20Tax'],
      [['rollups', '--layer', 'county', '--years', '2020', '--state', 'DE'], '/api/v1/rollups?layer=county&years=2020&state=DE'],
      [['peers', '--govid', city], `/api/v1/governments/${city}/peers`],
      [['balances', '--govid', '062037161174', '--years', '2020'], '/api/v1/governments/062037161174/balances?years=2020'],
    ];
    for (const [args, apiPath] of cases) {
      const r = await cli(['query', ...args, '--data', V6]);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(0);
      const api = (await get(apiPath)).body;
      const mine = JSON.parse(r.stdout);
      expect(mine.data.length, args[0]).toBeGreaterThan(0);
      expect(mine.data, args[0]).toEqual(api.data);
      expect(mine.meta.total).toBe(api.meta.total);
    }
    const table = await cli(['query', 'rollups', '--layer', 'county', '--years', '2020', '--state', 'DE', '--data', V6, '--format', 'table']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^year\s+/);
    expect(lines[1]).toMatch(/^-+\s+-+/);
    const api = (await get('/api/v1/rollups?layer=county&years=2020&state=DE')).body;
    expect(lines.length).toBe(2 + api.data.length);
    // A route without its own CSV: the rows through the one CSV writer, a header of the row fields.
    const csv = await cli(['query', 'rollups', '--layer', 'county', '--years', '2020', '--state', 'DE', '--data', V6, '--format', 'csv']);
    const [head, ...records] = await parseCsv(csv.stdout);
    expect(head).toEqual(Object.keys(api.data[0]));
    expect(records).toEqual(api.data.map((row: any) => head!.map((k) => asCell(row[k]))));
  }, 300_000);

  it('a bad parameter is the API\'s message on one line, exit non-zero; an unknown route or format is refused', async () => {
    const bad = await cli(['query', 'spending', '--data', V6, '--state', 'ZZ', '--type', 'city']);
    expect(bad.code).not.toBe(0);
    const api = (await get('/api/v1/spending?state=ZZ&type=city')).body.error as string;
    expect(bad.stderr).toBe(`civicstream: query: ${api}\n`);
    const route = await cli(['query', 'nonsense']);
    expect(route.code).toBe(2);
    expect(route.stderr).toMatch(/^civicstream: query: name a route: spending, revenue/);
    const fmt = await cli(['query', 'spending', '--format', 'xml']);
    expect(fmt.stderr).toBe("civicstream: query: --format must be csv, json or table; got 'xml'\n");
  }, 180_000);
});

describe('civicstream query: the API\'s routes by name, its keys either way, tables that say what they cut (issue 22, item 8)', () => {
  it('government-revenue is one government\'s history, the per-government route\'s rows; revenue with --govid the flat route\'s latest year', async () => {
    const args = ['--govid', '062037161174', '--category', 'Property Tax', '--data', V6, '--format', 'json'];
    const history = JSON.parse((await cli(['query', 'government-revenue', ...args])).stdout);
    const api = (await get('/api/v1/governments/062037161174/revenue?category=Property%20Tax')).body;
    expect(history.data).toEqual(api.data);
    expect(new Set(history.data.map((r: any) => r.year))).toEqual(new Set([2011, 2019, 2020]));
    const flat = JSON.parse((await cli(['query', 'revenue', ...args])).stdout);
    expect(new Set(flat.data.map((r: any) => r.year))).toEqual(new Set([2020]));
  }, 180_000);

  it('--help names the route each command calls and its defaults, from the route table', async () => {
    const help = (await cli(['query', '--help'])).stdout;
    expect(help).toContain('government-revenue   GET /api/v1/governments/{govid}/revenue');
    expect(help).toMatch(/revenue {14}GET \/api\/v1\/revenue\n {23}defaults: years=the latest published year/);
    expect(help).toMatch(/government-spending {2}GET \/api\/v1\/governments\/\{govid\}\/spending\n {23}defaults: years=every published year/);
  });

  it('takes kebab-case flags as the API\'s snake_case keys, and refuses both spellings of one', async () => {
    const q = ['--state', 'DE', '--type', 'city', '--years', '2020', '--category', 'Police', '--data', V6, '--format', 'csv'];
    const kebab = await cli(['query', 'spending', ...q, '--per-capita', 'true', '--adjust', 'real', '--base-year', '2019']);
    expect(kebab.code).toBe(0);
    const api = await (await fetch(`${financeUrl()}/api/v1/spending?state=DE&type=city&years=2020&category=Police&per_capita=true&adjust=real&base_year=2019&format=csv`)).text();
    expect(kebab.stdout).toBe(api);
    const both = await cli(['query', 'spending', ...q, '--per-capita', 'true', '--per_capita', 'true']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--per_capita and --per_capita are the same parameter');
  }, 180_000);

  it('--format table ends a cut cell with an ellipsis and says which rows of how many it shows; peers print as a table', async () => {
    const page = await cli(['query', 'spending', '--state', 'CA', '--type', 'city', '--years', '2011', '--limit', '5', '--data', V6, '--format', 'table']);
    const lines = page.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(2 + 5 + 1);
    const total = (await get('/api/v1/spending?state=CA&type=city&years=2011&limit=1')).body.meta.total;
    expect(lines.at(-1)).toBe(`(rows 1-5 of ${total}; --page 1 for the next)`);
    // A recipe's label is longer than a cell: it is cut and marked. An answer without rows says so.
    const cut = await cli(['query', 'government-revenue', '--govid', '231005166151', '--recipe', 'ig_state_total_wide', '--data', V6, '--format', 'table']);
    expect(cut.stdout).toContain('  State IG revenue, whole leg (C-- wide, …  recipe');
    const none = await cli(['query', 'government-revenue', '--govid', '231005166151', '--category', 'IG State', '--basis', 'raw', '--years', '2011', '--data', V6, '--format', 'table']);
    expect(none.stdout).toBe('(no rows)\n');
    const peers = await cli(['query', 'peers', '--govid', '101003101811', '--data', V6, '--format', 'table']);
    expect(peers.stdout.split('\n')[0]).toMatch(/^rank +canonical_govid +gov_name/);
  }, 180_000);
});

/** The API's CSV pages of a flat query, concatenated, the header kept only if asked. */
async function apiPages(query: string, header: boolean, route = 'spending'): Promise<string> {
  let text = '';
  for (let page = 0; ; page++) {
    const t = await (await fetch(`${financeUrl()}/api/v1/${route}?${query}&format=csv&limit=50000&page=${page}`)).text();
    const rows = t.slice(t.indexOf('\r\n') + 2);
    if (rows === '') break;
    text += page === 0 && header ? t : rows;
  }
  return text;
}

describe('civicstream export', () => {
  it('that fails leaves --out as it was (a file there kept, none made) and no temporary file: refused at once, or partway by a file-size limit, CSV and Parquet', async () => {
    // County 2011-2020 is about 6.8 MB of CSV and 400 KB of Parquet: both outgrow a 300 KB limit, the Parquet file
    // only as its writer ends; years 1800 are refused at the first page, before anything is written.
    const dir = mkdtempSync(path.join(tmp, 'failed-export-'));
    for (const format of ['csv', 'parquet']) {
      for (const [why, years, limit] of [['refused', '1800', undefined], ['EFBIG', '2011-2020', 300]] as const) {
        const kept = path.join(dir, `kept.${format}`), fresh = path.join(dir, `fresh.${format}`);
        writeFileSync(kept, 'a file the user had\n');
        for (const out of [kept, fresh]) {
          const r = await cli(['export', '--data', V6, '--years', years, '--type', 'county', '--format', format, '--out', out], {}, limit);
          expect([format, why, r.code === 0]).toEqual([format, why, false]);
          if (why === 'EFBIG') expect(r.stderr).toContain('EFBIG');
          expect(r.stderr).not.toContain(`-> ${out}`);
        }
        expect(readFileSync(kept, 'utf8'), `${format} ${why}: the file there`).toBe('a file the user had\n');
        expect(readdirSync(dir).sort(), `${format} ${why}: no short or temporary file`).toEqual([`kept.${format}`, ...(format === 'parquet' ? ['kept.csv'] : [])].sort());
      }
    }
  }, 240_000);

  it('follows a symbolic link given as --out: the file it names gets the export, the link stays a link, no temporary file is left', async () => {
    const dir = mkdtempSync(path.join(tmp, 'export-link-'));
    const real = path.join(dir, 'real.csv'), link = path.join(dir, 'link.csv');
    writeFileSync(real, 'old\n');
    symlinkSync(real, link);
    const r = await cli(['export', '--data', V6, '--years', '2020', '--state', 'DE', '--out', link]);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe(await apiPages('years=2020&state=DE', true));
    expect(readdirSync(dir).sort()).toEqual(['link.csv', 'real.csv']);
  }, 300_000);

  it('writes a whole flat table past the 50,000-row page as one CSV with one header, equal to the API\'s pages', async () => {
    const out = path.join(tmp, 'spending.csv');
    const r = await cli(['export', '--data', V6, '--years', '2011', '--type', 'city', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    const lines = text.split('\r\n');
    expect(lines.at(-1)).toBe('');
    const rows = lines.length - 2;
    expect(rows).toBeGreaterThan(50_000); // more than one page
    expect(r.stderr).toContain(`export: ${rows.toLocaleString('en-US')} rows -> ${out}`);
    expect(lines.filter((l) => l.startsWith('year,')).length).toBe(1);
    // The API's pages, concatenated without their repeated headers, are the same bytes.
    expect(text).toBe(await apiPages('years=2011&type=city', true));
  }, 300_000);

  it('--format parquet writes the same rows as typed columns (read back by DuckDB)', async () => {
    const csvFile = path.join(tmp, 'county.csv'), pqFile = path.join(tmp, 'county.parquet');
    for (const [format, out] of [['csv', csvFile], ['parquet', pqFile]]) {
      const r = await cli(['export', '--data', V6, '--years', '2011-2020', '--type', 'county', '--format', format!, '--out', out!]);
      expect(r.code, r.stderr).toBe(0);
    }
    const [head, ...records] = await parseCsv(readFileSync(csvFile, 'utf8'));
    expect(records.length).toBeGreaterThan(50_000); // two row groups at least
    const types = Object.fromEntries((await query(`DESCRIBE SELECT * FROM read_parquet('${pqFile}')`)).map((d) => [d.column_name, d.column_type]));
    expect(Object.keys(types)).toEqual(head);
    expect(types).toMatchObject({ year: 'INTEGER', canonical_govid: 'VARCHAR', amt_nominal: 'DOUBLE', aggregate_fallback: 'BOOLEAN' });
    const rows = await query(`SELECT * FROM read_parquet('${pqFile}')`);
    expect(rows.length).toBe(records.length);
    const cell = (v: unknown): string => (v === null || v === undefined ? '' : String(v));
    for (const i of [0, 1, 49_999, 50_000, records.length - 1]) expect(head!.map((k) => cell(rows[i]![k])), `row ${i}`).toEqual(records[i]);
  }, 300_000);

  it('--format parquet keeps nulls as nulls (completed cells: amounts, codes and flags)', async () => {
    const args = ['--years', '2011-2020', '--type', 'county', '--state', 'DE', '--category', 'Police', '--complete', 'true'];
    const pq = path.join(tmp, 'complete.parquet'), csv = path.join(tmp, 'complete.csv');
    expect((await cli(['export', '--data', V6, ...args, '--format', 'parquet', '--out', pq])).code).toBe(0);
    expect((await cli(['export', '--data', V6, ...args, '--out', csv])).code).toBe(0);
    const [head, ...records] = await parseCsv(readFileSync(csv, 'utf8'));
    const at = (k: string) => head!.indexOf(k);
    const rows = await query(`SELECT * FROM read_parquet('${pq}')`);
    expect(rows.length).toBe(records.length);
    const notReported = records.filter((r) => r[at('value_source')] === 'not_reported');
    expect(notReported.length).toBeGreaterThan(0);
    records.forEach((r, i) => {
      for (const k of ['amt_nominal', 'codes_included', 'aggregate_fallback']) expect(rows[i]![k] === null, `${i} ${k}`).toBe(r[at(k)] === '');
    });
  }, 180_000);

  it('with subtype the pages are the route\'s narrower cap (1,000 rows), still one file', async () => {
    const out = path.join(tmp, 'capital.csv');
    const r = await cli(['export', '--data', V6, '--years', '2011-2020', '--type', 'county', '--subtype', 'capital', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const total = Number((await fetch(`${financeUrl()}/api/v1/spending?years=2011-2020&type=county&subtype=capital&format=csv&limit=1`)).headers.get('x-total-count'));
    expect(total).toBeGreaterThan(1000);
    const records = await parseCsv(readFileSync(out, 'utf8'));
    expect(records.length - 1).toBe(total);
    expect(r.stderr).toContain(`export: ${total.toLocaleString('en-US')} rows`);
  }, 300_000);

  it('reports each type\'s time and the whole export\'s, above zero and within the wall time the test measures (issue 31: "done in 0.0 s" for every type)', async () => {
    const out = path.join(tmp, 'timed.csv');
    const lines: [number, string][] = [];
    const t0 = performance.now();
    const code = await new Promise<number | null>((resolve) => {
      const p = spawn(process.execPath, [CLI, 'export', '--data', V6, '--years', '2011-2020', '--out', out], { env: { ...process.env, WORKERS: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let buf = '';
      p.stderr.on('data', (d) => {
        const now = (performance.now() - t0) / 1000;
        buf += d;
        const parts = buf.split('\n');
        buf = parts.pop()!;
        for (const l of parts) lines.push([now, l]);
      });
      p.on('exit', resolve);
    });
    const wall = (performance.now() - t0) / 1000;
    expect(code, lines.map((l) => l[1]).join('\n')).toBe(0);
    const secs = (l: string): number => Number(/ in (\d+(?:\.\d+)?) s$/.exec(l)![1]);
    // Each figure is rounded to the digits it shows: half a unit of its last digit either way.
    const slack = (l: string): number => 0.5 * 10 ** -((/ in \d+(?:\.(\d+))? s$/.exec(l)![1] ?? '').length);
    const typeLines = lines.filter(([, l]) => /^export \w+: done in /.test(l)).map(([, l]) => l);
    const perType = typeLines.map(secs);
    const rounding = [...typeLines, lines.find(([, l]) => l.startsWith('export: '))![1]].reduce((a, l) => a + slack(l), 0);
    expect(perType).toHaveLength(4);
    for (const s of perType) expect(s).toBeGreaterThan(0);
    const last = lines.find(([, l]) => l.startsWith('export: '))!;
    const total = secs(last[1]);
    // The types run one after another inside the export, which runs inside the process the test timed.
    const sum = perType.reduce((a, b) => a + b);
    expect(sum).toBeLessThanOrEqual(total + rounding);
    // ... and are most of it: each type's clock runs from its first page's request (its count) to its last page written.
    expect(sum, `${perType.join(' + ')} of ${total}`).toBeGreaterThanOrEqual(0.8 * total);
    expect(total - slack(last[1])).toBeLessThanOrEqual(wall);
    // From the first line it printed (after the first page) to its last, the test saw at most the time it reports.
    // (A second more: the test's own clock stamps a line when its thread next runs, late on a busy machine.)
    expect(last[0] - lines[0]![0]).toBeLessThanOrEqual(total + slack(last[1]) + 1);
  }, 300_000);

  it('with no selection exports every government, type by type, under one header', async () => {
    const out = path.join(tmp, 'revenue.csv');
    const r = await cli(['export', '--data', V6, '--route', 'revenue', '--years', '2020', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    let api = '';
    for (const [k, type] of ['state', 'county', 'city', 'township'].entries()) api += await apiPages(`years=2020&type=${type}`, k === 0, 'revenue');
    expect(readFileSync(out, 'utf8')).toBe(api);
  }, 300_000);
});

describe('civicstream verify', () => {
  it('reports a sound finance mirror and a sound school mirror', async () => {
    const f = await cli(['verify', V6]);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout).toMatch(/finance mirror OK: schema_version 6, 3 partitions \(2011-2020\), 1,131,643 rows/);
    const s = await cli(['verify', path.join(ROOT, 'fixtures/arrests')]);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/school draws mirror OK: \d+ shards, [\d,]+ draw rows, 240 districts/);
  }, 300_000);

  it('names the file and the fault of a broken mirror', async () => {
    const dir = path.join(tmp, 'broken');
    cpSync(V6, dir, { recursive: true, filter: (src) => !src.includes('.civicstream-cache') });
    const f = path.join(dir, 'data/long/year=2019/part-0.parquet');
    const bytes = readFileSync(f);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(f, bytes);
    const r = await cli(['verify', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^civicstream: data fault in .*year=2019\/part-0\.parquet: sha256 does not match/);
    const none = await cli(['verify', path.join(tmp, 'nowhere')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('manifest.json: file is missing');
  }, 180_000);
});

describe('civicstream help and errors', () => {
  it('--help on every command; an unknown command is one line and exit 2', async () => {
    const top = await cli(['--help']);
    for (const c of ['serve', 'query', 'export', 'verify', 'generate', 'build-estimates']) {
      expect(top.stdout).toContain(`  ${c}`);
      const h = await cli([c, '--help']);
      expect(h.code, c).toBe(0);
      expect(h.stdout, c).toMatch(new RegExp(`^civicstream ${c}`));
    }
    const serveHelp = await cli(['serve', '--help']);
    expect(serveHelp.stdout).toContain('--finance-port');
    expect(serveHelp.stdout).toContain('--mirror-url');
    const bad = await cli(['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("civicstream: unknown command 'frobnicate' (civicstream --help lists them)\n");
    // As a user runs it from the project: npx finds the package's own bin.
    const npx = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const p = spawn('npx', ['civicstream', '--help'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      p.stdout.on('data', (d) => { out += d; });
      p.on('exit', (code) => resolve({ code, out }));
    });
    expect(npx.code).toBe(0);
    expect(npx.out).toBe(top.stdout);
    const flag = await cli(['serve', '--no-such-flag', '1']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown flag --no-such-flag');
  }, 180_000);

  it('serve takes the environment variables as flags and serves', async () => {
    const p = spawn(process.execPath, [CLI, 'serve', '--finance-port', '0', '--arrests-port', '0', '--workers', '1', '--access-log', 'false'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        p.stdout!.on('data', (d) => {
          out += d;
          const line = out.split('\n').find((l) => l.includes('"service":"finance"'));
          if (line) resolve(JSON.parse(line).port);
        });
        p.once('exit', (c) => reject(new Error(`exited ${c}`)));
      });
      const h = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
      expect(h.status).toBe(200);
      expect((await h.json()).data[0].workers).toBe(1);
    } finally {
      p.kill('SIGTERM');
    }
  }, 180_000);

  it('serve on a terminal prints one line a person reads per service, with its URLs; on a pipe, the JSON log alone (issue 22, item 8)', async () => {
    // script(1) gives the server a pseudo-terminal, as npm start in a shell has.
    const cmd = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} serve --finance-port 0 --arrests-port 0 --workers 1 --access-log false`;
    // Its own process group, so the server under script(1) is stopped with it.
    const p = spawn('script', ['-qfec', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    try {
      await new Promise<void>((resolve, reject) => {
        p.stdout!.on('data', (d) => { out += d; if (/School arrest-rate estimates API/.test(out)) resolve(); });
        p.once('exit', (c) => reject(new Error(`exited ${c}: ${out}`)));
      });
      const port = JSON.parse(out.split(/\r?\n/).find((l) => l.includes('"service":"finance"'))!).port;
      expect(out).toContain(`Government finance API: http://127.0.0.1:${port}/api/v1/  docs http://127.0.0.1:${port}/__docs__/  explorer http://127.0.0.1:${port}/explore/`);
    } finally {
      const exited = new Promise((r) => p.once('exit', r));
      process.kill(-p.pid!, 'SIGTERM');
      await exited;
    }
    // Piped (the test servers, a container's log): no such line.
    const piped = await cli(['serve', '--help']);
    expect(piped.stderr).not.toContain('Government finance API:');
  }, 180_000);

  it('generate and build-estimates hand their options to the generators', async () => {
    const out = path.join(tmp, 'arrests');
    const g = await cli(['generate', 'arrests', '--out', out, '--states', 'DE', '--districts', '6', '--seed', '7']);
    expect(g.code, g.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.shards.length).toBeGreaterThan(0);
    const b = await cli(['build-estimates', '--data', out, '--workers', '1']);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/build:estimates: \d+ shards/);
    const v = await cli(['verify', out]);
    expect(v.stdout).toMatch(/school draws mirror OK/);
    const which = await cli(['generate', 'cats']);
    expect(which.code).toBe(2);
  }, 300_000);
});
