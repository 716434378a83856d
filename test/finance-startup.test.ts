// Start-up refuses a faulty mirror, naming the file and the problem, and never
// serves a partial corpus; the legacy-schema fixtures load.

import { chmodSync, cpSync, mkdirSync, mkdtempSync, openSync, closeSync, readSync, writeSync, readFileSync, rmSync, symlinkSync, writeFileSync, readdirSync, statSync, truncateSync, utimesSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runToExit, startServer } from './helpers/server.js';
import { duck, V6 } from './helpers/duckdb.js';
import { get } from './helpers/http.js';

const tmpRoots: string[] = [];
afterAll(() => { for (const d of tmpRoots) rmSync(d, { recursive: true, force: true }); });

/** A mirror whose files link to the v6 fixture, except those listed, which are copied for editing. */
function mirror(copied: string[] = []): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'civicstream-mirror-'));
  tmpRoots.push(dir);
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(V6, rel))) {
      if (name === '.civicstream-cache') continue; // a local run's load cache is not part of the mirror
      const r = path.join(rel, name);
      if (statSync(path.join(V6, r)).isDirectory()) {
        mkdirSync(path.join(dir, r), { recursive: true });
        walk(r);
      } else if (copied.includes(r) || r === 'manifest.json') cpSync(path.join(V6, r), path.join(dir, r));
      else symlinkSync(path.join(V6, r), path.join(dir, r));
    }
  };
  walk('');
  return dir;
}

const P2019 = 'data/long/year=2019/part-0.parquet';
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

function editManifest(dir: string, edit: (m: any) => void): void {
  const file = path.join(dir, 'manifest.json');
  const m = JSON.parse(readFileSync(file, 'utf8'));
  edit(m);
  writeFileSync(file, JSON.stringify(m));
}

async function refuses(dir: string, ...expected: (string | RegExp)[]): Promise<void> {
  const r = await runToExit({ FINANCE_DATA: dir });
  if (r.code === 0 || r.code === null) console.error(r.stderr);
  expect(r.stdout).not.toContain('"event":"listening"');
  expect(r.code).not.toBe(0);
  expect(r.code).not.toBeNull();
  for (const e of expected) expect(r.stderr, r.stderr).toMatch(e);
}

describe('start-up refuses a faulty mirror', () => {
  it('a partition with one flipped byte (sha256 mismatch), naming the file', async () => {
    const dir = mirror([P2019]);
    const f = path.join(dir, P2019);
    const bytes = readFileSync(f);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(f, bytes);
    await refuses(dir, /year=2019\/part-0\.parquet/, /sha256 does not match/);
  });

  it('a flipped byte that the manifest vouches for (no sha256): the parquet reader fails, naming the file', async () => {
    const dir = mirror([P2019]);
    const f = path.join(dir, P2019);
    const bytes = readFileSync(f);
    bytes.fill(0x5a, 4, bytes.length - 64 * 1024);
    writeFileSync(f, bytes);
    editManifest(dir, (m) => { for (const p of m.files.long_partitions) delete p.sha256; });
    await refuses(dir, /year=2019\/part-0\.parquet/);
  });

  it('a truncated partition', async () => {
    const dir = mirror([P2019]);
    truncateSync(path.join(dir, P2019), 100_000);
    await refuses(dir, /year=2019\/part-0\.parquet/);
  });

  it('a missing partition', async () => {
    const dir = mirror();
    rmSync(path.join(dir, P2019));
    await refuses(dir, /year=2019\/part-0\.parquet: file is missing/);
  });

  it('a row count that does not match the manifest', async () => {
    const dir = mirror();
    editManifest(dir, (m) => { m.files.long_partitions[1].row_count += 1; delete m.files.long_partitions[1].sha256; });
    await refuses(dir, /year=2019\/part-0\.parquet: has 318139 rows; the manifest says 318140/);
  });

  it('a manifest that does not parse', async () => {
    const dir = mirror();
    writeFileSync(path.join(dir, 'manifest.json'), '{"schema_version": 6, "files": ');
    await refuses(dir, /manifest\.json: does not parse as JSON/);
  });

  it('an unsupported schema_version', async () => {
    const dir = mirror();
    editManifest(dir, (m) => { m.schema_version = 3; });
    await refuses(dir, /manifest\.json: schema_version 3 is not supported/);
  });

  it('a partition whose schema lacks a column the engine reads', async () => {
    const dir = mirror([P2019]);
    const f = path.join(dir, P2019);
    rmSync(f);
    const con = await duck();
    await con.run(`COPY (SELECT * EXCLUDE (amt) FROM read_parquet('${path.join(V6, P2019)}', hive_partitioning = false)) TO '${f}' (FORMAT parquet)`);
    editManifest(dir, (m) => { m.files.long_partitions[1].sha256 = sha(f); });
    await refuses(dir, /year=2019\/part-0\.parquet: schema is missing column\(s\) amt/);
  });

  it('a missing metadata table that the schema requires', async () => {
    const dir = mirror();
    rmSync(path.join(dir, 'data/summary_categories.parquet'));
    await refuses(dir, /summary_categories\.parquet: file is missing/);
  });

  it('the slow JavaScript fallback of uWebSockets.js', async () => {
    const r = await runToExit({ UWS_USE_FALLBACK: '1' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('JavaScript fallback');
  });
});

describe('legacy schema fixtures', () => {
  for (const v of [5, 4]) {
    it(`the schema_version ${v} fixture loads the same rows`, async () => {
      const s = await startServer({ FINANCE_DATA: path.join(ROOT, `fixtures/finance/v${v}`) });
      try {
        const root = (await get('/api/v1/', undefined, s.url)).body.data[0];
        expect(root.schema_version).toBe(v);
        expect(root.published_years).toEqual([2011, 2019, 2020]);
        const health = (await get('/api/v1/health', undefined, s.url)).body.data[0];
        expect(health.corpus.rows).toBe(1131643);
        const recipes = (await get('/api/v1/recipes', undefined, s.url)).body;
        if (v === 4) expect(recipes.data.map((r: any) => r.source)).toEqual(['service', 'service', 'service']);
        else expect(recipes.data.length).toBe(27);
      } finally {
        await s.stop();
      }
    });
  }
});

describe('start-up refuses a faulty school mirror', () => {
  const A = path.join(ROOT, 'fixtures/arrests');
  /** A copy of the school fixture without its summary cache. */
  function arrestsMirror(): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'civicstream-arrests-'));
    tmpRoots.push(dir);
    cpSync(A, dir, { recursive: true, filter: (src) => !src.includes('summaries') });
    return dir;
  }
  const shard = 'parquet/model_id=unified_m2_mod/YEAR=21-22/LEA_STATE=RI/part-0.parquet';

  it('a corrupt shard, naming the file', async () => {
    const dir = arrestsMirror();
    const f = path.join(dir, shard);
    const bytes = readFileSync(f);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(f, bytes);
    const r = await runToExit({ ARRESTS_DATA: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('LEA_STATE=RI/part-0.parquet: sha256 does not match');
  });

  it('a truncated shard that the manifest gives no sha256 for: the parquet reader refuses it, naming the file', async () => {
    const dir = arrestsMirror();
    const mf = path.join(dir, 'manifest.json');
    const m = JSON.parse(readFileSync(mf, 'utf8'));
    for (const e of m.shards) if (e.path === shard) delete e.sha256;
    writeFileSync(mf, JSON.stringify(m));
    const f = path.join(dir, shard);
    writeFileSync(f, readFileSync(f).subarray(0, 4000));
    const r = await runToExit({ ARRESTS_DATA: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing to start: .*LEA_STATE=RI\/part-0\.parquet: not a readable parquet file/);
  });

  it('a manifest that does not parse, and a missing shard', async () => {
    const bad = arrestsMirror();
    writeFileSync(path.join(bad, 'manifest.json'), '{"dataset": "x", ');
    const r1 = await runToExit({ ARRESTS_DATA: bad });
    expect(r1.code).toBe(1);
    expect(r1.stderr).toMatch(/manifest\.json: does not parse as JSON/);
    const missing = arrestsMirror();
    rmSync(path.join(missing, shard));
    const r2 = await runToExit({ ARRESTS_DATA: missing });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/LEA_STATE=RI\/part-0\.parquet: file is missing/);
  });

  it('a shard whose schema lacks a column the summariser reads (pred)', async () => {
    const dir = arrestsMirror();
    const f = path.join(dir, shard);
    rmSync(f);
    const con = await duck();
    await con.run(`COPY (SELECT * EXCLUDE (pred) FROM read_parquet('${path.join(A, shard)}', hive_partitioning = false)) TO '${f}' (FORMAT parquet)`);
    const mf = path.join(dir, 'manifest.json');
    const m = JSON.parse(readFileSync(mf, 'utf8'));
    for (const e of m.shards) if (e.path === shard) e.sha256 = sha(f);
    writeFileSync(mf, JSON.stringify(m));
    const r = await runToExit({ ARRESTS_DATA: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/LEA_STATE=RI\/part-0\.parquet: schema is missing column\(s\) pred/);
  });

  it('a missing district table', async () => {
    const dir = arrestsMirror();
    rmSync(path.join(dir, 'districts.parquet'));
    const r = await runToExit({ ARRESTS_DATA: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/districts\.parquet: file is missing/);
  });
});

describe('load cache', () => {
  it('a start from the cache answers exactly as a full load from parquet', async () => {
    const dir = mirror();
    const full = await startServer({ FINANCE_DATA: dir, WORKERS: '1' });
    const a = await Promise.all(['/api/v1/health', '/api/v1/governments/062037161174/spending?expenditure_concept=total', '/api/v1/spending?state=TX&type=county&years=2011-2020&limit=1000', '/api/v1/governments/062037161174/spending?category=Police,Fire'].map((p) => get(p, undefined, full.url)));
    await full.stop();
    // A pool of one worker still decodes on every core (3 partitions here); the cached start decodes nothing.
    expect(full.ready.loader_threads).toBe(Math.min(os.availableParallelism(), 3));
    const cached = await startServer({ FINANCE_DATA: dir, WORKERS: '1' });
    expect(cached.ready.loader_threads).toBe(0);
    const b = await Promise.all(['/api/v1/health', '/api/v1/governments/062037161174/spending?expenditure_concept=total', '/api/v1/spending?state=TX&type=county&years=2011-2020&limit=1000', '/api/v1/governments/062037161174/spending?category=Police,Fire'].map((p) => get(p, undefined, cached.url)));
    await cached.stop();
    expect(readdirSync(path.join(dir, '.civicstream-cache')).length).toBe(1);
    expect(b[0]!.body.data[0].corpus).toEqual(a[0]!.body.data[0].corpus);
    expect(b[1]!.body.data).toEqual(a[1]!.body.data);
    expect(b[2]!.body.data).toEqual(a[2]!.body.data);
    expect(b[2]!.body.provenance.codes_summed).toEqual(a[2]!.body.provenance.codes_summed);
    // A category query reads only its categories' rows of each run: the cached rows keep that order.
    expect(a[3]!.body.data.length).toBeGreaterThan(0);
    expect(b[3]!.body.data).toEqual(a[3]!.body.data);
  });

  it('a new cache replaces the one it supersedes (no stale copies pile up beside the mirror)', async () => {
    const dir = mirror();
    const cacheDir = path.join(dir, '.civicstream-cache');
    await (await startServer({ FINANCE_DATA: dir, WORKERS: '1' })).stop();
    const first = readdirSync(cacheDir);
    expect(first.length).toBe(1);
    // Same data, different manifest text: a different key, so a miss and a new cache.
    const mf = path.join(dir, 'manifest.json');
    writeFileSync(mf, `${readFileSync(mf, 'utf8')}\n`);
    await (await startServer({ FINANCE_DATA: dir, WORKERS: '1' })).stop();
    const second = readdirSync(cacheDir);
    expect(second.length).toBe(1);
    expect(second[0]).not.toBe(first[0]);
  });

  it('a changed partition is a miss: the next start loads and verifies the parquet again', async () => {
    const dir = mirror([P2019]);
    const s1 = await startServer({ FINANCE_DATA: dir, WORKERS: '1' });
    await s1.stop();
    const f = path.join(dir, P2019);
    const bytes = readFileSync(f);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(f, bytes);
    await refuses(dir, /year=2019\/part-0\.parquet: sha256 does not match/);
  });
});

// Issue 23, finding 6: the cache's key says which cache to read, not that its bytes are intact.
describe('load cache integrity', () => {
  const paths = ['/api/v1/governments/062037161174/spending?expenditure_concept=total', '/api/v1/spending?state=TX&type=county&years=2011-2020&limit=1000'];
  const answers = async (url: string) => (await Promise.all(paths.map((p) => get(p, undefined, url)))).map((r) => r.body.data);

  it('bytes flipped in place (same size and mtime) are found at load: a log line, a full load from parquet, the right numbers, a new cache', async () => {
    const dir = mirror();
    const full = await startServer({ FINANCE_DATA: dir, WORKERS: '1' });
    const truth = await answers(full.url);
    await full.stop();
    const cacheDir = path.join(dir, '.civicstream-cache');
    const file = path.join(cacheDir, readdirSync(cacheDir)[0]!);
    const st = statSync(file);
    // Flip a run of bytes three quarters in (the amounts and groups), keeping size and mtime.
    const fd = openSync(file, 'r+');
    const at = Math.floor(st.size * 0.75);
    const b = Buffer.alloc(64);
    readSync(fd, b, 0, 64, at);
    for (let i = 0; i < b.length; i++) b[i]! ^= 0x5a;
    writeSync(fd, b, 0, 64, at);
    closeSync(fd);
    utimesSync(file, st.atime, st.mtime);
    expect(statSync(file).size).toBe(st.size);

    const again = await startServer({ FINANCE_DATA: dir, WORKERS: '1' });
    expect(again.ready.loader_threads).toBeGreaterThan(0);
    expect(again.stderr()).toMatch(/"event":"load_cache_rejected".*does not match its sha256/);
    expect(await answers(again.url)).toEqual(truth);
    await again.stop();

    const third = await startServer({ FINANCE_DATA: dir, WORKERS: '1' });
    expect(third.ready.loader_threads).toBe(0);
    expect(third.stderr()).not.toContain('load_cache_rejected');
    expect(await answers(third.url)).toEqual(truth);
    await third.stop();
  }, 300_000);

  /** A mirror whose load cache a first start wrote, and that cache's file. */
  async function cachedMirror(): Promise<{ dir: string; file: string }> {
    const dir = mirror();
    await (await startServer({ FINANCE_DATA: dir, WORKERS: '1' })).stop();
    const cacheDir = path.join(dir, '.civicstream-cache');
    return { dir, file: path.join(cacheDir, readdirSync(cacheDir)[0]!) };
  }

  /** The next start loads from parquet, saying why on stderr. */
  async function rejected(dir: string, why: string): Promise<void> {
    const s = await startServer({ FINANCE_DATA: dir, WORKERS: '1' });
    expect(s.ready.loader_threads).toBeGreaterThan(0);
    expect(s.stderr()).toContain(why);
    await s.stop();
  }

  it('a cache from another manifest is not read', async () => {
    const { dir, file } = await cachedMirror();
    const text = readFileSync(file);
    const nl = text.indexOf(10);
    // A header that vouches for itself (its own sha256 recomputed) but names another manifest.
    const { header_sha256: _digest, ...header } = JSON.parse(text.subarray(0, nl).toString('utf8'));
    header.manifest_sha256 = header.manifest_sha256.replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    const body = JSON.stringify(header);
    const line = `${body.slice(0, -1)},"header_sha256":"${createHash('sha256').update(body).digest('hex')}"}`;
    writeFileSync(file, Buffer.concat([Buffer.from(line), text.subarray(nl)]));
    await rejected(dir, 'it was built from another manifest');
  }, 300_000);

  it('a count flipped in the header (same size, no digest recomputed) is found too', async () => {
    const { dir, file } = await cachedMirror();
    const text = readFileSync(file);
    const at = text.indexOf('"nGroups":') + '"nGroups":'.length;
    text[at] = text[at] === 0x31 ? 0x32 : 0x31;
    writeFileSync(file, text);
    await rejected(dir, 'its header does not match its sha256');
  }, 300_000);

  it('under the shared temp directory: one private (0700) directory per user, and a directory others can write is never read', async () => {
    const dir = mirror();
    // The mirror's own cache place is taken by a file, so the cache goes under TMPDIR.
    writeFileSync(path.join(dir, '.civicstream-cache'), 'not a directory');
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-tmp-'));
    tmpRoots.push(tmp);
    const env = { FINANCE_DATA: dir, WORKERS: '1', TMPDIR: tmp };
    await (await startServer(env)).stop();
    const mine = path.join(tmp, `civicstream-cache-${process.getuid!()}`);
    expect(statSync(mine).mode & 0o777).toBe(0o700);
    const [leaf] = readdirSync(mine);
    expect(statSync(path.join(mine, leaf!)).mode & 0o777).toBe(0o700);
    const cached = await startServer(env);
    expect(cached.ready.loader_threads).toBe(0);
    await cached.stop();

    chmodSync(mine, 0o777);
    const open = await startServer(env);
    expect(open.ready.loader_threads).toBeGreaterThan(0);
    expect(open.stderr()).toMatch(/load_cache_rejected.*writable by others \(mode 777\)/);
    await open.stop();
  }, 300_000);
});

