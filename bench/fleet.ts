// Fleet scenarios on a mirror (default: the bundled fixture), each beside
// DuckDB answering the same question over the same parquet in the same run:
//   1. one 50,000-row CSV pull (rows/s end to end over loopback)
//   2. /rollups for the county layer, one year
//   3. /peer-comparison for a county
//   npm run bench:fleet [-- --data <mirror dir>]

import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { query } from '../scripts/lib/duckdb.js';
import { ROOT, startServer } from '../scripts/lib/server.js';
import { median, timeRuns } from './lib/timing.js';
import { arg } from './lib/args.js';

const data = path.resolve(arg('data', path.join(ROOT, 'fixtures/finance/v6')));
// The response cache is off: every request is computed.
const server = await startServer({ FINANCE_DATA: data, WORKERS: String(os.cpus().length), RESPONSE_CACHE_MB: '0' }, 600_000);
const url = (p: string): string => `${server.url}${p}`;
const json = async (p: string): Promise<any> => (await fetch(url(p))).json();
const RUNS = 15;

const health = (await json('/api/v1/health')).data[0];
const years = health.corpus.years as number[];
const latest = years[years.length - 1]!;
const span = `${years[0]}-${latest}`;

// 1. CSV pull: the cities of every state over every year, first 50,000 rows.
const csvPath = `/api/v1/spending?type=city&years=${span}&format=csv`;
const sqlOf = async (p: string): Promise<string> => (await json(p)).provenance.sql_query as string;
const csvSql = await sqlOf(`/api/v1/spending?type=city&years=${span}&limit=1`);
let rows = 0;
await (await fetch(url(csvPath))).text();
const ours = await timeRuns(RUNS, async () => { rows = (await (await fetch(url(csvPath))).text()).split('\r\n').length - 2; });
const out = path.join(os.tmpdir(), `civicstream-bench-${process.pid}.csv`);
const duckCsv = `COPY (${csvSql} LIMIT 50000) TO '${out}' (FORMAT csv, HEADER)`;
await query(duckCsv);
const theirs = await timeRuns(RUNS, () => query(duckCsv));

// 2. County rollup, one year, all categories.
const rollupPath = `/api/v1/rollups?layer=county&years=${latest}`;
const rollupSql = (await json(rollupPath)).provenance.sql_query as string;
const oursRollup = await timeRuns(RUNS, () => fetch(url(rollupPath)).then((r) => r.text()));
await query(rollupSql);
const theirsRollup = await timeRuns(RUNS, () => query(rollupSql));

// 3. Peer comparison of a mid-sized county: DuckDB finds the peers, then sums their spending.
const county = (await json('/api/v1/governments?type=county&limit=1&page=99')).data[0].canonical_govid as string;
const pcPath = `/api/v1/governments/${county}/peer-comparison?category=Police&years=${span}`;
const pc = await json(pcPath);
const peersSql = (await json(`/api/v1/governments/${county}/peers`)).provenance.sql_query as string;
const spendSql = pc.provenance.sql_query as string;
const oursPc = await timeRuns(RUNS, () => fetch(url(pcPath)).then((r) => r.text()));
const duckPc = async () => { await query(peersSql); await query(spendSql); };
await duckPc();
const theirsPc = await timeRuns(RUNS, duckPc);

await server.stop();

const ms = (x: number): string => x.toFixed(1);
const rowsPerS = (msTime: number): string => Math.round((rows / msTime) * 1000).toLocaleString('en-US');
const table = [
  `Fleet scenarios, ${path.relative(ROOT, data) || data} (${Number(health.corpus.rows).toLocaleString('en-US')} rows, years ${years.join(', ')}); ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} cores; median of ${RUNS} runs, DuckDB warm, in the same run`,
  '',
  '| scenario | civicstream | DuckDB | ratio (DuckDB time / ours) |',
  '|---|---|---|---|',
  `| 50,000-row CSV pull (${rows.toLocaleString('en-US')} rows; ours over HTTP, DuckDB COPY to a file) | ${ms(median(ours))} ms = ${rowsPerS(median(ours))} rows/s | ${ms(median(theirs))} ms = ${rowsPerS(median(theirs))} rows/s | ${(median(theirs) / median(ours)).toFixed(2)}x |`,
  `| /rollups county layer, ${latest}, all categories (ours: first page of 1000 over HTTP; DuckDB: every row) | ${ms(median(oursRollup))} ms | ${ms(median(theirsRollup))} ms | ${(median(theirsRollup) / median(oursRollup)).toFixed(2)}x |`,
  `| /peer-comparison, a county, Police, ${span} | ${ms(median(oursPc))} ms | ${ms(median(theirsPc))} ms | ${(median(theirsPc) / median(oursPc)).toFixed(2)}x |`,
].join('\n');
console.log(table);
mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench/results/fleet.md'), `${table}\n`);
process.exit(0);
